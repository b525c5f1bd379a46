// The line recurrences of Lee et al. 2014 (one-way and two-way partitioned YVRG), shared by the
// double reference, the OpenMP float path and the CUDA kernels (host and device).
//
// Spec: Lee et al., "Two-way partitioned recursive Gaussian filter", EURASIP JIVP 2014.
//   eq. (3), forward:  w[x] = B in[x] + (b1 w[x-1] + b2 w[x-2] + b3 w[x-3]) / b0
//   eq. (4), backward: out[x] = B w[x] + (b1 out[x+1] + b2 out[x+2] + b3 out[x+3]) / b0
// Both are one step applied in opposite directions. The boundary handling is the paper's (Fig. 3):
// the edge sample is duplicated as the three previous outputs, which is the steady state of a
// constant line since B + (b1 + b2 + b3) / b0 = 1.
#pragma once

#include "../core/hd.h"

namespace rf::lee2014 {

// The coefficients of eq. (3)-(4) with the division by b0 folded in: c_k = b_k / b0.
template <typename T>
struct Coeffs {
  T B, c1, c2, c3;
};

// One line of samples `stride` elements apart (a row of an interleaved image, a column, or the
// intermediate w[] of one line laid out line-interleaved as the kernels keep it).
template <typename S, typename Index>
struct Strided {
  S* p;
  Index stride;
  RF_HDI S& operator[](Index i) const { return p[i * stride]; }
};

// Runs eq. (3) (dir = +1) or eq. (4) (dir = -1) over n samples from index `first`, reading x and
// writing y at the same indices (x and y may be the same line). The three previous outputs start
// as `edge` (Fig. 3 at the image border, Fig. 5 at the centre pixel Pc).
template <typename T, typename S, typename Index>
RF_HDI void pass(const Coeffs<T>& k, Strided<const S, Index> x, Strided<S, Index> y, Index first,
                 Index n, int dir, T edge) {
  T p1 = edge, p2 = edge, p3 = edge;
  Index i = first;
  for (Index m = 0; m < n; ++m, i += dir) {
    const T v = k.B * T(x[i]) + (k.c1 * p1 + k.c2 * p2 + k.c3 * p3);
    y[i] = S(v);
    p3 = p2;
    p2 = p1;
    p1 = v;
  }
}

// The centre pixel Pc: a direct (FIR) Gaussian of eq. (2) at sample c of a line of n samples,
// with weights[j] for offsets -radius..radius (weights[radius] is the centre tap). Samples beyond
// the line repeat the edge sample, the same duplication the recursive passes use.
template <typename T, typename S, typename W, typename Index>
RF_HDI T centre_gaussian(Strided<const S, Index> x, Index n, Index c, const W* weights,
                         int radius) {
  T sum = T(0);
  for (int j = -radius; j <= radius; ++j) {
    Index i = c + j;
    i = i < 0 ? Index(0) : (i >= n ? n - 1 : i);
    sum += T(weights[j + radius]) * T(x[i]);
  }
  return sum;
}

// One-way YVRG on one line (Fig. 2): forward pass of eq. (3) from the left edge into w, then the
// backward pass of eq. (4) from the right edge into out. out may be x.
template <typename T, typename S, typename Index>
RF_HDI void one_way_line(const Coeffs<T>& k, Strided<const S, Index> x, Strided<S, Index> w,
                         Strided<S, Index> out, Index n) {
  pass<T>(k, x, w, Index(0), n, +1, T(x[0]));
  pass<T>(k, Strided<const S, Index>{w.p, w.stride}, out, n - 1, n, -1, T(w[n - 1]));
}

// The centre index of the two-way partition (Fig. 4): Bl = [0, c), Pc = c, Br = (c, n).
template <typename Index>
RF_HDI Index centre_index(Index n) {
  return n / 2;
}

// Two-way first pass (Fig. 6, top), the three parts are independent:
//   part 0, Bl: eq. (3) forward from the left edge over [0, c) into w;
//   part 1, Pc: returns the direct Gaussian at c (other parts return 0);
//   part 2, Br: eq. (4) backward from the right edge over (c, n) into w.
template <typename T, typename S, typename W, typename Index>
RF_HDI T two_way_first(const Coeffs<T>& k, int part, Strided<const S, Index> x, Strided<S, Index> w,
                       Index n, const W* weights, int radius) {
  const Index c = centre_index(n);
  if (part == 0) {
    if (c > 0) pass<T>(k, x, w, Index(0), c, +1, T(x[0]));
    return T(0);
  }
  if (part == 1) return centre_gaussian<T>(x, n, c, weights, radius);
  if (n - 1 > c) pass<T>(k, x, w, n - 1, n - 1 - c, -1, T(x[n - 1]));
  return T(0);
}

// Two-way second pass (Fig. 6, bottom), started from Pc as Fig. 5 shows (Algorithm 1, lines 14
// and 21: Pc stands for the three previous outputs):
//   part 0, Bl: eq. (4) backward from c - 1 down to 0;
//   part 1, Pc: writes out[c] = Pc;
//   part 2, Br: eq. (3) forward from c + 1 up to n - 1.
template <typename T, typename S, typename Index>
RF_HDI void two_way_second(const Coeffs<T>& k, int part, Strided<const S, Index> w,
                           Strided<S, Index> out, Index n, T pc) {
  const Index c = centre_index(n);
  if (part == 0) {
    if (c > 0) pass<T>(k, w, out, c - 1, c, -1, pc);
  } else if (part == 1) {
    out[c] = S(pc);
  } else if (n - 1 > c) {
    pass<T>(k, w, out, c + 1, n - 1 - c, +1, pc);
  }
}

}  // namespace rf::lee2014
