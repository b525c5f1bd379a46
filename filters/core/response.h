// The frequency response of a recursive design: what the filter does to each frequency, beside
// the Gaussian it approximates. Read by rfstudio's response view and `rfcli coeffs --response`.
#pragma once

#include <complex>
#include <optional>
#include <vector>

#include "design.h"

namespace rf {

// True for the kinds designed to approximate a Gaussian (filter_table.h says which).
bool approximates_gaussian(FilterKind kind);

// The gain at angular frequency omega (radians per sample), with A(z) = 1 + sum_k a_k z^-k:
// |b0 / A(e^{i omega})|^2 for a causal + anticausal pair, whose transfer function
// b0^2 / (A(z) A(1/z)) is real and non-negative on the unit circle (zero phase), and
// |b0 / A(e^{i omega})| for a causal-only filter. Infinite where a pole lies on the unit circle
// (the summed-area table at omega = 0).
double response_gain(const Recursive& f, double omega);

// exp(-sigma^2 omega^2 / 2): the Fourier transform of the Gaussian of standard deviation sigma.
double gaussian_gain(double sigma, double omega);

struct ResponsePoint {
  double omega = 0.0;
  double gain = 0.0;
  std::optional<double> ideal;  // the Gaussian's gain, for the kinds that approximate one
};

// n points on [0, pi], both ends included: omega_k = pi k / (n - 1). Throws InvalidParameter for
// n < 2 and for a spec without fixed coefficients (edge-aware).
std::vector<ResponsePoint> frequency_response(const FilterSpec& spec, int n);

// The response in space beside the response in frequency: a unit impulse at the centre of a line
// of 2 half + 1 samples through the causal pass and, for a pair, the anticausal pass, both
// started from zero; and the poles of the causal pass that shape it (the anticausal pass has 1/p).
struct LineResponse {
  int half = 0;                             // the line runs from -half to half
  std::vector<double> values;               // 2 half + 1 samples, the impulse's at values[half]
  std::vector<std::complex<double>> poles;  // roots of z^r + a_1 z^(r-1) + ... + a_r
};

// The line is as long as the response needs to decay below about 1e-17 of its peak, and at most
// max_half samples either side; a response that never decays (a pole on the unit circle: the
// summed-area table) gets max_half. Throws InvalidParameter for max_half < 0.
LineResponse line_impulse_response(const Recursive& f, int max_half);

}  // namespace rf
