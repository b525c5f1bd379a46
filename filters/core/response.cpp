#include "filters/core/response.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include "filters/core/errors.h"
#include "filters/core/filter_table.h"
#include "filters/core/gaussian_design.h"

namespace rf {

bool approximates_gaussian(FilterKind kind) {
  return info(kind).approximates_gaussian;
}

double response_gain(const Recursive& f, double omega) {
  // A(e^{i omega}) = 1 + sum_k a_k e^{-i k omega}.
  std::complex<double> a = 1.0;
  for (int k = 1; k <= f.order(); ++k) a += f.a[k - 1] * std::polar(1.0, -double(k) * omega);
  const double magnitude = std::abs(a);
  if (magnitude == 0.0) return std::numeric_limits<double>::infinity();
  const double one_pass = std::abs(f.b0) / magnitude;
  return f.causal_only ? one_pass : one_pass * one_pass;
}

double gaussian_gain(double sigma, double omega) {
  return std::exp(-0.5 * sigma * sigma * omega * omega);
}

std::vector<ResponsePoint> frequency_response(const FilterSpec& spec, int n) {
  if (n < 2)
    throw InvalidParameter("the response needs at least 2 points on [0, pi] (got " +
                           std::to_string(n) + ")");
  const Recursive f = design(spec);
  const bool ideal = approximates_gaussian(spec.kind);
  const double pi = std::acos(-1.0);
  std::vector<ResponsePoint> out(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    ResponsePoint& p = out[k];
    // The last point is pi exactly, not pi (n - 1) / (n - 1) rounded.
    p.omega = k == n - 1 ? pi : pi * double(k) / double(n - 1);
    p.gain = response_gain(f, p.omega);
    if (ideal) p.ideal = gaussian_gain(spec.sigma, p.omega);
  }
  return out;
}

LineResponse line_impulse_response(const Recursive& f, int max_half) {
  if (max_half < 0)
    throw InvalidParameter("the impulse response needs a line of at least one sample (got half " +
                           std::to_string(max_half) + ")");
  LineResponse r;
  r.poles = design_math::poles_of(f);
  r.half =
      design_math::is_stable(f) ? std::min(max_half, design_math::decay_half_length(f)) : max_half;
  r.values = design_math::pair_impulse_response(f, r.half);
  return r;
}

}  // namespace rf
