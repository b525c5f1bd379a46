// Gaussian derivatives as both engines take them: smooth, then difference; exact at the border
// under every extension.
//
// A derivative of order 1 or 2 along an axis is a difference of the image smoothed for it
// (design.h: smoothing_sigma, difference_variance). The difference at the border reads the
// smoothed image one sample beyond it, which must be the smoothing of the extended image there:
//   - under mirror, reflect101 and repeat it is the smoothed image continued by the same
//     extension, since a symmetric filter (h_k = h_-k, causal times anticausal) keeps the
//     extension's symmetry and period: the difference reads it through extend_index;
//   - under clamp, zero and constant it is not, but the image padded by one sample along each
//     differenced axis with its own extension is continued by that extension exactly as the image
//     is: the engines smooth the padded image and difference its result.
// The measures are made of partials: the gradient magnitude of d/dx and d/dy, the Laplacian of
// d2/dx2 and d2/dy2, each smoothed for its own derivative.
// On CUDA, where the smoothing runs on algorithm 5 or 6, the output stage takes the difference
// itself from the block carries, with no buffer (fully_overlapped.h, OutputDifference): along x
// under every extension, along y under those that continue the smoothed image, and under the
// others on the image with a row of the extension above and below, read from the image as it is;
// a measure's second term combines the first's buffer as it is written.
#pragma once

#include <string>
#include <vector>

#include "extension.h"
#include "hd.h"
#include "spec.h"

namespace rf {

// The weight of sample i + offset (offset -1, 0 or 1) in the difference of `order` at i.
RF_HD constexpr float difference_weight(int order, int offset) {
  if (order == 1) return offset == 0 ? 0.0f : 0.5f * float(offset);
  if (order == 2) return offset == 0 ? -2.0f : 1.0f;
  return offset == 0 ? 1.0f : 0.0f;
}

// Whether the smoothed image continues beyond its border by the extension itself.
RF_HD constexpr bool continues_smoothed(Extension ext) {
  return ext == Extension::Mirror || ext == Extension::Reflect101 || ext == Extension::Repeat;
}

// What the combining pass reads and writes: plain values, for the kernels' arguments. Each term
// is a sum of taps, the nonzero products of the two axes' difference weights (times the term's
// scale), at offsets -1..1 along x and y; a partial of orders (2, 2) has nine.
struct DerivativeArgs {
  static constexpr int kMaxTerms = 2, kMaxTaps = 9;
  int terms = 1;
  int taps[kMaxTerms] = {};
  int tap_x[kMaxTerms][kMaxTaps] = {}, tap_y[kMaxTerms][kMaxTaps] = {};
  float weight[kMaxTerms][kMaxTaps] = {};
  Derivative::Measure measure = Derivative::Measure::Partial;
  Extension ext = Extension::Mirror;
  int width = 0, height = 0;  // of the image (the smoothed buffers are padded by pad_x, pad_y)
  int pad_x = 0, pad_y = 0;
};

// The index into a smoothed buffer along an axis of n samples padded by `pad` of sample i of
// the image, for i in [-1, n].
RF_HD constexpr int smoothed_index(int i, int n, int pad, Extension ext) {
  return pad ? i + pad : extend_index(i, n, ext);
}

// The measure from the terms' sums: the root of their squares for the gradient magnitude, their
// sum otherwise.
RF_HD inline bool squares_terms(const DerivativeArgs& a) {
  return a.measure == Derivative::Measure::GradientMagnitude;
}

// The plan of a derivative: the smoothing of each term (a spec with the term's partial and no
// measure), and the combining pass.
struct DerivativePlan {
  std::vector<FilterSpec> smoothing;  // one per term
  std::vector<double> scale;          // one per term: its taps' factor (sigma^order, normalised)
  DerivativeArgs args;
};

// For spec.derivative.any(), validated; frames of width x height.
DerivativePlan derivative_plan(const FilterSpec& spec, int width, int height);

// The stages both engines time: each term's smoothing, then the differences and the measure.
std::vector<std::string> derivative_stages(const DerivativeArgs& a);

}  // namespace rf
