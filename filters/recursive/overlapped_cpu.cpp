#include "filters/recursive/overlapped_cpu.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "filters/core/errors.h"
#include "filters/recursive/block_algebra.h"
#include "filters/recursive/recursive_math.h"

namespace rf::cpu {

namespace {

constexpr int B = OverlappedPlan::kBlock;

template <int R, class T>
using Vec = std::array<T, R>;

template <int R, class T>
using Mat = std::array<std::array<T, R>, R>;

template <int R, class T>
Mat<R, T> square(const algebra::Matrix& m) {
  Mat<R, T> out{};
  if (m.rows == 0) return out;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < R; ++j) out[i][j] = T(m(i, j));
  return out;
}

template <int R, class T>
Vec<R, T> vec(const std::vector<double>& v) {
  Vec<R, T> out{};
  for (int i = 0; i < R && i < int(v.size()); ++i) out[i] = T(v[i]);
  return out;
}

template <class T>
std::vector<T> entries(const algebra::Matrix& m) {
  return {m.v.begin(), m.v.end()};
}

// y = M x
template <std::size_t R, class T>
std::array<T, R> mul(const std::array<std::array<T, R>, R>& m, const std::array<T, R>& x) {
  std::array<T, R> y{};
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < R; ++j) y[i] += m[i][j] * x[j];
  return y;
}

template <std::size_t R, class T>
void add_to(std::array<T, R>& a, const std::array<T, R>& b) {
  for (std::size_t i = 0; i < R; ++i) a[i] += b[i];
}

// The block matrices of one block length (block_algebra.h) in the arithmetic type T.
template <int R, class T>
struct Blocks {
  int len = 0;
  Mat<R, T> A_Fb{}, H_ARB_AFP{};
  std::vector<T> A_FP, A_RE, ARB_AFP;      // len x R
  std::vector<T> T_AFB, H_ARB, H_ARB_AFB;  // R x len

  Blocks() = default;
  Blocks(const Recursive& f, int l) : len(l) {
    const auto bm = algebra::block_matrices(f, l);
    A_Fb = square<R, T>(bm.A_Fb);
    H_ARB_AFP = square<R, T>(bm.H_ARB_AFP);
    A_FP = entries<T>(bm.A_FP);
    A_RE = entries<T>(bm.A_RE);
    ARB_AFP = entries<T>(bm.ARB_AFP);
    T_AFB = entries<T>(bm.T_AFB);
    H_ARB = entries<T>(bm.H_ARB);
    H_ARB_AFB = entries<T>(bm.H_ARB_AFB);
  }

  // sum_j M(:, j) v[j] for an R x len matrix M
  Vec<R, T> reduce(const std::vector<T>& m, const T* v) const {
    Vec<R, T> out{};
    for (int k = 0; k < R; ++k)
      for (int j = 0; j < len; ++j) out[k] += m[std::size_t(k) * len + j] * v[j];
    return out;
  }
};

// The seeds of one line direction (block_algebra.h, ExtensionSeeds) in the arithmetic type T.
template <int R, class T>
struct Seeds {
  Extension ext = Extension::Ignore;
  Vec<R, T> S{}, clamp_tail{};
  Mat<R, T> G{}, Q_n{}, Q_2n{}, A_n{}, M{};

  Seeds() = default;
  Seeds(const Recursive& f, Extension e, int n, bool causal_only) : ext(e) {
    // Causal-only filters need only the causal seed, which is zero for Zero and Ignore; this
    // keeps the summed-area table (a pole at 1) usable with them.
    if (causal_only && (e == Extension::Zero || e == Extension::Ignore)) return;
    const auto sd = algebra::extension_seeds(f, e, n);
    S = vec<R, T>(sd.S);
    clamp_tail = vec<R, T>(sd.clamp_tail);
    G = square<R, T>(sd.G);
    Q_n = square<R, T>(sd.Q_n);
    Q_2n = square<R, T>(sd.Q_2n);
    A_n = square<R, T>(sd.A_n);
    M = square<R, T>(sd.M);
  }
};

struct ImplBase {
  virtual ~ImplBase() = default;
  virtual void run(const float* in, float* out) = 0;
};

template <int R, class T>
class Overlapped final : public ImplBase {
  using V = Vec<R, T>;

 public:
  Overlapped(const Recursive& f, Extension ext, int width, int height)
      : w_(width),
        h_(height),
        mb_((height + B - 1) / B),
        nb_((width + B - 1) / B),
        ext_(ext),
        causal_only_(f.causal_only),
        col_seeds_(f, ext, height, f.causal_only),
        row_seeds_(f, ext, width, f.causal_only) {
    c_.b0 = T(f.b0);
    for (int k = 0; k < R; ++k) c_.a[k] = T(f.a[k]);
    col_blocks_[0] = Blocks<R, T>(f, std::min(B, height));
    col_blocks_[1] = Blocks<R, T>(f, height - (mb_ - 1) * B);
    row_blocks_[0] = Blocks<R, T>(f, std::min(B, width));
    row_blocks_[1] = Blocks<R, T>(f, width - (nb_ - 1) * B);
    const std::size_t per_block = std::size_t(mb_) * nb_ * B;
    for (auto* buf : {&p_bar_, &e_hat_, &pt_bar_, &et_bar_, &p_in_, &e_in_, &pt_in_, &et_in_})
      buf->assign(per_block, V{});
    if (ext == Extension::Mirror) {
      e_xt_.assign(per_block, V{});
      et_zt_.assign(per_block, V{});
    }
    if (ext == Extension::Clamp) {
      z_first_.assign(std::size_t(mb_) * B, T(0));
      z_last_.assign(std::size_t(mb_) * B, T(0));
    }
  }

  void run(const float* in, float* out) override {
#pragma omp parallel for collapse(2) schedule(static)
    for (int m = 0; m < mb_; ++m)
      for (int n = 0; n < nb_; ++n) stage1(in, m, n);
#pragma omp parallel for schedule(static)
    for (int col = 0; col < w_; ++col) stages23(in, col);
#pragma omp parallel for schedule(static)
    for (int row = 0; row < h_; ++row) stages45(row);
#pragma omp parallel for collapse(2) schedule(static)
    for (int m = 0; m < mb_; ++m)
      for (int n = 0; n < nb_; ++n) stage6(in, out, m, n);
  }

 private:
  int rows_of(int m) const {
    return std::min(B, h_ - m * B);
  }
  int cols_of(int n) const {
    return std::min(B, w_ - n * B);
  }
  const Blocks<R, T>& col_blocks(int m) const {
    return col_blocks_[m == mb_ - 1 ? 1 : 0];
  }
  const Blocks<R, T>& row_blocks(int n) const {
    return row_blocks_[n == nb_ - 1 ? 1 : 0];
  }
  // Carry of column (or row) j of block (m, n).
  std::size_t at(int m, int n, int j) const {
    return (std::size_t(m) * nb_ + n) * B + j;
  }

  static V zero() {
    return V{};
  }

  // Recursions over a strided run of a tile, starting from window w; in place.
  void causal(T* v, int len, int stride, V& w) const {
    T win[R];
    std::copy(w.begin(), w.end(), win);
    for (int i = 0; i < len; ++i) v[i * stride] = recursive_step(c_, v[i * stride], win);
    std::copy(win, win + R, w.begin());
  }
  void anticausal(T* v, int len, int stride, V& w) const {
    T win[R];
    std::copy(w.begin(), w.end(), win);
    for (int i = len - 1; i >= 0; --i) v[i * stride] = recursive_step(c_, v[i * stride], win);
    std::copy(win, win + R, w.begin());
  }
  // Head of the anticausal recursion over v from zero, leaving v untouched.
  V anticausal_head(const T* v, int len, int stride) const {
    T win[R] = {};
    for (int i = len - 1; i >= 0; --i) recursive_step(c_, v[i * stride], win);
    V out;
    std::copy(win, win + R, out.begin());
    return out;
  }

  void load(const float* img, int m, int n, T (*tile)[B]) const {
    for (int i = 0; i < rows_of(m); ++i)
      std::copy_n(img + std::size_t(m * B + i) * w_ + n * B, cols_of(n), tile[i]);
  }

  void stage1(const float* in, int m, int n) {
    T tile[B][B];
    const int hm = rows_of(m), wn = cols_of(n);
    load(in, m, n, tile);
    for (int j = 0; j < wn; ++j) {
      if (ext_ == Extension::Mirror) e_xt_[at(m, n, j)] = anticausal_head(&tile[0][j], hm, B);
      V w = zero();
      causal(&tile[0][j], hm, B, w);
      p_bar_[at(m, n, j)] = w;
      if (!causal_only_) {
        w = zero();
        anticausal(&tile[0][j], hm, B, w);
        e_hat_[at(m, n, j)] = w;
      }
    }
    if (ext_ == Extension::Clamp)
      for (int i = 0; i < hm; ++i) {
        if (n == 0) z_first_[std::size_t(m) * B + i] = tile[i][0];
        if (n == nb_ - 1) z_last_[std::size_t(m) * B + i] = tile[i][wn - 1];
      }
    for (int i = 0; i < hm; ++i) {
      if (ext_ == Extension::Mirror) et_zt_[at(m, n, i)] = anticausal_head(tile[i], wn, 1);
      V w = zero();
      causal(tile[i], wn, 1, w);
      pt_bar_[at(m, n, i)] = w;
      if (!causal_only_) et_bar_[at(m, n, i)] = anticausal_head(tile[i], wn, 1);
    }
  }

  // Stages 2 and 3 for one image column.
  void stages23(const float* in, int col) {
    const int n = col / B, j = col % B;
    const Seeds<R, T>& sd = col_seeds_;
    auto causal_chain = [&](V state, bool store) {
      for (int m = 0; m < mb_; ++m) {
        if (store) p_in_[at(m, n, j)] = state;
        V next = p_bar_[at(m, n, j)];
        add_to(next, mul(col_blocks(m).A_Fb, state));
        state = next;
      }
      return state;
    };
    // Causal seed P_{-1}(Y).
    V p = zero();
    switch (ext_) {
      case Extension::Clamp:
        for (int k = 0; k < R; ++k) p[k] = sd.S[k] * in[col];
        break;
      case Extension::Repeat:
        p = mul(sd.Q_n, causal_chain(zero(), false));  // eq. (49)
        break;
      case Extension::Mirror: {
        V head = zero();  // H(R(X, 0)) from the per-block heads
        for (int m = mb_ - 1; m >= 0; --m) {
          V next = e_xt_[at(m, n, j)];
          add_to(next, mul(col_blocks(m).A_Fb, head));
          head = next;
        }
        V t = mul(sd.A_n, causal_chain(zero(), false));
        add_to(t, head);
        p = mul(sd.Q_2n, t);  // eq. (52)
        break;
      }
      default:
        break;
    }
    const V last = causal_chain(p, true);
    if (causal_only_) return;

    auto anticausal_chain = [&](V state, bool store) {
      for (int m = mb_ - 1; m >= 0; --m) {
        if (store) e_in_[at(m, n, j)] = state;
        const Blocks<R, T>& bl = col_blocks(m);
        V next = e_hat_[at(m, n, j)];
        add_to(next, mul(bl.A_Fb, state));
        add_to(next, mul(bl.H_ARB_AFP, p_in_[at(m, n, j)]));
        state = next;
      }
      return state;
    };
    // Anticausal seed E_M(Z).
    V e = zero();
    switch (ext_) {
      case Extension::Zero:
        e = mul(sd.G, last);  // eq. (44)
        break;
      case Extension::Clamp: {
        e = mul(sd.G, last);  // eq. (44)
        const T c = in[std::size_t(h_ - 1) * w_ + col];
        for (int k = 0; k < R; ++k) e[k] += sd.clamp_tail[k] * c;
        break;
      }
      case Extension::Repeat:
        e = mul(sd.Q_n, anticausal_chain(zero(), false));  // eq. (51)
        break;
      case Extension::Mirror:
        e = mul(sd.M, last);  // eq. (70)
        break;
      default:
        break;
    }
    anticausal_chain(e, true);
  }

  // Stages 4 and 5 for one image row.
  void stages45(int row) {
    const int m = row / B, i = row % B;
    const Blocks<R, T>& cb = col_blocks(m);
    const Seeds<R, T>& sd = row_seeds_;
    // Per block of this row: T(A_FB) dZ, H(A_RB) dZ (mirror) and H(A_RB) A_FB dZ.
    std::vector<V> tail(nb_), head_z(nb_), head_v(nb_);
    T z_first = 0, z_last = 0;
    for (int n = 0; n < nb_; ++n) {
      const int wn = cols_of(n);
      const Blocks<R, T>& rb = row_blocks(n);
      T dz[B];
      for (int j = 0; j < wn; ++j) {
        // dZ = A_RE E_{m+1,n}(Z) + (A_RB A_FP) P_{m-1,n}(Y); Z = Y when causal only.
        const V& pin = p_in_[at(m, n, j)];
        T v = 0;
        if (causal_only_) {
          for (int k = 0; k < R; ++k) v += cb.A_FP[std::size_t(i) * R + k] * pin[k];
        } else {
          const V& ein = e_in_[at(m, n, j)];
          for (int k = 0; k < R; ++k)
            v += cb.A_RE[std::size_t(i) * R + k] * ein[k] +
                 cb.ARB_AFP[std::size_t(i) * R + k] * pin[k];
        }
        dz[j] = v;
      }
      tail[n] = rb.reduce(rb.T_AFB, dz);
      if (ext_ == Extension::Mirror) head_z[n] = rb.reduce(rb.H_ARB, dz);
      if (!causal_only_) head_v[n] = rb.reduce(rb.H_ARB_AFB, dz);
      if (ext_ == Extension::Clamp) {
        if (n == 0) z_first = z_first_[std::size_t(m) * B + i] + dz[0];
        if (n == nb_ - 1) z_last = z_last_[std::size_t(m) * B + i] + dz[wn - 1];
      }
    }

    auto causal_chain = [&](V state, bool store) {
      for (int n = 0; n < nb_; ++n) {
        if (store) pt_in_[at(m, n, i)] = state;
        V next = pt_bar_[at(m, n, i)];
        add_to(next, mul(row_blocks(n).A_Fb, state));
        add_to(next, tail[n]);
        state = next;
      }
      return state;
    };
    V p = zero();
    switch (ext_) {
      case Extension::Clamp:
        for (int k = 0; k < R; ++k) p[k] = sd.S[k] * z_first;
        break;
      case Extension::Repeat:
        p = mul(sd.Q_n, causal_chain(zero(), false));
        break;
      case Extension::Mirror: {
        V head = zero();  // H(R^T(Z, 0)) of the whole row
        for (int n = nb_ - 1; n >= 0; --n) {
          V next = et_zt_[at(m, n, i)];
          add_to(next, mul(row_blocks(n).A_Fb, head));
          add_to(next, head_z[n]);
          head = next;
        }
        V t = mul(sd.A_n, causal_chain(zero(), false));
        add_to(t, head);
        p = mul(sd.Q_2n, t);
        break;
      }
      default:
        break;
    }
    const V last = causal_chain(p, true);
    if (causal_only_) return;

    auto anticausal_chain = [&](V state, bool store) {
      for (int n = nb_ - 1; n >= 0; --n) {
        if (store) et_in_[at(m, n, i)] = state;
        const Blocks<R, T>& rb = row_blocks(n);
        V next = et_bar_[at(m, n, i)];
        add_to(next, mul(rb.A_Fb, state));
        add_to(next, mul(rb.H_ARB_AFP, pt_in_[at(m, n, i)]));
        add_to(next, head_v[n]);
        state = next;
      }
      return state;
    };
    V e = zero();
    switch (ext_) {
      case Extension::Zero:
        e = mul(sd.G, last);
        break;
      case Extension::Clamp:
        e = mul(sd.G, last);
        for (int k = 0; k < R; ++k) e[k] += sd.clamp_tail[k] * z_last;
        break;
      case Extension::Repeat:
        e = mul(sd.Q_n, anticausal_chain(zero(), false));
        break;
      case Extension::Mirror:
        e = mul(sd.M, last);
        break;
      default:
        break;
    }
    anticausal_chain(e, true);
  }

  void stage6(const float* in, float* out, int m, int n) const {
    T tile[B][B];
    const int hm = rows_of(m), wn = cols_of(n);
    load(in, m, n, tile);
    for (int j = 0; j < wn; ++j) {
      V w = p_in_[at(m, n, j)];
      causal(&tile[0][j], hm, B, w);
      if (!causal_only_) {
        w = e_in_[at(m, n, j)];
        anticausal(&tile[0][j], hm, B, w);
      }
    }
    for (int i = 0; i < hm; ++i) {
      V w = pt_in_[at(m, n, i)];
      causal(tile[i], wn, 1, w);
      if (!causal_only_) {
        w = et_in_[at(m, n, i)];
        anticausal(tile[i], wn, 1, w);
      }
      std::copy_n(tile[i], wn, out + std::size_t(m * B + i) * w_ + n * B);
    }
  }

  int w_, h_, mb_, nb_;
  Extension ext_;
  bool causal_only_;
  Coefficients<R, T> c_{};
  Seeds<R, T> col_seeds_, row_seeds_;
  Blocks<R, T> col_blocks_[2], row_blocks_[2];  // full blocks, last block
  // Stage 1 outputs.
  std::vector<V> p_bar_, e_hat_, pt_bar_, et_bar_, e_xt_, et_zt_;
  std::vector<T> z_first_, z_last_;
  // Complete carries, stored as the feedback each block starts from: p_in = P_{m-1,n}(Y),
  // e_in = E_{m+1,n}(Z), pt_in = P^T_{m,n-1}(U), et_in = E^T_{m,n+1}(V).
  std::vector<V> p_in_, e_in_, pt_in_, et_in_;
};

}  // namespace

struct OverlappedPlan::Impl {
  std::unique_ptr<ImplBase> impl;
};

OverlappedPlan::OverlappedPlan(const Recursive& f, Extension ext, int width, int height,
                               Precision precision)
    : impl_(std::make_unique<Impl>()) {
  if (width < 1 || height < 1)
    throw InvalidParameter("overlapped filter: empty image " + std::to_string(width) + "x" +
                           std::to_string(height));
  try {
    const bool ok = with_order(f.order(), [&](auto tag) {
      constexpr int R = decltype(tag)::value;
      if (precision == Precision::Float)
        impl_->impl = std::make_unique<Overlapped<R, float>>(f, ext, width, height);
      else
        impl_->impl = std::make_unique<Overlapped<R, double>>(f, ext, width, height);
    });
    if (!ok)
      throw InvalidParameter("overlapped filter: order " + std::to_string(f.order()) +
                             " outside 1..5");
  } catch (const std::domain_error&) {
    throw InvalidParameter(std::string("overlapped filter: extension '") + to_string(ext) +
                           "' is undefined for a filter with a pole on the unit circle");
  }
}

OverlappedPlan::~OverlappedPlan() = default;
OverlappedPlan::OverlappedPlan(OverlappedPlan&&) noexcept = default;
OverlappedPlan& OverlappedPlan::operator=(OverlappedPlan&&) noexcept = default;

void OverlappedPlan::run(const float* in, float* out) const {
  impl_->impl->run(in, out);
}

}  // namespace rf::cpu
