// The algebra behind filter design, in double precision: poles <-> coefficients, the variance of a
// causal+anticausal pair, stability, and impulse responses on a line. Plain C++, no CUDA types.
#pragma once

#include <complex>
#include <vector>

#include "filters/core/design.h"

namespace rf::design_math {

using Complex = std::complex<double>;

// Expands prod_k (1 - p_k z^-1) = 1 + a_1 z^-1 + ... + a_r z^-r. Complex poles must come in
// conjugate pairs (the imaginary parts of the result are dropped). b0 = 1 + sum a_k, so that each
// pass has unit DC gain.
Recursive from_poles(const std::vector<Complex>& poles);

// Roots of the monic polynomial z^n + c_0 z^(n-1) + ... + c_(n-1), found by Durand-Kerner
// iteration and polished by Newton steps.
std::vector<Complex> monic_roots(const std::vector<double>& c);

// The poles of the causal pass: the roots of z^r + a_1 z^(r-1) + ... + a_r.
inline std::vector<Complex> poles_of(const Recursive& f) {
  return monic_roots(f.a);
}

// True when every pole lies strictly inside the unit circle, decided without root finding by the
// step-down (Schur-Cohn) recursion: the reflection coefficients k_r = a_r, ... must all satisfy
// |k| < 1.
bool is_stable(const Recursive& f);

// Variance of the impulse response of the causal+anticausal pair, from the coefficients. With
// P(t) = 1 + sum a_k e^(kt) the moment generating function of the causal pass is b0 / P(t), so its
// cumulants are those of -log P(t): variance (P'(0)^2 - P''(0) P(0)) / P(0)^2, and the anticausal
// pass adds the same again.
double pair_variance(const Recursive& f);

// Variance of the pair whose causal poles are 1/d_i: sum_i 2 d_i / (d_i - 1)^2, the formula van
// Vliet, Young and Verbeek 1998 use to scale their poles. Each first-order factor
// (1 - p) / (1 - p z^-1) is a geometric distribution of variance p / (1 - p)^2 = d / (d - 1)^2 with
// d = 1/p; variances of convolved filters add, and the anticausal pass doubles the sum.
double pair_variance_from_d(const std::vector<Complex>& d);

// van Vliet, Young and Verbeek 1998 scaling of the poles d_i (given at a reference scale) to
// d_i^(1/q), with q found by bisection so that the pair's variance is sigma^2. Throws
// InvalidParameter when no q in the search range gives sigma^2.
std::vector<Complex> scale_d_to_variance(const std::vector<Complex>& d, double sigma);

// Impulse response of the causal+anticausal pair for a unit impulse at the centre of a line of
// 2 * half + 1 samples, both passes started from zero.
std::vector<double> pair_impulse_response(const Recursive& f, int half);

// Half-length of a line on which the pair's impulse response decays below ~1e-17 of its peak.
int decay_half_length(const Recursive& f);

}  // namespace rf::design_math
