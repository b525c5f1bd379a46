// The frequency response of a recursive design: what the filter does to each frequency, beside
// the Gaussian it approximates. Read by rfstudio's response view and `rfcli coeffs --response`.
#pragma once

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

}  // namespace rf
