// Double-precision references of the recursive family. (b) and the FIR Gaussian share no code with
// the fast paths. rf::ground_truth (truth/truth.h) picks the one a filter kind is judged by.
#pragma once

#include <functional>
#include <vector>

#include "../core/design.h"
#include "../core/extension.h"
#include "../core/image.h"
#include "../core/spec.h"

namespace rf::ref {

// (a) Sequential causal then anticausal filtering of one line, started with the exact initial
// windows of the extension that the plan-time algebra gives (Nehab & Maximo 2016;
// recursive/direct_form.h): the algebra's own check against (b).
// `cval` is the value past the ends under Extension::Constant, here and below.
std::vector<double> filter_line_exact(const Recursive& f, Extension ext,
                                      const std::vector<double>& x, double cval = 0.0);

// (b) Sequential filtering over an explicit padding long enough for the impulse response to decay
// below double rounding: the ground truth for the recursive filters.
std::vector<double> filter_line_padded(const Recursive& f, Extension ext,
                                       const std::vector<double>& x, double cval = 0.0);

// What lies past the rows' ends under Extension::Constant: the column filter of the constant,
// filtered here as a line of one sample continued by the same value.
double padded_constant_after(const Recursive& columns, double cval);

// (b) on a host image of any channel count: columns (filters.y), then rows (filters.x), kept in
// double. Under Extension::Constant the image is continued by cval in every direction: the rows
// see the column filter of that constant past their ends.
// A derivative of order dx along x and dy along y (0, 1 or 2; `filters` designed for it, as
// design_axes gives them) differences the padded lines before filtering them, where the engines
// difference the filtered image (filters/core/derivative.h): equal on an infinite line.
std::vector<double> filter_image_padded(const AxisDesigns& filters, Extension ext, const Image& in,
                                        double cval = 0.0, int dx = 0, int dy = 0);

// The sampled Gaussian of standard deviation sigma, normalised to unit sum and truncated at
// ceil(6 sigma), applied to the columns then the rows of a host image with the extension (Ignore
// reads as Zero), in double: the ground truth of the kinds that approximate a Gaussian.
std::vector<double> fir_gaussian(const Image& in, double sigma, Extension ext, double cval = 0.0);
// The same with a sigma per axis: sigma_y down the columns, sigma_x along the rows, and the
// sampled Gaussian derivative of order dx along x and dy along y (0, 1 or 2): scipy.ndimage's.
std::vector<double> fir_gaussian(const Image& in, double sigma_x, double sigma_y, Extension ext,
                                 double cval = 0.0, int dx = 0, int dy = 0);

// One line of the same: the sampled Gaussian of sigma (or its derivative of order 1 or 2),
// truncated at ceil(6 sigma), with the extension, in double.
std::vector<double> fir_gaussian_line(const std::vector<double>& x, double sigma, Extension ext,
                                      double cval = 0.0, int derivative = 0);

// What a spec computes, in double, with its derivative and measure (spec.h, Derivative) made of
// partials computed by `partial(term, dx, dy)`, a spec with that partial: the references above
// composed as the engines compose the fast paths (the two-term measures, the scale).
std::vector<double> with_derivative(
    const FilterSpec& spec,
    const std::function<std::vector<double>(const FilterSpec&, int, int)>& partial);

// (b) of a whole spec of a recursive kind: filter_image_padded of design_axes(spec), with its
// derivative (with_derivative), in double.
std::vector<double> padded_reference(const FilterSpec& spec, const Image& in);

}  // namespace rf::ref
