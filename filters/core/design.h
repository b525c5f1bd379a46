// Filter design in double precision: the recursive coefficients of every filter we ship.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "spec.h"

namespace rf {

// The public coefficient convention (printed by `rfcli coeffs --json`):
//   causal      y_i = b0 * x_i - sum_{k=1..r} a_k * y_{i-k}
//   anticausal  z_i = b0 * y_i - sum_{k=1..r} a_k * z_{i+k}
// applied to columns (down, then up) and then to rows (right, then left). `causal_only` filters
// (the summed-area table) skip the anticausal pass.
struct Recursive {
  double b0 = 1.0;
  std::vector<double> a;  // a_1 .. a_r
  bool causal_only = false;
  int order() const { return int(a.size()); }
};

// Throws InvalidParameter naming the parameter for a value the kind's row of filter_table.h does
// not accept: an order its design does not offer, a sigma outside the range of that order,
// |pole| >= 1, NaN or infinite values, an extension the kind does not take (the summed-area
// table: zero, or ignore, the same for it), edge-aware parameters out of range.
void validate(const FilterSpec& spec);

// The coefficients of the filter along one line (checked first).
Recursive design(const LineSpec& line);

// The coefficients for `spec` along X (validated first).
Recursive design(const FilterSpec& spec);

// The filters along the two axes of an image: columns run `y` (down, then up), rows `x`. Both
// have the same order and the same kind of poles (one kind, one order per spec); they differ
// where the spec gives a sigma per axis. One Recursive converts to the same filter on both.
// `axes` says which passes run (FilterSpec::axes); an axis left alone holds the other's filter.
struct AxisDesigns {
  Recursive x, y;
  Axes axes = Axes::Both;
  AxisDesigns(Recursive x_, Recursive y_, Axes axes_ = Axes::Both)
      : x(std::move(x_)), y(std::move(y_)), axes(axes_) {}
  AxisDesigns(const Recursive& both) : x(both), y(both) {}  // NOLINT: one filter for both axes
  const Recursive& along(Axis axis) const { return axis == Axis::X ? x : y; }
  bool filters(Axis axis) const {
    return axes == Axes::Both || (axes == Axes::X) == (axis == Axis::X);
  }
};

// A derivative of order 1 or 2 along a line is the central difference (x[i+1] - x[i-1]) / 2 or
// the second difference x[i+1] - 2 x[i] + x[i-1] of the smoothed line. At low frequency those
// act as d/dx or d2/dx2 followed by a Gaussian of variance 1/3 or 1/6 (sin(w)/w ~ exp(-w^2/6),
// (sin(w/2)/(w/2))^2 ~ exp(-w^2/12)), so the smoothing takes that much less: sigma^2 - 1/3 or
// sigma^2 - 1/6. At sigma 2 this brings the first derivative from 7.7% to 0.29% of the sampled
// Gaussian derivative, at sigma 4 from 2.0% to 0.017% (docs/design-errors.md).
double difference_variance(int derivative);  // 0, 1/3 or 1/6
// The weights of samples i-1, i and i+1 in that difference at i ({0, 1, 0} for order 0).
std::array<double, 3> difference_weights(int derivative);
double smoothing_sigma(const LineSpec& line);  // sqrt(sigma^2 - difference_variance)

// The coefficients for `spec` along each axis (validated first).
AxisDesigns design_axes(const FilterSpec& spec);

// The filter's gain at DC, H(1) of the causal and anticausal passes together: 1 for the
// normalised designs, up to rounding.
double dc_gain(const Recursive& f);

// What each pass sees beyond the image under Extension::Constant, which continues the image with
// `cval` in every direction. The columns run first and see cval itself; the rows then run over the
// column-filtered image, whose continuation is the column filter of the constant: cval times its
// gain at DC (cval itself where the columns are left alone).
struct ConstantValues {
  double columns = 0.0, rows = 0.0;
};
ConstantValues constant_values(const AxisDesigns& f, double cval);

}  // namespace rf

namespace rf {

// How far a Gaussian design's impulse response (causal + anticausal, on an infinite line) is from
// the sampled, unit-sum Gaussian of the same sigma.
struct DesignError {
  double l2_relative = 0.0;   // ||h - g||_2 / ||g||_2
  double max_relative = 0.0;  // max |h - g| / max g
};

// For the Gaussian-approximating kinds (Gaussian, Deriche, Yvrg); throws InvalidParameter
// otherwise. With a partial derivative along x (spec.derivative.x 1 or 2), the difference of the
// design smoothed for it against the sampled Gaussian derivative of unit-sum Gaussian
// (scipy.ndimage's kernel), max relative to its largest |g|.
DesignError gaussian_design_error(const FilterSpec& spec);

// Markdown tables of gaussian_design_error (L2 and max relative) for every Gaussian design
// (gaussian orders 1..5, deriche 2 and 4, yvrg) at sigma 1, 2, 4, 8, 16, 32, 64, 100, 200.
std::string design_error_table();

}  // namespace rf
