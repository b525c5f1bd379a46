#include "filters/recursive/direct_form.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "filters/core/errors.h"

namespace rf::direct_form {

namespace {

using Wide = long double;
using modal::Cx;
using modal::Poles;

// A dense row-major matrix in extended precision: the similarity transforms below lose digits in
// proportion to the window condition, so they are formed in long double and rounded once.
struct WMat {
  int rows = 0, cols = 0;
  std::vector<Wide> v;
  WMat(int r, int c) : rows(r), cols(c), v(std::size_t(r) * c, 0.0L) {}
  Wide& operator()(int i, int j) { return v[std::size_t(i) * cols + j]; }
  Wide operator()(int i, int j) const { return v[std::size_t(i) * cols + j]; }
};

WMat operator*(const WMat& a, const WMat& b) {
  WMat c(a.rows, b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int k = 0; k < a.cols; ++k)
      for (int j = 0; j < b.cols; ++j) c(i, j) += a(i, k) * b(k, j);
  return c;
}

Mat rounded(const WMat& a) {
  Mat m(a.rows, a.cols);
  for (std::size_t i = 0; i < a.v.size(); ++i) m.v[i] = double(a.v[i]);
  return m;
}

// Gauss-Jordan elimination with partial pivoting.
WMat inverse(WMat a) {
  const int n = a.rows;
  WMat inv(n, n);
  for (int i = 0; i < n; ++i) inv(i, i) = 1.0L;
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int i = col + 1; i < n; ++i)
      if (std::abs(a(i, col)) > std::abs(a(pivot, col))) pivot = i;
    if (a(pivot, col) == 0.0L)
      throw InvalidParameter("direct form: the window of this filter is singular (repeated poles)");
    for (int j = 0; j < n; ++j) {
      std::swap(a(col, j), a(pivot, j));
      std::swap(inv(col, j), inv(pivot, j));
    }
    const Wide d = a(col, col);
    for (int j = 0; j < n; ++j) {
      a(col, j) /= d;
      inv(col, j) /= d;
    }
    for (int i = 0; i < n; ++i) {
      if (i == col || a(i, col) == 0.0L) continue;
      const Wide f = a(i, col);
      for (int j = 0; j < n; ++j) {
        a(i, j) -= f * a(col, j);
        inv(i, j) -= f * inv(col, j);
      }
    }
  }
  return inv;
}

// The window (nearest first) of mode values u: W_m = sum_k p_k^-m u_k.
class Windows {
 public:
  explicit Windows(const Poles& a) : r_(a.order), v_(a.size() * std::size_t(a.order)) {
    for (std::size_t k = 0; k < a.size(); ++k) {
      Cx pk = 1.0L;
      const Cx inv = 1.0L / a.p[k];
      for (int m = 0; m < r_; ++m, pk *= inv) v_[k * r_ + m] = pk;
    }
  }
  std::vector<Wide> of(const std::vector<Cx>& u) const {
    std::vector<Wide> w(std::size_t(r_), 0.0L);
    for (std::size_t k = 0; k < u.size(); ++k)
      for (int m = 0; m < r_; ++m) w[std::size_t(m)] += (v_[k * r_ + m] * u[k]).real();
    return w;
  }

 private:
  int r_;
  std::vector<Cx> v_;
};

std::vector<Wide> window_of_modes(const Poles& a, const std::vector<Cx>& u) {
  return Windows(a).of(u);
}

WMat window_matrix(const Poles& a) {
  const int r = a.order;
  WMat V(r, r);
  for (int col = 0; col < r; ++col) {
    std::vector<Wide> e(std::size_t(r), 0.0L);
    e[std::size_t(col)] = 1.0L;
    const std::vector<Wide> w = window_of_modes(a, a.modes_of(e));
    for (int m = 0; m < r; ++m) V(m, col) = w[std::size_t(m)];
  }
  return V;
}

// The real-basis matrix of a linear map of mode values, in extended precision.
template <class Map>
WMat wide_matrix_of(const Poles& a, Map map) {
  const int r = a.order;
  WMat out(r, r);
  for (int col = 0; col < r; ++col) {
    std::vector<Wide> e(std::size_t(r), 0.0L);
    e[std::size_t(col)] = 1.0L;
    const std::vector<Wide> s = a.state_of(map(a.modes_of(e)));
    for (int i = 0; i < r; ++i) out(i, col) = s[std::size_t(i)];
  }
  return out;
}

// The direct-form matrix V H V^-1 of a map H of mode values.
template <class Map>
Mat in_windows(const Poles& a, Map map) {
  const WMat V = window_matrix(a);
  return rounded(V * wide_matrix_of(a, map) * inverse(V));
}

// The zero extension past the end of a line: the anticausal state entering it from the right is
// w_l = sum_k G_lk u_k, G_lk = c_l p_k / (1 - p_l p_k), of the complete causal end state u
// (modal.h, eq. 44).
class ZeroTail {
 public:
  explicit ZeroTail(const Poles& a) : n_(a.size()), g_(n_ * n_) {
    for (std::size_t l = 0; l < n_; ++l)
      for (std::size_t k = 0; k < n_; ++k)
        g_[l * n_ + k] = a.c[l] * a.p[k] / (1.0L - a.p[l] * a.p[k]);
  }
  std::vector<Cx> of(const std::vector<Cx>& u) const {
    std::vector<Cx> w(n_, 0.0L);
    for (std::size_t l = 0; l < n_; ++l)
      for (std::size_t k = 0; k < n_; ++k) w[l] += g_[l * n_ + k] * u[k];
    return w;
  }

 private:
  std::size_t n_;
  std::vector<Cx> g_;
};

std::vector<Cx> zero_tail(const Poles& a, const std::vector<Cx>& u) {
  return ZeroTail(a).of(u);
}

// Per-sample weights of a map, one column of r windows per sample, and their significant range.
class DenseColumns {
 public:
  DenseColumns(int rows, int n) : rows_(rows), n_(n), w_(std::size_t(rows) * n, 0.0L) {}
  void add_window(int j, const std::vector<Wide>& window) {
    for (int k = 0; k < rows_; ++k) w_[std::size_t(j) * rows_ + k] += window[std::size_t(k)];
  }
  // Drops the columns below modal::kDoubleUnit of the largest weight at either end.
  SparseColumns sparse() const {
    SparseColumns s;
    s.rows = rows_;
    Wide peak = 0.0L;
    for (Wide v : w_) peak = std::max(peak, std::abs(v));
    if (peak == 0.0L) return s;
    auto significant = [&](int j) {
      for (int k = 0; k < rows_; ++k)
        if (std::abs(w_[std::size_t(j) * rows_ + k]) >= Wide(modal::kDoubleUnit) * peak)
          return true;
      return false;
    };
    int first = 0, last = n_ - 1;
    while (!significant(first)) ++first;
    while (!significant(last)) --last;
    s.first = first;
    s.count = last - first + 1;
    for (std::size_t i = std::size_t(first) * rows_; i < std::size_t(last + 1) * rows_; ++i)
      s.w.push_back(double(w_[i]));
    return s;
  }

 private:
  int rows_, n_;
  std::vector<Wide> w_;
};

bool decays(const Poles& a) {
  for (const Cx& p : a.p)
    if (!(std::abs(p) < 1.0L)) return false;
  return true;
}

}  // namespace

Mat window_of_state(const modal::Form& m) {
  return rounded(window_matrix(modal::poles(m)));
}

Mat state_of_window(const modal::Form& m) {
  return rounded(inverse(window_matrix(modal::poles(m))));
}

double window_condition(const modal::Form& m) {
  const WMat V = window_matrix(modal::poles(m));
  const WMat Vi = inverse(V);
  auto norm = [](const WMat& a) {
    Wide best = 0.0L;
    for (int i = 0; i < a.rows; ++i) {
      Wide row = 0.0L;
      for (int j = 0; j < a.cols; ++j) row += std::abs(a(i, j));
      best = std::max(best, row);
    }
    return best;
  };
  return double(norm(V) * norm(Vi));
}

LineMaps line_maps(const modal::Form& m, Extension ext, int n, State state) {
  const int r = m.order;
  if (n < 1) throw InvalidParameter("line length " + std::to_string(n) + " < 1");
  LineMaps maps;
  maps.order = r;
  maps.n = n;
  maps.causal_from_x.rows = maps.anticausal_from_x.rows = maps.anticausal_from_y.rows = r;
  maps.causal_from_value.assign(std::size_t(r), 0.0);
  maps.anticausal_from_value.assign(std::size_t(r), 0.0);
  if (ext == Extension::Ignore || (ext == Extension::Zero && m.causal_only)) return maps;
  // A line of one sample reflects onto itself: the constant line, which clamp seeds.
  if (ext == Extension::Reflect101 && n == 1) ext = Extension::Clamp;
  const Poles a = modal::poles(m);
  if (!decays(a))
    throw InvalidParameter(std::string("extension '") + to_string(ext) +
                           "' is undefined for a filter with a pole on the unit circle (its sum "
                           "over the extension diverges); use zero or ignore");
  const std::size_t count = a.size();
  // pw[k][j] = p_k^j for j <= n, by repeated multiplication (n roundings of long double).
  std::vector<std::vector<Cx>> pw(count, std::vector<Cx>(std::size_t(n) + 1));
  for (std::size_t k = 0; k < count; ++k) {
    pw[k][0] = 1.0L;
    for (int j = 1; j <= n; ++j) pw[k][std::size_t(j)] = pw[k][std::size_t(j) - 1] * a.p[k];
  }
  auto up = [&](std::size_t k, int j) { return pw[k][std::size_t(j)]; };            // p_k^j
  auto down = [&](std::size_t k, int j) { return pw[k][std::size_t(n - 1 - j)]; };  // p^(n-1-j)
  std::vector<Cx> K(count, 0.0L);  // K_l = sum_k c_k / (1 - p_l p_k)
  for (std::size_t l = 0; l < count; ++l)
    for (std::size_t k = 0; k < count; ++k) K[l] += a.c[k] / (1.0L - a.p[l] * a.p[k]);
  // The factors of the seeds that do not depend on the sample: S_k, Q_n, Q_2n, the clamp tail.
  std::vector<Cx> S(count), Qn(count), Q2n(count), tail(count);
  for (std::size_t k = 0; k < count; ++k) {
    const Cx pn = up(k, n);
    S[k] = a.c[k] / (1.0L - a.p[k]);
    Qn[k] = 1.0L / (1.0L - pn);
    Q2n[k] = 1.0L / (1.0L - pn * pn);
    tail[k] = a.c[k] * K[k] / (1.0L - a.p[k]);
  }
  const Windows windows(a);
  // What a seed is written in: the window of the direct form, or the modes' own real basis.
  auto seed = [&](const std::vector<Cx>& modes) {
    return state == State::Window ? windows.of(modes) : a.state_of(modes);
  };
  const ZeroTail zero(a);

  // The causal state entering the line, u_k = sum_j Wc_k(j) x_j (modal.h, Seeds):
  //   clamp  u = S x_0, S_k = c_k / (1 - p_k)                                     eq. (35)
  //   repeat u = Q_n ubar, ubar_k = sum_j c_k p_k^(n-1-j) x_j                     eq. (49)
  //   mirror u = Q_2n (D_n ubar + hbar), hbar_k = sum_j c_k p_k^j x_j             eq. (52)
  //   reflect101 u = Q' (sum_{j>=1} c_k p_k^(j-1) x_j + sum_{j<=n-2} c_k p_k^(2n-3-j) x_j),
  //          Q' = 1 / (1 - p^(2n-2)): modal.h's closed form, written per sample
  std::vector<Cx> wc(count), u_end(count), wy(count);
  DenseColumns causal(r, n), from_x(r, n), from_y(r, n);
  for (int j = 0; j < n; ++j) {
    for (std::size_t k = 0; k < count; ++k) {
      const Cx c = a.c[k], pn = up(k, n);
      switch (ext) {
        case Extension::Clamp:
          wc[k] = j == 0 ? S[k] : Cx(0.0L);
          break;
        case Extension::Repeat:
          wc[k] = c * down(k, j) * Qn[k];
          break;
        case Extension::Mirror:
          wc[k] = c * (up(k, j) + pn * down(k, j)) * Q2n[k];
          break;
        case Extension::Reflect101: {
          const Cx before = j >= 1 ? up(k, j - 1) : Cx(0.0L);
          const Cx after = j <= n - 2 ? up(k, n - 1) * up(k, n - 2 - j) : Cx(0.0L);
          const Cx p2 = up(k, n - 1) * up(k, n - 1);
          wc[k] = c * (before + after) / (1.0L - p2);
          break;
        }
        default:
          wc[k] = 0.0L;
      }
    }
    causal.add_window(j, seed(wc));
    if (m.causal_only) continue;
    if (ext == Extension::Repeat) {
      // w = Q_n wbar, wbar_l = sum_j c_l p_l^j y_j over the complete causal output, eq. (51).
      for (std::size_t l = 0; l < count; ++l) wy[l] = a.c[l] * up(l, j) * Qn[l];
      from_y.add_window(j, seed(wy));
      continue;
    }
    // The complete causal end state u_end = D_n u + ubar, then the anticausal seed from it:
    // zero G u_end, clamp G u_end + clamp_tail x_{n-1}, mirror G u_end + K o u_end (eqs. 44, 72),
    // reflect101 G u_end + K o u_before with u_before the complete causal state one sample before
    // the end (modal.h).
    for (std::size_t k = 0; k < count; ++k) u_end[k] = up(k, n) * wc[k] + a.c[k] * down(k, j);
    std::vector<Cx> w = zero.of(u_end);
    for (std::size_t l = 0; l < count; ++l) {
      if (ext == Extension::Mirror) w[l] += K[l] * u_end[l];
      if (ext == Extension::Reflect101) {
        const Cx before = up(l, n - 1) * wc[l] + (j <= n - 2 ? a.c[l] * up(l, n - 2 - j) : 0.0L);
        w[l] += K[l] * before;
      }
      if (ext == Extension::Clamp && j == n - 1) w[l] += tail[l];
    }
    from_x.add_window(j, seed(w));
  }
  maps.causal_from_x = causal.sparse();
  maps.anticausal_from_x = from_x.sparse();
  maps.anticausal_from_y = from_y.sparse();
  if (ext == Extension::Constant) {
    // The constant k before the line: u = S k, eq. (35); past it: w = G D_n S k + clamp_tail k,
    // eq. (44), the clamp's seeds with k for the end samples.
    std::vector<Cx> u_end(count);
    for (std::size_t k = 0; k < count; ++k) u_end[k] = up(k, n) * S[k];
    std::vector<Cx> w = zero.of(u_end);
    for (std::size_t l = 0; l < count; ++l) w[l] += tail[l];
    const std::vector<Wide> causal_window = seed(S), anticausal_window = seed(w);
    for (int i = 0; i < r; ++i) {
      maps.causal_from_value[std::size_t(i)] = double(causal_window[std::size_t(i)]);
      maps.anticausal_from_value[std::size_t(i)] =
          m.causal_only ? 0.0 : double(anticausal_window[std::size_t(i)]);
    }
  }
  return maps;
}

LineMaps line_maps(const Recursive& f, Extension ext, int n, State state) {
  if (ext == Extension::Ignore) {
    LineMaps maps;
    maps.order = f.order();
    maps.n = n;
    maps.causal_from_x.rows = maps.anticausal_from_x.rows = maps.anticausal_from_y.rows = f.order();
    maps.causal_from_value.assign(std::size_t(f.order()), 0.0);
    maps.anticausal_from_value.assign(std::size_t(f.order()), 0.0);
    return maps;
  }
  modal::Form form;
  try {
    form = modal::modal_form(f);
  } catch (const std::domain_error& e) {
    throw InvalidParameter(std::string("extension '") + to_string(ext) + "': " + e.what());
  }
  return line_maps(form, ext, n, state);
}

namespace {

// The samples of the extension that the seeds of m read on each side: past them its impulse
// response holds less than modal::kFloatUnit of its mass.
int extension_pad(const modal::Form& m) {
  return int(std::max<long long>(modal::tail_length(m, modal::kFloatUnit), m.order));
}

}  // namespace

ExtensionTaps extension_taps(const modal::Form& m, Extension ext) {
  const int r = m.order;
  ExtensionTaps t;
  t.N = Mat(r, r);
  if (m.causal_only || ext == Extension::Ignore) return t;
  const Poles a = modal::poles(m);
  t.N = in_windows(a, [&](const std::vector<Cx>& u) { return zero_tail(a, u); });
  if (ext == Extension::Zero) return t;
  t.pad = extension_pad(m);
  const int taps = t.pad + r;
  t.g.resize(std::size_t(taps));
  t.acorr.resize(std::size_t(taps));
  for (int j = 0; j < taps; ++j) {
    Cx g = 0.0L, acorr = 0.0L;
    for (std::size_t l = 0; l < a.size(); ++l) {
      const Cx pj = std::pow(a.p[l], Wide(j));
      g += a.c[l] * pj;
      // sum_u g_u g_{u+j} = sum_k sum_l c_k c_l p_l^j / (1 - p_k p_l)
      for (std::size_t k = 0; k < a.size(); ++k)
        acorr += a.c[k] * a.c[l] * pj / (1.0L - a.p[k] * a.p[l]);
    }
    t.g[std::size_t(j)] = double(g.real());
    t.acorr[std::size_t(j)] = double(acorr.real());
  }
  return t;
}

int seed_reads(const Recursive& f, Extension ext) {
  if (f.causal_only || !seeds_read_samples(ext)) return 0;
  try {
    return extension_pad(modal::modal_form(f));
  } catch (const std::domain_error&) {
    return 0;
  }
}

BlockMatrices block_matrices(const modal::Form& m, int len) {
  const Poles a = modal::poles(m);
  const Wide L = Wide(len);
  BlockMatrices b;
  b.T = in_windows(a, [&](const std::vector<Cx>& u) {
    std::vector<Cx> out(u.size());
    for (std::size_t k = 0; k < u.size(); ++k) out[k] = std::pow(a.p[k], L) * u[k];
    return out;
  });
  b.U = b.T;
  // The causal outputs of a zero block from the entering state u are y_i = sum_k p_k^(i+1) u_k;
  // the anticausal state they leave at the block's start, from zero, is
  // w_l = sum_k c_l p_k u_k (1 - (p_l p_k)^len) / (1 - p_l p_k).
  b.M = in_windows(a, [&](const std::vector<Cx>& u) {
    std::vector<Cx> w(u.size(), 0.0L);
    for (std::size_t l = 0; l < u.size(); ++l)
      for (std::size_t k = 0; k < u.size(); ++k) {
        const Cx q = a.p[l] * a.p[k];
        w[l] += a.c[l] * a.p[k] * u[k] * (1.0L - std::pow(q, L)) / (1.0L - q);
      }
    return w;
  });
  if (m.causal_only) b.M = Mat(m.order, m.order);
  return b;
}

// Measured on the CUDA backend (every extension, odd sizes with one and four channels, the
// Gaussians of every order up to their sigma caps; recursive/README.md has the table): the
// relative error grows about as the square of the window condition, 2.4e-6 at 2.8e7 (order 3,
// sigma 2000), 2e-5 at 3.3e7 (order 4, sigma 150), 1.3e-3 at 2.6e8 (order 5, sigma 64). The limit
// keeps every accepted filter within a quarter of its order's bound: all of orders 1-3, order 4
// to sigma ~140, order 5 to sigma ~35. Those were lines of at most 97 samples; longer lines lose
// more (the CUDA tests, order 3 at sigma 2000, H200): alg4 was 1.3e-5 off on lines of 509 samples
// and 2.6e-4 on 1024, lines in shared memory 6.6e-5 and rt 6.9e-5 on 1024, against the 1e-5 bound.
// Lines longer than kWindowLimitLine take a limit shorter in proportion (at 1024 samples about a
// tenth of it). alg4 lost more again: 1.25e-4 at order 5, sigma 16 (condition 1.3e6) on lines of
// 1024, against 1e-4, where lines in shared memory and rt were within 4e-7; it takes the factor
// twice. With these limits the CUDA test of lines up to 1024 samples passes every order,
// extension and sigma, auto's worst 3.6e-7 relative (docs/bench/shared-lines-h200.json).
constexpr double kWindowLimit = 3e7;

double window_limit(int n, bool runs) {
  if (n <= kWindowLimitLine) return kWindowLimit;
  const double shorter = double(kWindowLimitLine) / n;
  return kWindowLimit * shorter * (runs ? shorter : 1.0);
}

bool windows_hold(const Recursive& f, int n, bool runs) {
  try {
    return window_condition(modal::modal_form(f)) <= window_limit(n, runs);
  } catch (const std::domain_error&) {
    return true;
  }
}

}  // namespace rf::direct_form
