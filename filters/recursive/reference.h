// Double-precision references. (b) and the FIR Gaussian are independent of every fast path.
#pragma once

#include <vector>

#include "../core/design.h"
#include "../core/extension.h"
#include "../core/image.h"

namespace rf::ref {

// (a) Sequential causal then anticausal filtering of one line, started with the exact initial
// windows of the extension that the plan-time algebra gives (Nehab & Maximo 2016;
// recursive/direct_form.h): the algebra's own check against (b).
std::vector<double> filter_line_exact(const Recursive& f, Extension ext,
                                      const std::vector<double>& x);

// (b) Sequential filtering over an explicit padding long enough for the impulse response to decay
// below double rounding: the ground truth for the recursive filters.
std::vector<double> filter_line_padded(const Recursive& f, Extension ext,
                                       const std::vector<double>& x);

// (b) on a host image of any channel count: columns, then rows, kept in double.
std::vector<double> filter_image_padded(const Recursive& f, Extension ext, const Image& in);

// Ground truth for `spec` on a host image of any channel count, computed in double: the FIR
// Gaussian (truncated at >= 6 sigma) with the chosen extension for the Gaussian kinds, the padded
// sequential reference (columns, then rows) otherwise.
Image ground_truth(const FilterSpec& spec, const Image& in);

}  // namespace rf::ref
