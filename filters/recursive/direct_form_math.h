// The direct-form recurrences of algorithm 4 and RT on CUDA (direct_form.h gives their plan).
// Notation of Nehab et al. 2011: a line is cut into blocks of kBlock samples; the causal state
// entering a block is its prologue P_{m-1}(y) = (y_{-1}, ..., y_{-r}), the anticausal state
// entering it from the right is the epilogue E_{m+1}(z) = (z_b, ..., z_{b+r-1}).
#pragma once

#include "filters/core/extension.h"
#include "filters/core/hd.h"
#include "filters/core/vec.h"

namespace rf::cuda {

// Samples per block along a line: one warp covers 32 lines x kBlock samples.
inline constexpr int kBlock = 32;

// The recursion y_i = b0 x_i - sum_k a_k y_{i-k} (design.h's convention).
template <int R, class T = float>
struct Coeffs {
  T b0;
  T a[R];  // a_1 .. a_r
  T s;     // 1 + sum_k a_k (the float step below)
};

// One step of the causal (or, read right to left, the anticausal) recursion on a sliding window
// w = (y_{i-1}, ..., y_{i-r}); returns y_i and shifts it into the window.
template <int R, int C, class T>
RF_HDI Vec<C, T> recursion_step(const Coeffs<R, T>& f, const Vec<C, T>& x, Vec<C, T> (&w)[R]) {
  Vec<C, T> y = f.b0 * x;
#pragma unroll
  for (int k = 0; k < R; ++k) fma_into(y, -f.a[k], w[k]);
#pragma unroll
  for (int k = R - 1; k > 0; --k) w[k] = w[k - 1];
  w[0] = y;
  return y;
}

// With a float window the direct form loses accuracy: its partial sums reach |a_1| |y| (about
// 2 |y| for a Gaussian), so each step rounds a few ulps of y into the window, and the recursion
// amplifies what enters the window by up to its gain 1 / |b0|. The same step rearranged,
//   y = w_0 + (b0 x - s w_0) + sum_{k>=2} a_k (w_0 - w_{k-1}),   s = 1 + sum_k a_k,
// has only small terms in the bracketed correction (neighbouring outputs differ little, and
// w_0 - w_{k-1} is exact when they are within a factor of two) and rounds once more, in the final
// addition: about half an ulp per step.
template <int R, int C>
RF_HDI Vec<C> recursion_step(const Coeffs<R, float>& f, const Vec<C>& x, Vec<C> (&w)[R]) {
  Vec<C> y;
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const float w0 = w[0].v[c];
    float correction = f.b0 * x.v[c] - f.s * w0;
#pragma unroll
    for (int k = 1; k < R; ++k) correction += f.a[k] * (w0 - w[k].v[c]);
    y.v[c] = w0 + correction;
  }
#pragma unroll
  for (int k = R - 1; k > 0; --k) w[k] = w[k - 1];
  w[0] = y;
  return y;
}

// Block recursions keep their samples in float but the window in double: the error a float
// window would inject at every step is amplified by the sum of the impulse response of
// 1 / (1 + sum a_k q^-k), i.e. by 1 / b0 (25 for the order-3 Gaussian of sigma 4, thousands at
// sigma 60), while rounding each output sample to float is not amplified at all.
template <int R, int C>
RF_HDI Vec<C> recursion_step(const Coeffs<R, double>& f, const Vec<C>& x, Vec<C, double> (&w)[R]) {
  return convert<float>(recursion_step(f, convert<double>(x), w));
}

// Causal filtering of one block in place, F(p, B_m(x)) of eq. (15), from the prologue held in w;
// leaves the block's own prologue in w. Only the first `len` samples are filtered (`Full`: all).
// The window type S is float for well-conditioned filters (PassRecursion::float_blocks): a float
// window's error, at most ~1 / |b0| ulps, then stays within the float tolerance (and far below
// half a step of 1/255); double otherwise.
template <int R, int C, bool Full, class S>
RF_HDI void causal_block(const Coeffs<R, S>& f, Vec<C> (&v)[kBlock], Vec<C, S> (&w)[R], int len) {
#pragma unroll
  for (int i = 0; i < kBlock; ++i)
    if (Full || i < len) v[i] = recursion_step(f, v[i], w);
}

// Anticausal filtering of one block in place, R(B_m(y), e) of eq. (25), from the epilogue held in
// w = (z_len, ..., z_{len+r-1}); leaves the block's own epilogue (z_0, ..., z_{r-1}) in w.
template <int R, int C, bool Full, class S>
RF_HDI void anticausal_block(const Coeffs<R, S>& f, Vec<C> (&v)[kBlock], Vec<C, S> (&w)[R],
                             int len) {
#pragma unroll
  for (int i = kBlock - 1; i >= 0; --i)
    if (Full || i < len) v[i] = recursion_step(f, v[i], w);
}

// out += m * p for an r x r row-major matrix.
template <int R, int C, class T>
RF_HDI void mat_vec_add(const T (&m)[R][R], const Vec<C, T> (&p)[R], Vec<C, T> (&out)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int j = 0; j < R; ++j) fma_into(out[i], m[i][j], p[j]);
}

// The exact causal initial feedback (y_{-1}, ..., y_{-r}) of the infinite extension of a line of n
// samples, by running the recursion over the `pad` extended samples before it (the impulse
// response has decayed below 1e-10 of its mass after `pad` samples), in double. `load(j)` reads
// sample j as Vec<C, float>; `outside` is the constant extension's value.
template <int R, int C, class Load>
RF_HDI void causal_seed(const Coeffs<R, double>& f, Extension ext, double outside, int n, int pad,
                        Load load, Vec<C, double> (&w)[R]) {
#pragma unroll
  for (int k = 0; k < R; ++k) w[k] = zero_vec<C, double>();
  if (ext == Extension::Ignore || ext == Extension::Zero) return;
  for (int i = -pad; i < 0; ++i) {
    const int j = extend_index(i, n, ext);
    recursion_step(f, j < 0 ? filled<C>(outside) : convert<double>(load(j)), w);
  }
}

// The part of the anticausal initial feedback (z_n, ..., z_{n+r-1}) that the extension's samples
// beyond the line contribute when the causal state at n is zero. The rest, linear in the causal
// state at the end of the line, is added by the caller with the matrix N of OverlappedPlan.
// z_{n+m} = sum_{j>=0} g_j y_{n+m+j} with g the anticausal impulse response (pad + r taps).
template <int R, int C, class Load>
RF_HDI void anticausal_seed_from_tail(const Coeffs<R, double>& f, Extension ext, double outside,
                                      int n, int pad, const double* g, Load load,
                                      Vec<C, double> (&acc)[R]) {
#pragma unroll
  for (int k = 0; k < R; ++k) acc[k] = zero_vec<C, double>();
  if (ext == Extension::Ignore || ext == Extension::Zero) return;
  Vec<C, double> w[R];
#pragma unroll
  for (int k = 0; k < R; ++k) w[k] = zero_vec<C, double>();
  for (int q = 0; q < pad + R; ++q) {
    const int j = extend_index(n + q, n, ext);
    const Vec<C, double> y =
        recursion_step(f, j < 0 ? filled<C>(outside) : convert<double>(load(j)), w);
#pragma unroll
    for (int m = 0; m < R; ++m)
      if (q >= m) fma_into(acc[m], g[q - m], y);
  }
}

}  // namespace rf::cuda
