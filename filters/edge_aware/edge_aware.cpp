// Edge-aware recursive Gaussian through the domain transform: the double-precision reference of
// Algorithm A and the float CPU backend of Algorithms A, C, D and the exact variant (whose segments
// the CPU does not need: its SIMD lanes are lines).
#include "filters/edge_aware/edge_aware.h"

#include <omp.h>
#include <sys/mman.h>
#include <xmmintrin.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/filter_table.h"
#include "filters/edge_aware/edge_aware_math.h"

namespace rf {

void validate_edge_aware(const FilterSpec& spec, int width, int height) {
  if (!(spec.sigma > 0.0) || !std::isfinite(spec.sigma))
    throw InvalidParameter("edge-aware filter: sigma must be a positive number (got " +
                           std::to_string(spec.sigma) + ")");
  if (!(spec.sigma_r > 0.0))
    throw InvalidParameter("edge-aware filter: sigma_r must be positive (got " +
                           std::to_string(spec.sigma_r) + "); use infinity for a plain Gaussian");
  if (!(spec.kappa >= 0.0) || !std::isfinite(spec.kappa))
    throw InvalidParameter("edge-aware filter: kappa must be a finite number >= 0 (got " +
                           std::to_string(spec.kappa) + ")");
  if (spec.iterations < 1 || spec.iterations > 16)
    throw InvalidParameter("edge-aware filter: iterations must be 1 to 16 (got " +
                           std::to_string(spec.iterations) + ")");
  if (width < 1 || height < 1)
    throw InvalidParameter("edge-aware filter: image " + std::to_string(width) + "x" +
                           std::to_string(height) + " is empty");
}

namespace {

void validate_edge_aware(const FilterSpec& spec, int width, int height, int channels) {
  validate_edge_aware(spec, width, height);
  if (channels != 1 && channels != 3 && channels != 4)
    throw InvalidParameter("edge-aware filter: " + std::to_string(channels) +
                           " channels (1, 3 or 4 are supported)");
}

// The colour channels that enter eq. (2): RGB, ignoring alpha; a gray image uses its one channel.
int colour_channels(int channels) {
  return channels == 1 ? 1 : 3;
}

// (sigma_s / sigma_r)^2 of eq. (2); sigma_r = infinity gives 0, a plain Gaussian.
double domain_scale2(const FilterSpec& spec) {
  const double q = spec.sigma / spec.sigma_r;
  return q * q;
}

// ---------------------------------------------------------------------------------------------
// Reference: eq. (4) as printed, in double, one line after another (Algorithm A).

using cd = std::complex<double>;

struct RefPole {
  cd a, b, r0, r1, lambda;
};

std::vector<RefPole> reference_poles(double sigma) {
  const cd alpha[2] = {cd(edge::kAlpha0Re, edge::kAlpha0Im), cd(edge::kAlpha1Re, edge::kAlpha1Im)};
  const cd lambda[2] = {cd(edge::kLambda0Re, edge::kLambda0Im),
                        cd(edge::kLambda1Re, edge::kLambda1Im)};
  cd b[2];
  double gamma = 0.0;
  for (int i = 0; i < 2; ++i) {
    b[i] = std::exp(-lambda[i] / sigma);
    gamma += (alpha[i] * (1.0 + b[i]) / (1.0 - b[i])).real();
  }
  std::vector<RefPole> poles(2);
  for (int i = 0; i < 2; ++i) {
    const cd a = alpha[i] / gamma;
    poles[i] = {a, b[i], (b[i] - 1.0) * (b[i] - 1.0) / (a * b[i]), a / (b[i] - 1.0), lambda[i]};
  }
  return poles;
}

// One line of `n` samples of `channels` interleaved values (stride `step` between samples),
// spacings dt[k] between samples k-1 and k (dt[0] unused). Constant extension at both ends: the
// causal part starts from its steady state a / (1 - b) f[0], the anticausal from a b / (1 - b)
// f[n-1].
void reference_line(const std::vector<RefPole>& poles, double sigma, const double* f,
                    std::ptrdiff_t step, int channels, const double* dt, int n, double* y) {
  std::vector<cd> g(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k)
    for (int c = 0; c < channels; ++c) y[k * step + c] = 0.0;
  for (const RefPole& p : poles) {
    auto b_pow = [&](double delta) { return std::exp(-p.lambda * delta / sigma); };
    // Phi^i_{j,k}(delta) of eq. (4).
    auto phi = [&](double fj, double fk, double delta) {
      const cd bd = b_pow(delta);
      const cd t = (bd - 1.0) / (p.r0 * delta);
      return (t - p.r1 * p.b) * fk - (t - p.r1 * bd) * fj;
    };
    for (int c = 0; c < channels; ++c) {
      auto F = [&](int k) { return f[k * step + c]; };
      g[0] = p.a / (1.0 - p.b) * F(0);
      for (int k = 1; k < n; ++k)
        g[k] = p.a * F(k) + b_pow(dt[k]) * g[k - 1] + phi(F(k - 1), F(k), dt[k]);
      for (int k = 0; k < n; ++k) y[k * step + c] += g[k].real();
      g[n - 1] = p.a * p.b / (1.0 - p.b) * F(n - 1);
      for (int k = n - 2; k >= 0; --k) {
        const cd bd = b_pow(dt[k + 1]);
        g[k] = p.a * bd * F(k + 1) + bd * g[k + 1] + phi(F(k + 1), F(k), dt[k + 1]);
      }
      for (int k = 0; k < n; ++k) y[k * step + c] += g[k].real();
    }
  }
}

}  // namespace

Image edge_aware_reference(const FilterSpec& spec, const Image& in) {
  validate_edge_aware(spec, in.width, in.height, in.channels);
  const int w = in.width, h = in.height, ch = in.channels, colours = colour_channels(ch);
  const double scale2 = domain_scale2(spec);
  std::vector<double> guide(in.pixels.begin(), in.pixels.end());
  auto step = [&](std::size_t i0, std::size_t i1) {
    double sum = 0.0;
    for (int c = 0; c < colours; ++c)
      sum += (guide[i1 + c] - guide[i0 + c]) * (guide[i1 + c] - guide[i0 + c]);
    return std::sqrt(1.0 + scale2 * sum);
  };
  // Eq. (2) along rows and along columns, always from the guide (the input image).
  std::vector<double> dt_rows(std::size_t(w) * h, 1.0), dt_cols(std::size_t(w) * h, 1.0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t i = (std::size_t(y) * w + x) * ch;
      if (x > 0) dt_rows[std::size_t(y) * w + x] = step(i - ch, i);
      if (y > 0) dt_cols[std::size_t(y) * w + x] = step(i - std::size_t(w) * ch, i);
    }

  std::vector<double> cur = guide, next(cur.size());
  std::vector<double> dt_line(std::size_t(std::max(w, h)));
  for (int it = 1; it <= spec.iterations; ++it) {
    const double sigma_i = edge::iteration_sigma(spec.sigma, it, spec.iterations);
    const std::vector<RefPole> poles = reference_poles(sigma_i);
    for (int y = 0; y < h; ++y)
      reference_line(poles, sigma_i, &cur[std::size_t(y) * w * ch], ch, ch,
                     &dt_rows[std::size_t(y) * w], w, &next[std::size_t(y) * w * ch]);
    cur.swap(next);
    for (int x = 0; x < w; ++x) {
      for (int y = 0; y < h; ++y) dt_line[y] = dt_cols[std::size_t(y) * w + x];
      reference_line(poles, sigma_i, &cur[std::size_t(x) * ch], std::ptrdiff_t(w) * ch, ch,
                     dt_line.data(), h, &next[std::size_t(x) * ch]);
    }
    cur.swap(next);
  }
  Image out(w, h, ch);
  for (std::size_t i = 0; i < cur.size(); ++i) out.pixels[i] = float(cur[i]);
  return out;
}

namespace cpu {

namespace {

using PolesF = edge::Poles<float>;

// Every function taking or returning the vectors below is inlined, so no call passes them across
// the ABI that GCC warns about (-Wpsabi) when AVX is not enabled.
#pragma GCC diagnostic ignored "-Wpsabi"

// The CPU kernels for lines filtered L at a time, one per SIMD lane: 8 in an AVX register, 4 in an
// SSE register on the x86-64-v2 baseline of the build (both are compiled; batch_kernel() picks one
// at run time). The recursion of a line is a chain of dependent steps; its neighbours' chains fill
// the vector instead (the Gaussian's CPU path does the same with rows and columns). GCC's vector
// extensions state the lanes explicitly. The vector types are may_alias because the batches are
// filled and drained through float pointers, and 8 lanes state their alignment because the
// baseline would give them 16 bytes where the AVX kernels use aligned moves.
template <int L>
struct Simd;

template <>
struct Simd<4> {
  typedef float V __attribute__((vector_size(16), may_alias));
  typedef std::int32_t VI __attribute__((vector_size(16)));
};

template <>
struct Simd<8> {
  typedef float V __attribute__((vector_size(32), aligned(32), may_alias));
  typedef std::int32_t VI __attribute__((vector_size(32), aligned(32)));
};

// Storage for vectors of either width (std::vector drops a typedef's attributes).
struct alignas(32) VectorStorage {
  float lanes[8];
};

// One pass over `lines` lines of n samples of C interleaved floats: sample k of line l at
// src[k * fk + l * fl] (dst alike), its spacing at dt[k * dk + l * dl].
struct PassJob {
  const float* src;
  float* dst;
  const float* dt;
  std::ptrdiff_t fk, fl, dk, dl;
  int n, lines;
};

// The algorithm of a pass and its parameters.
struct Method {
  Algorithm algo;
  float warmup;  // kappa * sigma_i (C, D)
  const PolesF* poles;
};

// Per-thread scratch, sized by the plan for 8 lanes so that run() does not allocate: one batch
// of lines in lane-major order (samples, outputs, spacings, edge weights).
struct Scratch {
  std::vector<VectorStorage> f, y, dt, w;
};

// Samples fetched ahead along columns.
constexpr int kPrefetchRows = 16;

template <int L>
struct Kernels {
  using V = typename Simd<L>::V;
  using VI = typename Simd<L>::VI;

  [[gnu::always_inline]] static V splat(float s) { return V{} + s; }
  [[gnu::always_inline]] static VI splat_i(std::int32_t s) { return VI{} + s; }

  // Whether any lane of a comparison's mask is set.
  [[gnu::always_inline]] static bool any(const VI& mask) {
    std::uint64_t words[L / 2];
    std::memcpy(words, &mask, sizeof mask);
    std::uint64_t bits = 0;
    for (int i = 0; i < L / 2; ++i) bits |= words[i];
    return bits != 0;
  }

  // x rounded to the nearest integer, ties to even, as std::nearbyint does, for |x| < 2^22:
  // adding 1.5 * 2^23 leaves no bits for a fraction.
  [[gnu::always_inline]] static V round_nearest(const V& x) {
    const float magic = 12582912.0f;
    return (x + magic) - magic;
  }

  // e^x and e^x - 1 for x <= 0. e^x = 2^n (1 + q), n = round(x / ln 2), |r| <= ln 2 / 2 (Cody-Waite
  // split of ln 2) and q = e^r - 1 by its Taylor polynomial (first omitted term below 6e-9
  // relative). Below x = -87 e^x is 0 in float; the clamp keeps 2^n a normal number. The C
  // library's expf and expm1f are calls, one lane at a time.
  [[gnu::always_inline]] static void exp_expm1(const V& arg, V* e, V* em1) {
    const V x = arg < splat(-87.0f) ? splat(-87.0f) : arg;
    const V n = round_nearest(x * 1.44269504f);
    const V r = (x - n * 0.693145752f) - n * 1.42860677e-6f;
    V q = splat(1.0f / 5040.0f);
    q = q * r + 1.0f / 720.0f;
    q = q * r + 1.0f / 120.0f;
    q = q * r + 1.0f / 24.0f;
    q = q * r + 1.0f / 6.0f;
    q = q * r + 0.5f;
    q = q * r + 1.0f;
    q = q * r;
    const V scale = (V)((__builtin_convertvector(n, VI) + 127) << 23);  // 2^n
    // e^x - 1 = 2^n q + (2^n - 1): exact q where n = 0, no cancellation where n < 0.
    *em1 = scale * q + (scale - 1.0f);
    *e = scale * q + scale;
  }

  // sin and cos of x >= 0: x = k pi/2 + r, |r| <= pi/4 (pi/2 split in three), then the minimax
  // polynomials of Cephes' sinf and cosf and the quadrant's signs and swap. Past 1e5 the angle is
  // clamped: there the edge's e^x is 0 (rho / theta > 0.86 for both poles), so its sine no longer
  // matters.
  [[gnu::always_inline]] static void sincos(const V& arg, V* s, V* c) {
    // Angles below pi/4 in every lane (nearly every edge but strong ones): k = 0 and r = x, so
    // the polynomials alone give the same values.
    if (!any(arg > splat(0.78f))) {
      const V r2 = arg * arg;
      *s = arg + arg * r2 * (-1.6666654611e-1f + r2 * (8.3321608736e-3f + r2 * -1.9515295891e-4f));
      *c = 1.0f - 0.5f * r2 +
           r2 * r2 *
               (4.166664568298827e-2f + r2 * (-1.388731625493765e-3f + r2 * 2.443315711809948e-5f));
      return;
    }
    const V x = arg > splat(1e5f) ? splat(1e5f) : arg;
    const V k = round_nearest(x * 0.636619772f);
    const V r = ((x - k * 1.5703125f) - k * 4.83751297e-4f) - k * 7.54978995e-8f;
    const V r2 = r * r;
    const V sr =
        r + r * r2 * (-1.6666654611e-1f + r2 * (8.3321608736e-3f + r2 * -1.9515295891e-4f));
    const V cr =
        1.0f - 0.5f * r2 +
        r2 * r2 *
            (4.166664568298827e-2f + r2 * (-1.388731625493765e-3f + r2 * 2.443315711809948e-5f));
    const VI quadrant = __builtin_convertvector(k, VI) & 3;
    const VI odd = (quadrant & 1) != 0;
    const V sa = odd ? cr : sr;
    const V ca = odd ? sr : cr;
    *s = (quadrant & 2) != 0 ? -sa : sa;
    *c = ((quadrant + 1) & 2) != 0 ? -ca : ca;
  }

  // edge::edge_weight() for every lane: w = b^delta and c = (b^delta - 1) / (r0 delta) of one
  // pole (section IV-C), with the functions above and 1 / delta computed once for both poles.
  struct Weight {
    V wr, wi, cr, ci;
  };

  [[gnu::always_inline]] static Weight edge_weight(const edge::Pole<float>& p, const V& delta,
                                                   const V& inv_delta) {
    V e, em1, sh, ch;
    exp_expm1(-p.rho * delta, &e, &em1);
    sincos(0.5f * p.theta * delta, &sh, &ch);
    const V sin_full = 2.0f * sh * ch;
    const V one_minus_cos = 2.0f * sh * sh;
    const V br = em1 - e * one_minus_cos, bi = -e * sin_full;
    Weight w;
    w.wr = e - e * one_minus_cos;
    w.wi = -e * sin_full;
    w.cr = (br * p.inv_r0.re - bi * p.inv_r0.im) * inv_delta;
    w.ci = (br * p.inv_r0.im + bi * p.inv_r0.re) * inv_delta;
    return w;
  }

  // The complex states of both poles for every channel and lane.
  template <int C>
  struct State {
    V re[2][C], im[2][C];
  };

  // L lines of n samples in lane-major order: channel c of sample k of every line is the vector
  // f[k * C + c], the spacing between samples k-1 and k (eq. 2) the vector dt[k], the output y is
  // laid out like f, and w[k * 2 + pole] holds the weights of eq. (4) for the edge dt[k]. The
  // recursions are edge_aware_math.h's CausalStep and AnticausalStep, written out for vectors.
  template <int C>
  class Lanes {
   public:
    Lanes(const V* f, V* y, const V* dt, Weight* w, int n, const PolesF& poles)
        : f_(f), y_(y), dt_(dt), w_(w), n_(n), poles_(poles) {}

    // The weights of every edge, once for both directions.
    [[gnu::always_inline]] void edge_weights() const {
      for (int k = 1; k < n_; ++k) {
        const V delta = dt_[k];
        const V inv_delta = 1.0f / delta;
        for (int p = 0; p < 2; ++p) w_[k * 2 + p] = edge_weight(poles_.p[p], delta, inv_delta);
      }
    }

    // Algorithm A: the whole line, causal then anticausal, from the steady states of a constant
    // extension at both ends.
    [[gnu::always_inline]] void run_sequential() const {
      State<C> s;
      steady_causal(0, s);
      write(0, s);
      for (int k = 1; k < n_; ++k) {
        causal_step(k, s);
        write(k, s);
      }
      steady_anticausal(n_ - 1, s);
      add(n_ - 1, s);
      for (int j = n_ - 2; j >= 0; --j) {
        anticausal_step(j, s);
        add(j, s);
      }
    }

    // Algorithms C and D: each segment of `seg` samples starts from initial conditions estimated
    // by Algorithm B. Walking back from the segment's first sample s until the transformed
    // distance d(t_p, t_s) reaches `warmup` = kappa sigma_i, the recursion starts at p from the
    // steady state of a constant input f[p] and runs up to s. At the image ends the walk stops
    // early, and there the steady state is the exact constant extension, as in Algorithm A. Each
    // lane has its own p: the lanes run from the smallest, and a lane is held at the steady state
    // of its current sample until its own p is passed, which is the same arithmetic as starting
    // it there.
    [[gnu::always_inline]] void run_approximate(int seg, float warmup) const {
      // Every spacing is at least 1, so a walk takes at most ceil(warmup) steps.
      const int steps = warmup < float(n_) ? int(std::ceil(warmup)) : n_;
      for (int s = 0; s < n_; s += seg) {
        const int e = std::min(n_, s + seg);
        State<C> st;
        const VI p = walk_back(s, warmup, steps);
        int lo = s, hi = 0;
        for (int l = 0; l < L; ++l) {
          lo = std::min(lo, int(p[l]));
          hi = std::max(hi, int(p[l]));
        }
        steady_causal(lo, st);
        for (int k = lo + 1; k <= s; ++k) {
          causal_step(k, st);
          if (k <= hi) hold_steady_causal(k, splat_i(k) <= p, st);
        }
        write(s, st);
        for (int k = s + 1; k < e; ++k) {
          causal_step(k, st);
          write(k, st);
        }
        const VI q = walk_forward(e - 1, warmup, steps);
        lo = n_ - 1;
        hi = e - 1;
        for (int l = 0; l < L; ++l) {
          lo = std::min(lo, int(q[l]));
          hi = std::max(hi, int(q[l]));
        }
        steady_anticausal(hi, st);
        for (int j = hi - 1; j >= e - 1; --j) {
          anticausal_step(j, st);
          if (j >= lo) hold_steady_anticausal(j, splat_i(j) >= q, st);
        }
        add(e - 1, st);
        for (int j = e - 2; j >= s; --j) {
          anticausal_step(j, st);
          add(j, st);
        }
      }
    }

   private:
    [[gnu::always_inline]] void steady_causal(int k, State<C>& s) const {
      for (int p = 0; p < 2; ++p)
        for (int c = 0; c < C; ++c) {
          s.re[p][c] = poles_.p[p].steady_causal.re * f_[k * C + c];
          s.im[p][c] = poles_.p[p].steady_causal.im * f_[k * C + c];
        }
    }
    [[gnu::always_inline]] void steady_anticausal(int k, State<C>& s) const {
      for (int p = 0; p < 2; ++p)
        for (int c = 0; c < C; ++c) {
          s.re[p][c] = poles_.p[p].steady_anticausal.re * f_[k * C + c];
          s.im[p][c] = poles_.p[p].steady_anticausal.im * f_[k * C + c];
        }
    }
    // The lanes of `mask` restart from the steady state at sample k.
    [[gnu::always_inline]] void hold_steady_causal(int k, const VI& mask, State<C>& s) const {
      State<C> t;
      steady_causal(k, t);
      select(mask, t, s);
    }
    [[gnu::always_inline]] void hold_steady_anticausal(int k, const VI& mask, State<C>& s) const {
      State<C> t;
      steady_anticausal(k, t);
      select(mask, t, s);
    }
    [[gnu::always_inline]] static void select(const VI& mask, const State<C>& t, State<C>& s) {
      for (int p = 0; p < 2; ++p)
        for (int c = 0; c < C; ++c) {
          s.re[p][c] = mask ? t.re[p][c] : s.re[p][c];
          s.im[p][c] = mask ? t.im[p][c] : s.im[p][c];
        }
    }

    [[gnu::always_inline]] void write(int k, const State<C>& s) const {
      for (int c = 0; c < C; ++c) y_[k * C + c] = s.re[0][c] + s.re[1][c];
    }
    [[gnu::always_inline]] void add(int k, const State<C>& s) const {
      for (int c = 0; c < C; ++c) y_[k * C + c] += s.re[0][c] + s.re[1][c];
    }

    // g+[k] = w g+[k-1] + P f[k] + Q f[k-1] (eq. 4) for the edge dt[k].
    [[gnu::always_inline]] void causal_step(int k, State<C>& s) const {
      const V* fk = f_ + k * C;
      const V* fp = fk - C;
      for (int p = 0; p < 2; ++p) {
        const edge::Pole<float>& pole = poles_.p[p];
        const Weight& w = w_[k * 2 + p];
        const V sr = w.cr + pole.minus_r1b.re, si = w.ci + pole.minus_r1b.im;
        const V pr = pole.a.re + sr, pi = pole.a.im + si;
        const V qr = (pole.r1.re * w.wr - pole.r1.im * w.wi) - w.cr;
        const V qi = (pole.r1.re * w.wi + pole.r1.im * w.wr) - w.ci;
        for (int c = 0; c < C; ++c) {
          const V gr = s.re[p][c], gi = s.im[p][c];
          s.re[p][c] = ((w.wr * gr - w.wi * gi) + pr * fk[c]) + qr * fp[c];
          s.im[p][c] = ((w.wr * gi + w.wi * gr) + pi * fk[c]) + qi * fp[c];
        }
      }
    }

    // g-[j] = w g-[j+1] + R f[j+1] + S f[j] (eq. 4) for the edge dt[j+1].
    [[gnu::always_inline]] void anticausal_step(int j, State<C>& s) const {
      const V* fn = f_ + (j + 1) * C;
      const V* fj = f_ + j * C;
      for (int p = 0; p < 2; ++p) {
        const edge::Pole<float>& pole = poles_.p[p];
        const Weight& w = w_[(j + 1) * 2 + p];
        const V qr = (pole.r1.re * w.wr - pole.r1.im * w.wi) - w.cr;
        const V qi = (pole.r1.re * w.wi + pole.r1.im * w.wr) - w.ci;
        const V rr = (pole.a.re * w.wr - pole.a.im * w.wi) + qr;
        const V ri = (pole.a.re * w.wi + pole.a.im * w.wr) + qi;
        const V sr = w.cr + pole.minus_r1b.re, si = w.ci + pole.minus_r1b.im;
        for (int c = 0; c < C; ++c) {
          const V gr = s.re[p][c], gi = s.im[p][c];
          s.re[p][c] = ((w.wr * gr - w.wi * gi) + rr * fn[c]) + sr * fj[c];
          s.im[p][c] = ((w.wr * gi + w.wi * gr) + ri * fn[c]) + si * fj[c];
        }
      }
    }

    // Algorithm B's walk back from sample s, every lane at once: while d < warmup and p > 0,
    // d += dt[p] and p moves back (the CPU and CUDA backends sum the spacings in this order, so
    // both stop at the same sample). `steps` bounds the walk.
    [[gnu::always_inline]] VI walk_back(int s, float warmup, int steps) const {
      VI p = splat_i(s);
      V d = V{};
      for (int k = s; k > 0 && k > s - steps; --k) {
        const VI active = d < splat(warmup);
        d = active ? d + dt_[k] : d;
        p = active ? splat_i(k - 1) : p;
      }
      return p;
    }

    // The same walk forward from sample q, up to sample n - 1.
    [[gnu::always_inline]] VI walk_forward(int q, float warmup, int steps) const {
      VI r = splat_i(q);
      V d = V{};
      for (int k = q; k < n_ - 1 && k < q + steps; ++k) {
        const VI active = d < splat(warmup);
        d = active ? d + dt_[k + 1] : d;
        r = active ? splat_i(k + 1) : r;
      }
      return r;
    }

    const V* f_;
    V* y_;
    const V* dt_;
    Weight* w_;
    int n_;
    const PolesF& poles_;
  };

  // Unaligned vector loads and stores (image rows and columns start anywhere).
  [[gnu::always_inline]] static V load_unaligned(const float* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  [[gnu::always_inline]] static void store_unaligned(float* p, const V& v) {
    std::memcpy(p, &v, sizeof v);
  }
  // Lanes of a and b (index L + i is b[i]). GCC's builtin takes the indices as a vector; clang
  // has no such builtin, and its optimiser folds the lane-wise form of constant indices into the
  // same shuffles.
  [[gnu::always_inline]] static V shuffle(const V& a, const V& b, const VI& index) {
#if defined(__clang__)
    V r;
    for (int i = 0; i < L; ++i) r[i] = index[i] < L ? a[index[i]] : b[index[i] - L];
    return r;
#else
    return __builtin_shuffle(a, b, index);
#endif
  }

  // m[j][i] <- m[i][j]. For 8 lanes: unpack pairs, then 2x2 blocks, then the 128-bit halves (the
  // shuffles GCC turns into vunpcklps, vshufps and vperm2f128); for 4 the first two steps.
  [[gnu::always_inline]] static void transpose(V (&m)[L]) {
    if constexpr (L == 4) {
      const V t0 = shuffle(m[0], m[1], VI{0, 4, 1, 5}), t1 = shuffle(m[0], m[1], VI{2, 6, 3, 7});
      const V t2 = shuffle(m[2], m[3], VI{0, 4, 1, 5}), t3 = shuffle(m[2], m[3], VI{2, 6, 3, 7});
      m[0] = shuffle(t0, t2, VI{0, 1, 4, 5});
      m[1] = shuffle(t0, t2, VI{2, 3, 6, 7});
      m[2] = shuffle(t1, t3, VI{0, 1, 4, 5});
      m[3] = shuffle(t1, t3, VI{2, 3, 6, 7});
    } else {
      V t[8], u[8];
      for (int i = 0; i < 8; i += 2) {
        t[i] = shuffle(m[i], m[i + 1], VI{0, 8, 1, 9, 4, 12, 5, 13});
        t[i + 1] = shuffle(m[i], m[i + 1], VI{2, 10, 3, 11, 6, 14, 7, 15});
      }
      for (int i = 0; i < 8; i += 4)
        for (int h = 0; h < 2; ++h) {
          u[i + 2 * h] = shuffle(t[i + h], t[i + 2 + h], VI{0, 1, 8, 9, 4, 5, 12, 13});
          u[i + 2 * h + 1] = shuffle(t[i + h], t[i + 2 + h], VI{2, 3, 10, 11, 6, 7, 14, 15});
        }
      for (int i = 0; i < 4; ++i) {
        m[i] = shuffle(u[i], u[i + 4], VI{0, 1, 2, 3, 8, 9, 10, 11});
        m[i + 4] = shuffle(u[i], u[i + 4], VI{4, 5, 6, 7, 12, 13, 14, 15});
      }
    }
  }

  // L pixels of C interleaved channels (p[l * C + c]) to and from one vector per channel.
  template <int C>
  [[gnu::always_inline]] static void deinterleave(const float* p, V* out) {
    if constexpr (C == 1) {
      out[0] = load_unaligned(p);
    } else if constexpr (C == 4) {
      V m[L];
      if constexpr (L == 4) {
        for (int i = 0; i < 4; ++i) m[i] = load_unaligned(p + 4 * i);
        transpose(m);
        for (int i = 0; i < 4; ++i) out[i] = m[i];
      } else {
        V t[4];
        for (int i = 0; i < 4; ++i) m[i] = load_unaligned(p + 8 * i);
        for (int i = 0; i < 4; i += 2) {
          t[i] = shuffle(m[i], m[i + 1], VI{0, 4, 8, 12, 1, 5, 9, 13});
          t[i + 1] = shuffle(m[i], m[i + 1], VI{2, 6, 10, 14, 3, 7, 11, 15});
        }
        for (int i = 0; i < 2; ++i) {
          out[2 * i] = shuffle(t[i], t[i + 2], VI{0, 1, 2, 3, 8, 9, 10, 11});
          out[2 * i + 1] = shuffle(t[i], t[i + 2], VI{4, 5, 6, 7, 12, 13, 14, 15});
        }
      }
    } else {
      const V a = load_unaligned(p), b = load_unaligned(p + L), c = load_unaligned(p + 2 * L);
      if constexpr (L == 4) {
        out[0] = shuffle(shuffle(a, b, VI{0, 3, 6, 0}), c, VI{0, 1, 2, 5});
        out[1] = shuffle(shuffle(a, b, VI{1, 4, 7, 0}), c, VI{0, 1, 2, 6});
        out[2] = shuffle(shuffle(a, b, VI{2, 5, 0, 0}), c, VI{0, 1, 4, 7});
      } else {
        out[0] =
            shuffle(shuffle(a, b, VI{0, 3, 6, 9, 12, 15, 0, 0}), c, VI{0, 1, 2, 3, 4, 5, 10, 13});
        out[1] =
            shuffle(shuffle(a, b, VI{1, 4, 7, 10, 13, 0, 0, 0}), c, VI{0, 1, 2, 3, 4, 8, 11, 14});
        out[2] =
            shuffle(shuffle(a, b, VI{2, 5, 8, 11, 14, 0, 0, 0}), c, VI{0, 1, 2, 3, 4, 9, 12, 15});
      }
    }
  }

  template <int C>
  [[gnu::always_inline]] static void interleave(const V* in, float* p) {
    if constexpr (C == 1) {
      store_unaligned(p, in[0]);
    } else if constexpr (C == 4) {
      if constexpr (L == 4) {
        V m[4] = {in[0], in[1], in[2], in[3]};
        transpose(m);
        for (int i = 0; i < 4; ++i) store_unaligned(p + 4 * i, m[i]);
      } else {
        // t = {R0-3 G0-3}, {B0-3 A0-3}, {R4-7 G4-7}, {B4-7 A4-7}
        V t[4];
        for (int i = 0; i < 2; ++i) {
          t[i] = shuffle(in[2 * i], in[2 * i + 1], VI{0, 1, 2, 3, 8, 9, 10, 11});
          t[i + 2] = shuffle(in[2 * i], in[2 * i + 1], VI{4, 5, 6, 7, 12, 13, 14, 15});
        }
        for (int i = 0; i < 2; ++i) {
          store_unaligned(p + 16 * i,
                          shuffle(t[2 * i], t[2 * i + 1], VI{0, 4, 8, 12, 1, 5, 9, 13}));
          store_unaligned(p + 16 * i + 8,
                          shuffle(t[2 * i], t[2 * i + 1], VI{2, 6, 10, 14, 3, 7, 11, 15}));
        }
      }
    } else {
      const V &r = in[0], &g = in[1], &b = in[2];
      if constexpr (L == 4) {
        store_unaligned(p, shuffle(shuffle(r, g, VI{0, 4, 0, 1}), b, VI{0, 1, 4, 3}));
        store_unaligned(p + 4, shuffle(shuffle(r, g, VI{5, 0, 2, 6}), b, VI{0, 5, 2, 3}));
        store_unaligned(p + 8, shuffle(shuffle(r, g, VI{0, 3, 7, 0}), b, VI{6, 1, 2, 7}));
      } else {
        store_unaligned(
            p, shuffle(shuffle(r, g, VI{0, 8, 0, 1, 9, 0, 2, 10}), b, VI{0, 1, 8, 3, 4, 9, 6, 7}));
        store_unaligned(p + 8, shuffle(shuffle(r, g, VI{0, 3, 11, 0, 4, 12, 0, 5}), b,
                                       VI{10, 1, 2, 11, 4, 5, 12, 7}));
        store_unaligned(p + 16, shuffle(shuffle(r, g, VI{13, 0, 6, 14, 0, 7, 15, 0}), b,
                                        VI{0, 13, 2, 3, 14, 5, 6, 15}));
      }
    }
  }

  // Lines [first, first + count) of a pass into lane-major order (lanes past the last line
  // repeat it, so that every lane computes finite values), and back. Lines of contiguous samples
  // (rows) move through L x L transposes, full batches of adjacent lines (columns) a sample at a
  // time through per-channel shuffles; what remains (the last columns of an image) goes element
  // by element.
  template <int C>
  [[gnu::always_inline]] static void gather(const PassJob& job, int first, int count, V* f, V* dt) {
    const int n = job.n;
    auto line = [&](int l) { return std::ptrdiff_t(first + std::min(l, count - 1)); };
    if (job.fk == C && job.dk == 1) {
      const float* rows[L];
      const float* steps[L];
      for (int l = 0; l < L; ++l) {
        rows[l] = job.src + line(l) * job.fl;
        steps[l] = job.dt + line(l) * job.dl;
      }
      auto transpose_in = [](const float* const* src, int total, V* out) {
        int i = 0;
        for (; i + L <= total; i += L) {
          V m[L];
          for (int l = 0; l < L; ++l) m[l] = load_unaligned(src[l] + i);
          transpose(m);
          for (int j = 0; j < L; ++j) out[i + j] = m[j];
        }
        for (; i < total; ++i)
          for (int l = 0; l < L; ++l) out[i][l] = src[l][i];
      };
      transpose_in(rows, n * C, f);
      transpose_in(steps, n, dt);
    } else if (count == L && job.fl == C && job.dl == 1) {
      for (int k = 0; k < n; ++k) {
        // Each sample is on another page, where the hardware prefetchers stop: fetch ahead.
        if (k + kPrefetchRows < n) {
          const float* ahead = job.src + (k + kPrefetchRows) * job.fk + first * C;
          for (int b = 0; b < C * L; b += 16) __builtin_prefetch(ahead + b);
          __builtin_prefetch(ahead + C * L - 1);
          __builtin_prefetch(job.dt + (k + kPrefetchRows) * job.dk + first);
        }
        deinterleave<C>(job.src + k * job.fk + first * C, f + k * C);
        dt[k] = load_unaligned(job.dt + k * job.dk + first);
      }
    } else {
      for (int k = 0; k < n; ++k)
        for (int l = 0; l < L; ++l) {
          for (int c = 0; c < C; ++c) f[k * C + c][l] = job.src[k * job.fk + line(l) * job.fl + c];
          dt[k][l] = job.dt[k * job.dk + line(l) * job.dl];
        }
    }
  }

  template <int C>
  [[gnu::always_inline]] static void scatter(const PassJob& job, int first, int count, const V* y) {
    const int n = job.n;
    if (job.fk == C) {
      const int total = n * C;
      int i = 0;
      for (; i + L <= total; i += L) {
        V m[L];
        for (int j = 0; j < L; ++j) m[j] = y[i + j];
        transpose(m);
        for (int l = 0; l < count; ++l) store_unaligned(job.dst + (first + l) * job.fl + i, m[l]);
      }
      for (; i < total; ++i)
        for (int l = 0; l < count; ++l) job.dst[(first + l) * job.fl + i] = y[i][l];
    } else if (count == L && job.fl == C) {
      for (int k = 0; k < n; ++k) {
        if (k + kPrefetchRows < n) {
          float* ahead = job.dst + (k + kPrefetchRows) * job.fk + first * C;
          for (int b = 0; b < C * L; b += 16) __builtin_prefetch(ahead + b, 1);
          __builtin_prefetch(ahead + C * L - 1, 1);
        }
        interleave<C>(y + k * C, job.dst + k * job.fk + first * C);
      }
    } else {
      for (int k = 0; k < n; ++k)
        for (int l = 0; l < count; ++l)
          for (int c = 0; c < C; ++c)
            job.dst[k * job.fk + (first + l) * job.fl + c] = y[k * C + c][l];
    }
  }

  // Lines [first, first + L) of a pass: gathered, filtered, scattered back.
  template <int C>
  [[gnu::always_inline]] static void filter_batch(const PassJob& job, const Method& m, int first,
                                                  Scratch& s) {
    const int count = std::min(L, job.lines - first);
    V* f = reinterpret_cast<V*>(s.f.data());
    V* y = reinterpret_cast<V*>(s.y.data());
    V* dt = reinterpret_cast<V*>(s.dt.data());
    gather<C>(job, first, count, f, dt);
    const Lanes<C> lanes(f, y, dt, reinterpret_cast<Weight*>(s.w.data()), job.n, *m.poles);
    lanes.edge_weights();
    switch (m.algo) {
      case Algorithm::EdgeC:
        lanes.run_approximate(edge::kSegmentC, m.warmup);
        break;
      case Algorithm::EdgeD:
        lanes.run_approximate(edge::kBlockD, m.warmup);
        break;
      default:
        // A and the exact variant (the plan admits nothing else). The exact variant cuts lines
        // into segments to run them in parallel on the CUDA backend. Here every lane of a batch
        // is a line of its own, so lines already fill the lanes and the threads, and segments
        // would only add their composites' second pass over part of each line (measured slower
        // than A: docs/edge-aware-kappa.md): the exact variant runs each line whole, which is
        // Algorithm A's recursion and its result.
        lanes.run_sequential();
        break;
    }
    scatter<C>(job, first, count, y);
  }
};

// The batch kernels: 4 lanes for the x86-64-v2 baseline, 8 with AVX2 and FMA.
using BatchFn = void (*)(const PassJob&, const Method&, int, Scratch&);

template <int C>
void filter_batch_sse(const PassJob& job, const Method& m, int first, Scratch& s) {
  Kernels<4>::filter_batch<C>(job, m, first, s);
}
template <int C>
[[gnu::target("avx2,fma")]] void filter_batch_avx2(const PassJob& job, const Method& m, int first,
                                                   Scratch& s) {
  Kernels<8>::filter_batch<C>(job, m, first, s);
}

struct BatchKernel {
  BatchFn fn;
  int lanes;
};

BatchKernel batch_kernel(int channels) {
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    switch (channels) {
      case 1:
        return {filter_batch_avx2<1>, 8};
      case 3:
        return {filter_batch_avx2<3>, 8};
      default:
        return {filter_batch_avx2<4>, 8};
    }
  }
  switch (channels) {
    case 1:
      return {filter_batch_sse<1>, 4};
    case 3:
      return {filter_batch_sse<3>, 4};
    default:
      return {filter_batch_sse<4>, 4};
  }
}

// An allocator that asks Linux for 2 MiB pages (transparent huge pages) for large arrays: the
// column passes move to another row, i.e. another 4 KiB page, with every sample, which takes a TLB
// walk per sample and stops the hardware prefetchers at each page.
template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t(1) << 21;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>().allocate(n);
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
    madvise(p, rounded, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kHugePage)
      std::allocator<T>().deallocate(p, n);
    else
      std::free(p);
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const HugePageAllocator<U>&) const {
    return false;
  }
};

// Eq. (2) for row y of the guide: dt_rows[y][x] between x-1 and x, dt_cols[y][x] between rows y-1
// and y. Four pixels at a time in SSE registers, each product and sum rounded on its own as in
// edge::domain_step() (no fused multiply-adds: the CUDA backend computes the same floats, so both
// backends' Algorithm B walks stop at the same samples).
template <int C>
void domain_steps_row(const float* guide, int y, float scale2, int width, float* dt_rows,
                      float* dt_cols) {
  using K = Kernels<4>;
  using V = K::V;
  constexpr int colours = C == 1 ? 1 : 3;
  const float* row = guide + std::ptrdiff_t(y) * width * C;
  const float* up = row - std::ptrdiff_t(width) * C;
  float* dr = dt_rows + std::ptrdiff_t(y) * width;
  float* dc = dt_cols + std::ptrdiff_t(y) * width;
  auto step = [&](const V* prev, const V* cur) {
    V sum = V{};
    for (int c = 0; c < colours; ++c) {
      const V d = cur[c] - prev[c];
      sum = sum + d * d;
    }
    return V(_mm_sqrt_ps(__m128(K::splat(1.0f) + scale2 * sum)));
  };
  dr[0] = 1.0f;
  int x = 1;
  for (; x + 4 <= width; x += 4) {
    V cur[C], left[C];
    K::deinterleave<C>(row + x * C, cur);
    K::deinterleave<C>(row + (x - 1) * C, left);
    K::store_unaligned(dr + x, step(left, cur));
  }
  for (; x < width; ++x)
    dr[x] = edge::domain_step<float, colours>(row + (x - 1) * C, row + x * C, scale2);
  if (y == 0) {
    for (x = 0; x < width; ++x) dc[x] = 1.0f;
    return;
  }
  for (x = 0; x + 4 <= width; x += 4) {
    V cur[C], above[C];
    K::deinterleave<C>(row + x * C, cur);
    K::deinterleave<C>(up + x * C, above);
    K::store_unaligned(dc + x, step(above, cur));
  }
  for (; x < width; ++x) dc[x] = edge::domain_step<float, colours>(up + x * C, row + x * C, scale2);
}

// Images of fewer pixels are filtered on one thread (a fraction of a millisecond of work).
constexpr std::size_t kParallelPixels = std::size_t(1) << 14;

}  // namespace

struct EdgeAwarePlan::Impl {
  int width = 0, height = 0, channels = 0;
  Algorithm algo = Algorithm::EdgeExact;
  float scale2 = 0.0f;
  std::vector<PolesF> poles;   // one per iteration
  std::vector<float> warmups;  // kappa * sigma_i per iteration
  BatchKernel batch{};
  int threads = 1;
  bool parallel = true;
  mutable std::vector<float, HugePageAllocator<float>> dt_rows, dt_cols, tmp;
  mutable std::vector<Scratch> scratch;  // one per thread

  // Batches of lines are handed out dynamically: on a shared machine a thread can lose its
  // core for a while, and a static split would leave the other waiting at the barrier.
  // With a guide (the first row pass), each batch first computes eq. (2) for its rows: along the
  // rows for itself, along the columns for the column pass after the barrier. This saves a pass
  // over the image and a barrier.
  template <int C>
  void pass(const PassJob& job, int iteration, const float* guide = nullptr) const {
    const Method m{algo, warmups[std::size_t(iteration)], &poles[std::size_t(iteration)]};
    const int lanes = batch.lanes, batches = (job.lines + lanes - 1) / lanes;
#pragma omp parallel for schedule(dynamic) num_threads(threads) if (parallel)
    for (int b = 0; b < batches; ++b) {
      if (guide)
        for (int y = b * lanes; y < std::min(job.lines, (b + 1) * lanes); ++y)
          domain_steps_row<C>(guide, y, scale2, width, dt_rows.data(), dt_cols.data());
      batch.fn(job, m, b * lanes, scratch[omp_get_thread_num()]);
    }
  }

  // Rows then columns per iteration; the passes alternate between tmp and out so that the last
  // lands in out (in == out is allowed: the guide is read completely before out is written).
  template <int C>
  void run(const float* in, float* out) const {
    const std::ptrdiff_t row = std::ptrdiff_t(width) * C;
    const float* src = in;
    float* bufs[2] = {tmp.data(), out};
    int next = 0;
    for (int it = 0; it < int(poles.size()); ++it) {
      pass<C>({src, bufs[next], dt_rows.data(), C, row, 1, width, width, height}, it,
              it == 0 ? in : nullptr);
      src = bufs[next];
      next ^= 1;
      pass<C>({src, bufs[next], dt_cols.data(), row, C, width, 1, height, width}, it);
      src = bufs[next];
      next ^= 1;
    }
  }
};

EdgeAwarePlan::EdgeAwarePlan(const FilterSpec& spec, int width, int height, int channels)
    : impl_(std::make_unique<Impl>()) {
  validate_edge_aware(spec, width, height, channels);
  Impl& m = *impl_;
  switch (spec.algo) {
    case Algorithm::Auto:
      m.algo = Algorithm::EdgeExact;
      break;
    case Algorithm::EdgeA:
    case Algorithm::EdgeC:
    case Algorithm::EdgeD:
    case Algorithm::EdgeExact:
      m.algo = spec.algo;
      break;
    default:
      throw InvalidParameter(std::string("edge-aware filter: algorithm '") + to_string(spec.algo) +
                             "' does not apply (" +
                             names_of(algorithms_for(Backend::Cpu, FilterKind::EdgeAware)) + ")");
  }
  m.width = width;
  m.height = height;
  m.channels = channels;
  m.scale2 = float(domain_scale2(spec));
  for (int it = 1; it <= spec.iterations; ++it) {
    const double sigma_i = edge::iteration_sigma(spec.sigma, it, spec.iterations);
    m.poles.push_back(edge::cast_poles<float>(edge::design_poles(sigma_i)));
    m.warmups.push_back(float(spec.kappa * sigma_i));
  }
  m.batch = batch_kernel(channels);
  m.threads = std::max(1, omp_get_max_threads());
  m.parallel = std::size_t(width) * height >= kParallelPixels;
  const std::size_t pixels = std::size_t(width) * height;
  m.dt_rows.resize(pixels);
  m.dt_cols.resize(pixels);
  m.tmp.resize(pixels * channels);
  m.scratch.resize(std::size_t(m.threads));
  const std::size_t n = std::size_t(std::max(width, height));
  for (Scratch& s : m.scratch) {
    s.f.resize(n * channels);
    s.y.resize(n * channels);
    s.dt.resize(n);
    s.w.resize(n * 2 * sizeof(Kernels<8>::Weight) / sizeof(VectorStorage));
  }
}

EdgeAwarePlan::~EdgeAwarePlan() = default;

Algorithm EdgeAwarePlan::algorithm() const {
  return impl_->algo;
}
EdgeAwarePlan::EdgeAwarePlan(EdgeAwarePlan&&) noexcept = default;
EdgeAwarePlan& EdgeAwarePlan::operator=(EdgeAwarePlan&&) noexcept = default;

void EdgeAwarePlan::run(const float* in, float* out) const {
  switch (impl_->channels) {
    case 1:
      impl_->run<1>(in, out);
      break;
    case 3:
      impl_->run<3>(in, out);
      break;
    default:
      impl_->run<4>(in, out);
      break;
  }
}

}  // namespace cpu
}  // namespace rf
