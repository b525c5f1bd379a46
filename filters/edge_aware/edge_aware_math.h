// Recurrences of the edge-aware recursive Gaussian (domain transform), shared by the CPU backend
// and the CUDA kernels. Equation numbers refer to the edge-aware paper ("Edge-aware Gaussian GPU
// filtering with the domain transform"); its appendix gives the complex Deriche constants.
//
// One pass filters lines of samples f[0..n-1] whose spacing in the transformed domain is
// dt[k] = t(k) - t(k-1) (eq. 2). For each of the two complex poles i the causal and anticausal
// parts of eq. (4) are first-order complex recurrences, i.e. affine maps of the state:
//   causal      g+[k]   = w_k g+[k-1]   + P_k f[k]   + Q_k f[k-1]
//   anticausal  g-[k-1] = w_k g-[k]     + R_k f[k]   + S_k f[k-1]
// with w_k = b^dt[k] and, writing c_k = (w_k - 1) / (r0 dt[k]) (the Phi terms of eq. 4),
//   S_k = c_k - r1 b,  P_k = a + S_k,  Q_k = r1 w_k - c_k,  R_k = a w_k + Q_k.
// The output is y[k] = Re{ sum_i g+_i[k] + g-_i[k] }. With dt = 1 every Phi vanishes (c = r1 b)
// and the recursion is the uniform Deriche filter.
#pragma once

#include <math.h>

#include <cmath>
#include <complex>

#include "filters/core/hd.h"

namespace rf::edge {

// Segment lengths along a line. Algorithm C approximates the initial conditions of segments of
// kSegmentC samples; Algorithm D those of every block of kBlockD samples, the paper's window width
// w = 24, so the worst case of its Fig. 6 is reproduced. The exact variant stitches segments of
// kSegmentExact samples with a scan.
constexpr int kSegmentC = 64;
constexpr int kBlockD = 24;
constexpr int kSegmentExact = 64;

// Appendix constants: u+(x) = Re{alpha0 e^{-lambda0 x / sigma} + alpha1 e^{-lambda1 x / sigma}}
// (eq. 3). The appendix prints alpha1 = -0.6803 + 0.2598j; Deriche's fit has c1 = -0.2598 (the
// sine coefficient of the second term), which is what makes u+'(0) vanish as a Gaussian's does
// (with +0.2598 the slope at 0 would be about +1/sigma), so alpha1 = -0.6803 - 0.2598j.
constexpr double kAlpha0Re = 1.6800, kAlpha0Im = 3.7350;
constexpr double kAlpha1Re = -0.6803, kAlpha1Im = -0.2598;
constexpr double kLambda0Re = 1.783, kLambda0Im = 0.6318;
constexpr double kLambda1Re = 1.723, kLambda1Im = 1.9970;

template <class T>
struct Cx {
  T re, im;
};

template <class T>
RF_HDI Cx<T> operator+(Cx<T> x, Cx<T> y) {
  return {x.re + y.re, x.im + y.im};
}
template <class T>
RF_HDI Cx<T> operator-(Cx<T> x, Cx<T> y) {
  return {x.re - y.re, x.im - y.im};
}
template <class T>
RF_HDI Cx<T> operator*(Cx<T> x, Cx<T> y) {
  return {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
}
template <class T>
RF_HDI Cx<T> operator*(Cx<T> x, T s) {
  return {x.re * s, x.im * s};
}

// The constants of one complex pole for one pass of standard deviation sigma (appendix).
template <class T>
struct Pole {
  Cx<T> a;                  // a_i = alpha_i / gamma
  Cx<T> b;                  // b_i = e^{-lambda_i / sigma}
  Cx<T> inv_r0;             // 1 / r_i0 = a_i b_i / (b_i - 1)^2
  Cx<T> r1;                 // r_i1 = a_i / (b_i - 1)
  Cx<T> minus_r1b;          // -r_i1 b_i
  T rho, theta;             // lambda_i / sigma = rho + j theta
  Cx<T> steady_causal;      // g+ of a constant unit input: a / (1 - b)
  Cx<T> steady_anticausal;  // g- of a constant unit input: a b / (1 - b)
};

template <class T>
struct Poles {
  Pole<T> p[2];
};

// The appendix formulas evaluated in double; the kernels take them converted to float.
inline Poles<double> design_poles(double sigma) {
  using C = std::complex<double>;
  const C alpha[2] = {C(kAlpha0Re, kAlpha0Im), C(kAlpha1Re, kAlpha1Im)};
  const C lambda[2] = {C(kLambda0Re, kLambda0Im), C(kLambda1Re, kLambda1Im)};
  C b[2];
  double gamma = 0.0;
  for (int i = 0; i < 2; ++i) {
    b[i] = std::exp(-lambda[i] / sigma);
    gamma += (alpha[i] * (1.0 + b[i]) / (1.0 - b[i])).real();
  }
  auto cx = [](C z) { return Cx<double>{z.real(), z.imag()}; };
  Poles<double> out{};
  for (int i = 0; i < 2; ++i) {
    const C a = alpha[i] / gamma;
    const C r1 = a / (b[i] - 1.0);
    Pole<double>& p = out.p[i];
    p.a = cx(a);
    p.b = cx(b[i]);
    p.inv_r0 = cx(a * b[i] / ((b[i] - 1.0) * (b[i] - 1.0)));
    p.r1 = cx(r1);
    p.minus_r1b = cx(-r1 * b[i]);
    p.rho = lambda[i].real() / sigma;
    p.theta = lambda[i].imag() / sigma;
    p.steady_causal = cx(a / (1.0 - b[i]));
    p.steady_anticausal = cx(a * b[i] / (1.0 - b[i]));
  }
  return out;
}

template <class T>
Poles<T> cast_poles(const Poles<double>& d) {
  auto c = [](Cx<double> z) { return Cx<T>{T(z.re), T(z.im)}; };
  Poles<T> out{};
  for (int i = 0; i < 2; ++i) {
    const Pole<double>& s = d.p[i];
    Pole<T>& p = out.p[i];
    p.a = c(s.a);
    p.b = c(s.b);
    p.inv_r0 = c(s.inv_r0);
    p.r1 = c(s.r1);
    p.minus_r1b = c(s.minus_r1b);
    p.rho = T(s.rho);
    p.theta = T(s.theta);
    p.steady_causal = c(s.steady_causal);
    p.steady_anticausal = c(s.steady_anticausal);
  }
  return out;
}

// sigma_i = sigma sqrt(3) 2^(N-i) / sqrt(4^N - 1), i = 1..N: the iterations' variances sum to
// sigma^2 and halve from one iteration to the next (section IV-A of the paper).
inline double iteration_sigma(double sigma, int i, int n) {
  return sigma * std::sqrt(3.0) * std::ldexp(1.0, n - i) / std::sqrt(std::ldexp(1.0, 2 * n) - 1.0);
}

RF_HDI float exp_(float x) {
  return expf(x);
}
RF_HDI double exp_(double x) {
  return exp(x);
}
RF_HDI float expm1_(float x) {
  return expm1f(x);
}
RF_HDI double expm1_(double x) {
  return expm1(x);
}
RF_HDI void sincos_(float x, float* s, float* c) {
  *s = sinf(x);
  *c = cosf(x);
}
RF_HDI void sincos_(double x, double* s, double* c) {
  *s = sin(x);
  *c = cos(x);
}
RF_HDI float sqrt_(float x) {
  return sqrtf(x);
}
RF_HDI double sqrt_(double x) {
  return sqrt(x);
}

// The weights of one edge of spacing delta: w = b^delta in de Moivre's form,
// b^delta = e^{-rho delta} (cos(theta delta) - j sin(theta delta)) (section IV-C), and
// c = (b^delta - 1) / (r0 delta). b^delta - 1 = (e^x - 1) - e^x 2 sin^2(y / 2) (x = -rho delta,
// y = theta delta) keeps its relative precision where b^delta is close to 1 (large sigma).
template <class T>
struct EdgeWeight {
  Cx<T> w, c;
};

// The elementary functions of edge_weight(): the C library's unless a backend brings its own.
struct LibMath {
  // e^x and e^x - 1, the latter without cancellation near x = 0.
  template <class T>
  RF_HDI static void exp_expm1(T x, T* e, T* em1) {
    *e = exp_(x);
    *em1 = expm1_(x);
  }
  template <class T>
  RF_HDI static void sincos(T x, T* s, T* c) {
    sincos_(x, s, c);
  }
};

template <class T, class Math = LibMath>
RF_HDI EdgeWeight<T> edge_weight(const Pole<T>& p, T delta) {
  T e, em1, sh, ch;
  Math::exp_expm1(-p.rho * delta, &e, &em1);
  Math::sincos(T(0.5) * p.theta * delta, &sh, &ch);
  const T sin_full = T(2) * sh * ch;
  const T one_minus_cos = T(2) * sh * sh;
  EdgeWeight<T> out;
  out.w = {e - e * one_minus_cos, -e * sin_full};
  out.c = Cx<T>{em1 - e * one_minus_cos, -e * sin_full} * p.inv_r0 * (T(1) / delta);
  return out;
}

// Eq. (2): the spacing between samples k-1 and k of a line in the transformed domain. `scale2` is
// (sigma_s / sigma_r)^2 and the sum runs over the colour channels (RGB, or the one gray channel).
template <class T, int Colours>
RF_HDI T domain_step(const T* prev, const T* cur, T scale2) {
  T sum = 0;
  for (int c = 0; c < Colours; ++c) {
    const T d = cur[c] - prev[c];
    sum += d * d;
  }
  return sqrt_(T(1) + scale2 * sum);
}

// The per-edge coefficients of the causal recurrence of eq. (4):
// g+[k] = w g+[k-1] + P f[k] + Q f[k-1], for the edge dt[k].
template <class T>
struct CausalStep {
  Cx<T> w, p, q;
  RF_HDI Cx<T> operator()(Cx<T> g_prev, T f_k, T f_prev) const {
    return w * g_prev + p * f_k + q * f_prev;
  }
};

template <class T>
RF_HDI CausalStep<T> causal_step(const Pole<T>& p, EdgeWeight<T> e) {
  const Cx<T> s = e.c + p.minus_r1b;
  return {e.w, p.a + s, p.r1 * e.w - e.c};
}

// The per-edge coefficients of the anticausal recurrence of eq. (4) (whose second line writes g+
// on the right; the recursion runs on g-): g-[k-1] = w g-[k] + R f[k] + S f[k-1], for dt[k].
template <class T>
struct AnticausalStep {
  Cx<T> w, r, s;
  RF_HDI Cx<T> operator()(Cx<T> g_next, T f_k, T f_prev) const {
    return w * g_next + r * f_k + s * f_prev;
  }
};

template <class T>
RF_HDI AnticausalStep<T> anticausal_step(const Pole<T>& p, EdgeWeight<T> e) {
  const Cx<T> q = p.r1 * e.w - e.c;
  return {e.w, p.a * e.w + q, e.c + p.minus_r1b};
}

// The difference form of eq. (4), which most CUDA kernels run (edge_aware_cuda.cu). With h+ =
// g+ + r1 f and h- = g- + r1 b f (per pole, r1 = a / (b - 1)), the two recurrences above become
//   causal      h+[k]   = w_k h+[k-1] + c_k (f[k] - f[k-1])
//   anticausal  h-[k-1] = w_k h-[k]   - c_k (f[k] - f[k-1])
// (substitute: the terms in f[k] and f[k-1] alone cancel, because a + r1 (1 - b) = 0), and
// y[k] = f[k] + Re{ sum_i h+_i[k] + h-_i[k] }, since Re{ sum_i r1_i (1 + b_i) } = -1 (the gain of
// the filter is one, gamma of the appendix). The steady state of a constant input is h = 0 in
// both directions, so a recursion that starts from it starts from zero. A step costs 6 real
// operations per channel against 8, shares f[k] - f[k-1] between the poles and directions and
// needs no per-edge coefficients beyond w and c; the h are the detail the filter adds to f, so
// their rounding errors are relative to that detail instead of to the sums of eq. (4)'s
// g+ ~ a / (1 - b) f, several times f (float on the device, the CUDA suite's photograph-sized
// case: 6.0e-8 of the peak from the double reference, against 8.6e-7 for the CPU backend's float
// Algorithm A, which runs eq. (4) as printed).

}  // namespace rf::edge
