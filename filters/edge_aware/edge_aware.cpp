// Edge-aware recursive Gaussian through the domain transform: the double-precision reference of
// Algorithm A and the float CPU backend of Algorithms A, C, D and the exact block-parallel variant.
#include "filters/edge_aware/edge_aware.h"

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "filters/core/errors.h"
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

using edge::Cx;
using Weight = edge::EdgeWeight<float>;
using PolesF = edge::Poles<float>;

// Float e^x, e^x - 1 and sincos in straight-line code that the compiler vectorises across a
// line's edges (the C library's are calls, one edge at a time), within about one float ulp of the
// library's for the arguments edge_weight() passes (x <= 0, angle >= 0). No float comparisons:
// without -fno-trapping-math they would keep the loop scalar.
struct VectorMath {
  // |v| limited to `limit` through the bit pattern (an integer min, which vectorises).
  static float clamp_magnitude(float v, float limit) {
    const std::int32_t bits = __builtin_bit_cast(std::int32_t, v);
    const std::int32_t mag = std::min(bits & 0x7fffffff, __builtin_bit_cast(std::int32_t, limit));
    return __builtin_bit_cast(float, (bits & std::int32_t(0x80000000u)) | mag);
  }
  static void exp_expm1(float x, float* e, float* em1) {
    // e^x = 2^n (1 + q), n = round(x / ln 2), |r| <= ln 2 / 2 (Cody-Waite split of ln 2) and
    // q = e^r - 1 by its Taylor polynomial (first omitted term below 6e-9 relative). Below
    // x = -87 e^x is 0 in float; the clamp keeps 2^n a normal number.
    x = clamp_magnitude(x, 87.0f);
    const float n = std::nearbyint(x * 1.44269504f);
    const float r = (x - n * 0.693145752f) - n * 1.42860677e-6f;
    float q = 1.0f / 5040.0f;
    q = q * r + 1.0f / 720.0f;
    q = q * r + 1.0f / 120.0f;
    q = q * r + 1.0f / 24.0f;
    q = q * r + 1.0f / 6.0f;
    q = q * r + 0.5f;
    q = q * r + 1.0f;
    q = q * r;
    const float scale = __builtin_bit_cast(float, (std::int32_t(n) + 127) << 23);  // 2^n
    // e^x - 1 = 2^n q + (2^n - 1): exact q where n = 0, no cancellation where n < 0.
    *em1 = scale * q + (scale - 1.0f);
    *e = scale * q + scale;
  }
  static void sincos(float x, float* s, float* c) {
    // x = k pi/2 + r, |r| <= pi/4 (pi/2 split in three), then the minimax polynomials of Cephes'
    // sinf and cosf and the quadrant's signs and swap. Past 1e5 the angle is clamped: there the
    // edge's e^x is 0 (rho / theta > 0.86 for both poles), so its sine no longer matters.
    x = clamp_magnitude(x, 1e5f);
    const float k = std::nearbyint(x * 0.636619772f);
    const float r = ((x - k * 1.5703125f) - k * 4.83751297e-4f) - k * 7.54978995e-8f;
    const float r2 = r * r;
    const float sr =
        r + r * r2 * (-1.6666654611e-1f + r2 * (8.3321608736e-3f + r2 * -1.9515295891e-4f));
    const float cr =
        1.0f - 0.5f * r2 +
        r2 * r2 *
            (4.166664568298827e-2f + r2 * (-1.388731625493765e-3f + r2 * 2.443315711809948e-5f));
    const int quadrant = int(k) & 3;
    const float sa = (quadrant & 1) ? cr : sr;
    const float ca = (quadrant & 1) ? sr : cr;
    *s = (quadrant & 2) ? -sa : sa;
    *c = ((quadrant + 1) & 2) ? -ca : ca;
  }
};

// Adjacent columns filtered together by one thread: every row of the strip is contiguous.
constexpr int kColumnLanes = 8;

template <int C>
struct State {
  Cx<float> g[2][C];
};

// A batch of parallel lines (lanes) of n samples. Sample k of lane l, channel c, sits at
// f[k * fk + l * fl + c] (the same offsets in y); its spacing dt[k] at dt[k * dk + l * dl].
struct Batch {
  const float* f;
  float* y;
  const float* dt;
  std::ptrdiff_t fk, fl, dk, dl;
  int n;
};

// Per-thread scratch: the edge weights of a batch and the segment composites of the exact variant,
// sized by the plan so that run() does not allocate.
struct Scratch {
  std::vector<Weight> weights;  // [k][pole][lane]
  std::vector<Cx<float>> composite_storage;

  // The largest composite holds 2 + 2 * 4 complex values (W per pole, U per pole and channel).
  static constexpr std::size_t kCompositeSize = 10;
  template <class Composite>
  Composite* composites(std::size_t count) {
    static_assert(sizeof(Composite) <= kCompositeSize * sizeof(Cx<float>), "composite too large");
    assert(count * kCompositeSize <= composite_storage.size());
    (void)count;
    return reinterpret_cast<Composite*>(composite_storage.data());
  }
};

template <int C, int L>
class LinePass {
 public:
  LinePass(const Batch& b, const PolesF& poles, const Weight* weights)
      : b_(b), poles_(poles), wts_(weights) {
    assert(L == 1 || b.fl == C);
  }

  const float* f(int k, int l) const { return b_.f + k * b_.fk + l * b_.fl; }
  float* y(int k, int l) const { return b_.y + k * b_.fk + l * b_.fl; }
  float dt(int k, int l) const { return b_.dt[k * b_.dk + l * b_.dl]; }
  const Weight& weight(int k, int pole, int l) const {
    return wts_[(std::size_t(k) * 2 + pole) * L + l];
  }

  void steady_causal(int k, int l, State<C>& s) const {
    for (int p = 0; p < 2; ++p)
      for (int c = 0; c < C; ++c) s.g[p][c] = poles_.p[p].steady_causal * f(k, l)[c];
  }
  void steady_anticausal(int k, int l, State<C>& s) const {
    for (int p = 0; p < 2; ++p)
      for (int c = 0; c < C; ++c) s.g[p][c] = poles_.p[p].steady_anticausal * f(k, l)[c];
  }
  void emit_causal(int k, int l, const State<C>& s) const {
    float* out = y(k, l);
    for (int c = 0; c < C; ++c) out[c] = s.g[0][c].re + s.g[1][c].re;
  }
  void emit_anticausal(int k, int l, const State<C>& s) const {
    float* out = y(k, l);
    for (int c = 0; c < C; ++c) out[c] += s.g[0][c].re + s.g[1][c].re;
  }

  // Causal recursion over samples [k0, k1) of lanes [l0, l1); st[l] holds g+[k0-1] on entry and
  // g+[k1-1] on exit. With Write, y[k] = Re g+[k]. The states are copied to a local array so that
  // the compiler knows the output stores do not touch them.
  template <bool Write>
  void causal(int k0, int k1, int l0, int l1, State<C>* st) const {
    if (l0 == 0 && l1 == L) return causal_all_lanes<Write>(k0, k1, st);
    State<C> s[L];
    for (int l = l0; l < l1; ++l) s[l] = st[l];
    for (int k = k0; k < k1; ++k)
      for (int l = l0; l < l1; ++l) {
        const float* fk = f(k, l);
        const float* fp = fk - b_.fk;
        for (int p = 0; p < 2; ++p) {
          const edge::CausalStep<float> step = edge::causal_step(poles_.p[p], weight(k, p, l));
          for (int c = 0; c < C; ++c) s[l].g[p][c] = step(s[l].g[p][c], fk[c], fp[c]);
        }
        if (Write) emit_causal(k, l, s[l]);
      }
    for (int l = l0; l < l1; ++l) st[l] = s[l];
  }

  // Anticausal recursion producing g-[j] for j = k1-1 down to k0 in lanes [l0, l1); st[l] holds
  // g-[k1] on entry and g-[k0] on exit. With Write, y[j] += Re g-[j].
  template <bool Write>
  void anticausal(int k0, int k1, int l0, int l1, State<C>* st) const {
    if (l0 == 0 && l1 == L) return anticausal_all_lanes<Write>(k0, k1, st);
    State<C> s[L];
    for (int l = l0; l < l1; ++l) s[l] = st[l];
    for (int j = k1 - 1; j >= k0; --j)
      for (int l = l0; l < l1; ++l) {
        const float* fk = f(j + 1, l);
        const float* fp = f(j, l);
        for (int p = 0; p < 2; ++p) {
          const edge::AnticausalStep<float> step =
              edge::anticausal_step(poles_.p[p], weight(j + 1, p, l));
          for (int c = 0; c < C; ++c) s[l].g[p][c] = step(s[l].g[p][c], fk[c], fp[c]);
        }
        if (Write) emit_anticausal(j, l, s[l]);
      }
    for (int l = l0; l < l1; ++l) st[l] = s[l];
  }

  // The same recursions on all lanes at once, the lane loop innermost so that it vectorises: the
  // states live in local structure-of-arrays form, lanes are adjacent columns (f(k, l) =
  // f(k, 0) + l * C).
  template <bool Write>
  void causal_all_lanes(int k0, int k1, State<C>* st) const {
    float gr[2][C][L], gi[2][C][L];
    unpack(st, gr, gi);
    for (int k = k0; k < k1; ++k) {
      const float* fk = f(k, 0);
      const float* fp = fk - b_.fk;
      const Weight* wk = wts_ + std::size_t(k) * 2 * L;
      float acc[C][L] = {};
      for (int p = 0; p < 2; ++p) {
        const edge::Pole<float>& pole = poles_.p[p];
#pragma omp simd
        for (int l = 0; l < L; ++l) {
          const edge::CausalStep<float> step = edge::causal_step(pole, wk[p * L + l]);
          for (int c = 0; c < C; ++c) {
            const Cx<float> g = step({gr[p][c][l], gi[p][c][l]}, fk[l * C + c], fp[l * C + c]);
            gr[p][c][l] = g.re;
            gi[p][c][l] = g.im;
            acc[c][l] += g.re;
          }
        }
      }
      if (Write) {
        float* yk = y(k, 0);
        for (int l = 0; l < L; ++l)
          for (int c = 0; c < C; ++c) yk[l * C + c] = acc[c][l];
      }
    }
    pack(gr, gi, st);
  }

  template <bool Write>
  void anticausal_all_lanes(int k0, int k1, State<C>* st) const {
    float gr[2][C][L], gi[2][C][L];
    unpack(st, gr, gi);
    for (int j = k1 - 1; j >= k0; --j) {
      const float* fk = f(j + 1, 0);
      const float* fp = f(j, 0);
      const Weight* wk = wts_ + std::size_t(j + 1) * 2 * L;
      float acc[C][L] = {};
      for (int p = 0; p < 2; ++p) {
        const edge::Pole<float>& pole = poles_.p[p];
#pragma omp simd
        for (int l = 0; l < L; ++l) {
          const edge::AnticausalStep<float> step = edge::anticausal_step(pole, wk[p * L + l]);
          for (int c = 0; c < C; ++c) {
            const Cx<float> g = step({gr[p][c][l], gi[p][c][l]}, fk[l * C + c], fp[l * C + c]);
            gr[p][c][l] = g.re;
            gi[p][c][l] = g.im;
            acc[c][l] += g.re;
          }
        }
      }
      if (Write) {
        float* yj = y(j, 0);
        for (int l = 0; l < L; ++l)
          for (int c = 0; c < C; ++c) yj[l * C + c] += acc[c][l];
      }
    }
    pack(gr, gi, st);
  }

  static void unpack(const State<C>* st, float (&gr)[2][C][L], float (&gi)[2][C][L]) {
    for (int p = 0; p < 2; ++p)
      for (int c = 0; c < C; ++c)
        for (int l = 0; l < L; ++l) {
          gr[p][c][l] = st[l].g[p][c].re;
          gi[p][c][l] = st[l].g[p][c].im;
        }
  }
  static void pack(const float (&gr)[2][C][L], const float (&gi)[2][C][L], State<C>* st) {
    for (int p = 0; p < 2; ++p)
      for (int c = 0; c < C; ++c)
        for (int l = 0; l < L; ++l) st[l].g[p][c] = {gr[p][c][l], gi[p][c][l]};
  }

  // Algorithm A on every lane: the whole line, sequentially.
  void run_exact_sequential(State<C>* st) const {
    const int n = b_.n, lanes = L;
    for (int l = 0; l < lanes; ++l) {
      steady_causal(0, l, st[l]);
      emit_causal(0, l, st[l]);
    }
    causal<true>(1, n, 0, lanes, st);
    for (int l = 0; l < lanes; ++l) {
      steady_anticausal(n - 1, l, st[l]);
      emit_anticausal(n - 1, l, st[l]);
    }
    anticausal<true>(0, n - 1, 0, lanes, st);
  }

  // Algorithms C and D: each segment of `seg` samples starts from initial conditions estimated by
  // Algorithm B. Walking back from the segment's first sample s until the transformed distance
  // d(t_p, t_s) reaches `warmup` = kappa sigma_i, the recursion starts at p from the steady state
  // of a constant input f[p] and runs up to s. At the image ends the walk stops early, and there
  // the steady state is the exact constant extension, as in Algorithm A.
  void run_approximate(int seg, float warmup, State<C>* st) const {
    const int n = b_.n, lanes = L;
    for (int s = 0; s < n; s += seg) {
      const int e = std::min(n, s + seg);
      for (int l = 0; l < lanes; ++l) {
        int p = s;
        for (float d = 0.0f; p > 0 && d < warmup; --p) d += dt(p, l);
        steady_causal(p, l, st[l]);
        causal<false>(p + 1, s + 1, l, l + 1, st);
        emit_causal(s, l, st[l]);
      }
      causal<true>(s + 1, e, 0, lanes, st);
      for (int l = 0; l < lanes; ++l) {
        int q = e - 1;
        for (float d = 0.0f; q < n - 1 && d < warmup; ++q) d += dt(q + 1, l);
        steady_anticausal(q, l, st[l]);
        anticausal<false>(e - 1, q, l, l + 1, st);
        emit_anticausal(e - 1, l, st[l]);
      }
      anticausal<true>(s, e - 1, 0, lanes, st);
    }
  }

  // The exact block-parallel variant. Each segment's recursion is the composition of its
  // per-sample affine maps g -> w_k g + u_k, itself an affine map g -> W g + U with W the product
  // of the w_k (shared by the channels) and U the segment's response from a zero state.
  //   1. per segment, independently: W and U;
  //   2. carries: the state entering each segment, a scan of the composites;
  //   3. per segment, independently: the recursion from its carry, writing the output.
  // The result equals Algorithm A up to float rounding.
  void run_exact_segments(int seg, State<C>* st, Scratch& scratch) const {
    const int n = b_.n, lanes = L;
    const int segments = (n + seg - 1) / seg;
    // Composites per segment and lane: W (one per pole) and U (a State).
    struct Composite {
      Cx<float> w[2];
      State<C> u;
    };
    Composite* comp = scratch.composites<Composite>(std::size_t(segments) * lanes);
    auto at = [&](int j, int l) -> Composite& { return comp[std::size_t(j) * lanes + l]; };

    // Causal. Segment 0 starts from the steady state at sample 0, so its composite's U is g+ at
    // its last sample and its W is not needed.
    for (int j = 0; j < segments; ++j) {
      const int s = j * seg, e = std::min(n, s + seg);
      for (int l = 0; l < lanes; ++l) {
        if (j == 0) {
          steady_causal(0, l, st[l]);
        } else {
          st[l] = State<C>{};
          for (int p = 0; p < 2; ++p) {
            Cx<float> w = {1.0f, 0.0f};
            for (int k = s; k < e; ++k) w = weight(k, p, l).w * w;
            at(j, l).w[p] = w;
          }
        }
      }
      causal<false>(j == 0 ? 1 : s, e, 0, lanes, st);
      for (int l = 0; l < lanes; ++l) at(j, l).u = st[l];
    }
    for (int j = 1; j < segments; ++j)
      for (int l = 0; l < lanes; ++l) {
        Composite& c = at(j, l);
        const State<C>& carry = at(j - 1, l).u;
        for (int p = 0; p < 2; ++p)
          for (int ch = 0; ch < C; ++ch) c.u.g[p][ch] = c.w[p] * carry.g[p][ch] + c.u.g[p][ch];
      }
    for (int j = 0; j < segments; ++j) {
      const int s = j * seg, e = std::min(n, s + seg);
      for (int l = 0; l < lanes; ++l) {
        if (j == 0) {
          steady_causal(0, l, st[l]);
          emit_causal(0, l, st[l]);
        } else {
          st[l] = at(j - 1, l).u;
        }
      }
      causal<true>(j == 0 ? 1 : s, e, 0, lanes, st);
    }

    // Anticausal, mirrored: the last segment starts from the steady state at sample n-1; segment
    // j maps g-[e_j] (the first sample of the next segment) to g-[s_j].
    for (int j = segments - 1; j >= 0; --j) {
      const int s = j * seg, e = std::min(n, s + seg);
      const bool last = j == segments - 1;
      for (int l = 0; l < lanes; ++l) {
        if (last) {
          steady_anticausal(n - 1, l, st[l]);
        } else {
          st[l] = State<C>{};
          for (int p = 0; p < 2; ++p) {
            Cx<float> w = {1.0f, 0.0f};
            for (int k = s + 1; k <= e; ++k) w = weight(k, p, l).w * w;
            at(j, l).w[p] = w;
          }
        }
      }
      anticausal<false>(s, last ? n - 1 : e, 0, lanes, st);
      for (int l = 0; l < lanes; ++l) at(j, l).u = st[l];
    }
    for (int j = segments - 2; j >= 0; --j)
      for (int l = 0; l < lanes; ++l) {
        Composite& c = at(j, l);
        const State<C>& carry = at(j + 1, l).u;
        for (int p = 0; p < 2; ++p)
          for (int ch = 0; ch < C; ++ch) c.u.g[p][ch] = c.w[p] * carry.g[p][ch] + c.u.g[p][ch];
      }
    for (int j = segments - 1; j >= 0; --j) {
      const int s = j * seg, e = std::min(n, s + seg);
      const bool last = j == segments - 1;
      for (int l = 0; l < lanes; ++l) {
        if (last) {
          steady_anticausal(n - 1, l, st[l]);
          emit_anticausal(n - 1, l, st[l]);
        } else {
          st[l] = at(j + 1, l).u;
        }
      }
      anticausal<true>(s, last ? n - 1 : e, 0, lanes, st);
    }
  }

 private:
  Batch b_;
  const PolesF& poles_;
  const Weight* wts_;
};

}  // namespace

struct EdgeAwarePlan::Impl {
  FilterSpec spec;
  int width = 0, height = 0, channels = 0;
  Algorithm algo = Algorithm::EdgeExact;
  float scale2 = 0.0f;
  std::vector<PolesF> poles;   // one per iteration
  std::vector<float> warmups;  // kappa * sigma_i per iteration
  mutable std::vector<float> dt_rows, dt_cols, tmp;
  mutable std::vector<Scratch> scratch;  // one per thread

  // Eq. (4)'s weights of every edge of the batch, computed once for both directions: along the
  // line for one line, across the strip for a strip of columns, so that the loop vectorises
  // (flatten inlines edge_weight() and the vector math into it).
  template <int L>
  [[gnu::flatten]] static void edge_weights(const Batch& b, const PolesF& pl, Weight* w) {
    if (L == 1) {
      for (int p = 0; p < 2; ++p) {
        const edge::Pole<float>& pole = pl.p[p];
#pragma omp simd
        for (int k = 1; k < b.n; ++k)
          w[std::size_t(k) * 2 + p] = edge::edge_weight<float, VectorMath>(pole, b.dt[k * b.dk]);
      }
      return;
    }
    for (int k = 1; k < b.n; ++k) {
      const float* dt = b.dt + k * b.dk;
      Weight* wk = w + std::size_t(k) * 2 * L;
      for (int p = 0; p < 2; ++p) {
        const edge::Pole<float>& pole = pl.p[p];
#pragma omp simd
        for (int l = 0; l < L; ++l)
          wk[p * L + l] = edge::edge_weight<float, VectorMath>(pole, dt[l * b.dl]);
      }
    }
  }

  template <int C, int L>
  void filter_batch(const Batch& b, int iteration, Scratch& s) const {
    const PolesF& pl = poles[iteration];
    Weight* w = s.weights.data();
    edge_weights<L>(b, pl, w);
    State<C> st[L];
    LinePass<C, L> pass(b, pl, w);
    switch (algo) {
      case Algorithm::EdgeA:
        pass.run_exact_sequential(st);
        break;
      case Algorithm::EdgeC:
        pass.run_approximate(edge::kSegmentC, warmups[iteration], st);
        break;
      case Algorithm::EdgeD:
        pass.run_approximate(edge::kBlockD, warmups[iteration], st);
        break;
      default:
        pass.run_exact_segments(edge::kSegmentExact, st, s);
        break;
    }
  }

  template <int C>
  void rows(const float* src, float* dst, int iteration) const {
    const std::ptrdiff_t row = std::ptrdiff_t(width) * C;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < height; ++y) {
      const Batch b{
          src + y * row, dst + y * row, dt_rows.data() + std::ptrdiff_t(y) * width, C, 0, 1, 0,
          width};
      filter_batch<C, 1>(b, iteration, scratch[omp_get_thread_num()]);
    }
  }

  template <int C>
  void columns(const float* src, float* dst, int iteration) const {
    const std::ptrdiff_t row = std::ptrdiff_t(width) * C;
    const int strips = (width + kColumnLanes - 1) / kColumnLanes;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < strips; ++i) {
      const int x0 = i * kColumnLanes;
      Scratch& s = scratch[omp_get_thread_num()];
      if (x0 + kColumnLanes <= width) {
        const Batch b{src + x0 * C, dst + x0 * C, dt_cols.data() + x0, row, C, width, 1, height};
        filter_batch<C, kColumnLanes>(b, iteration, s);
      } else {
        for (int x = x0; x < width; ++x) {
          const Batch b{src + x * C, dst + x * C, dt_cols.data() + x, row, 0, width, 0, height};
          filter_batch<C, 1>(b, iteration, s);
        }
      }
    }
  }

  // Eq. (2) from the guide, along rows (dt_rows[y][x]: between x-1 and x) and along columns.
  template <int C>
  void domain_steps(const float* guide) const {
    constexpr int colours = C == 1 ? 1 : 3;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const float* cur = guide + (std::ptrdiff_t(y) * width + x) * C;
        const std::size_t i = std::size_t(y) * width + x;
        dt_rows[i] = x > 0 ? edge::domain_step<float, colours>(cur - C, cur, scale2) : 1.0f;
        dt_cols[i] =
            y > 0 ? edge::domain_step<float, colours>(cur - std::ptrdiff_t(width) * C, cur, scale2)
                  : 1.0f;
      }
  }

  // Rows then columns per iteration; the passes alternate between tmp and out so that the last
  // lands in out (in == out is allowed: the guide is read completely before out is written).
  template <int C>
  void run(const float* in, float* out) const {
    domain_steps<C>(in);
    const float* src = in;
    float* bufs[2] = {tmp.data(), out};
    int next = 0;
    for (int it = 0; it < int(poles.size()); ++it) {
      rows<C>(src, bufs[next], it);
      src = bufs[next];
      next ^= 1;
      columns<C>(src, bufs[next], it);
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
                             "' does not apply (use edge-a, edge-c, edge-d or edge-exact)");
  }
  m.spec = spec;
  m.width = width;
  m.height = height;
  m.channels = channels;
  m.scale2 = float(domain_scale2(spec));
  for (int it = 1; it <= spec.iterations; ++it) {
    const double sigma_i = edge::iteration_sigma(spec.sigma, it, spec.iterations);
    m.poles.push_back(edge::cast_poles<float>(edge::design_poles(sigma_i)));
    m.warmups.push_back(float(spec.kappa * sigma_i));
  }
  const std::size_t pixels = std::size_t(width) * height;
  m.dt_rows.resize(pixels);
  m.dt_cols.resize(pixels);
  m.tmp.resize(pixels * channels);
  m.scratch.resize(std::size_t(std::max(1, omp_get_max_threads())));
  const std::size_t weights = std::max(std::size_t(width), std::size_t(height) * kColumnLanes) * 2;
  const std::size_t composites =
      std::size_t((std::max(width, height) + edge::kSegmentExact - 1) / edge::kSegmentExact) *
      kColumnLanes * Scratch::kCompositeSize;
  for (Scratch& s : m.scratch) {
    s.weights.resize(weights);
    s.composite_storage.resize(composites);
  }
}

EdgeAwarePlan::~EdgeAwarePlan() = default;
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
