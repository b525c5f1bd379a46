// The causal and anticausal recurrences of a recursive filter of order R, shared by the CPU code
// and the CUDA kernels (host and device). Coefficient convention of design.h:
//   causal      y_i = b0 x_i - sum_{k=1..R} a_k y_{i-k}
//   anticausal  z_i = b0 y_i - sum_{k=1..R} a_k z_{i+k}
// Both are the same step applied in opposite directions; the feedback window w is "nearest
// first" as in block_algebra.h and initial_feedback.h: w[0] is the previous output in the
// direction of travel (y_{i-1} causally, z_{i+1} anticausally), w[R-1] the oldest.
#pragma once

#include "filters/core/hd.h"

namespace rf {

// Filter coefficients of order R in the arithmetic type T (float in the fast paths).
template <int R, typename T>
struct Coefficients {
  T b0;
  T a[R];  // a_1 .. a_R
};

// One step: returns b0 x - sum a_k w[k-1] and pushes it to the front of the window.
template <int R, typename T>
RF_HDI T recursive_step(const Coefficients<R, T>& c, T x, T (&w)[R]) {
  T out = c.b0 * x;
  for (int k = 0; k < R; ++k) out -= c.a[k] * w[k];
  for (int k = R - 1; k > 0; --k) w[k] = w[k - 1];
  w[0] = out;
  return out;
}

// Filters n samples at x[0], x[stride], ... causally (in place allowed), starting from window w
// (y[-1], ..., y[-R]); w ends as (y[n-1], ..., y[n-R]).
template <int R, typename T, typename Index>
RF_HDI void causal_line(const Coefficients<R, T>& c, const T* x, T* y, Index n, Index stride,
                        T (&w)[R]) {
  for (Index i = 0; i < n; ++i) y[i * stride] = recursive_step(c, x[i * stride], w);
}

// Filters n samples anticausally from the last one back, starting from window w
// (z[n], ..., z[n+R-1]); w ends as (z[0], ..., z[R-1]).
template <int R, typename T, typename Index>
RF_HDI void anticausal_line(const Coefficients<R, T>& c, const T* y, T* z, Index n, Index stride,
                            T (&w)[R]) {
  for (Index i = n - 1; i >= 0; --i) z[i * stride] = recursive_step(c, y[i * stride], w);
}

// Calls fn(std::integral_constant-like tag) with the compile-time order for r = 1..5; returns
// false for any other r. Usage: with_order(r, [&](auto tag) { constexpr int R =
// decltype(tag)::value; });
template <int R>
struct OrderTag {
  static constexpr int value = R;
};

template <typename Fn>
inline bool with_order(int r, Fn&& fn) {
  switch (r) {
    case 1:
      fn(OrderTag<1>{});
      return true;
    case 2:
      fn(OrderTag<2>{});
      return true;
    case 3:
      fn(OrderTag<3>{});
      return true;
    case 4:
      fn(OrderTag<4>{});
      return true;
    case 5:
      fn(OrderTag<5>{});
      return true;
    default:
      return false;
  }
}

}  // namespace rf
