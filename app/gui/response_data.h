// What the response view draws, computed from a FilterSpec alone: the gain against frequency next
// to the Gaussian's, the impulse response next to the sampled Gaussian, the poles, the design
// error. Plain math and layout, no GL, unit-tested.
#pragma once

#include <complex>
#include <optional>
#include <string>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/spec.h"

namespace rf::gui {

struct ResponseData {
  FilterSpec spec;
  std::string error;  // why there is nothing to draw (edge-aware, a refused parameter)
  bool causal_only = false;
  // rf::frequency_response on [0, pi]; `ideal` empty unless the kind approximates a Gaussian.
  std::vector<double> omega, gain, ideal;
  // For the B-spline prefilters: the sampled B-spline kernel's gain, which the prefilter inverts.
  std::vector<double> kernel;
  // The impulse response on [-half, half] (the pair's, or the causal pass's) and the sampled,
  // unit-sum Gaussian of the same sigma (empty unless the kind approximates a Gaussian).
  int half = 0;
  std::vector<double> impulse, sampled;
  std::vector<std::complex<double>> poles;  // of the causal pass; the anticausal pass has 1/p
  std::optional<DesignError> design_error;
  Recursive coefficients;
};

// Throws nothing: a spec without fixed coefficients gives `error`.
ResponseData compute_response(const FilterSpec& spec, int points = 512);

// One plot: a screen rectangle (pixels, y down) and the data range it shows.
struct PlotFrame {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  double xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  float sx(double x) const { return x0 + float((x - xmin) / (xmax - xmin)) * (x1 - x0); }
  float sy(double y) const { return y1 - float((y - ymin) / (ymax - ymin)) * (y1 - y0); }
};

// The four plots of the response view inside the rectangle (x, y, w, h), below a header line,
// with room for titles and labels of text height `em`: gain (linear) top left, gain in dB top
// right, impulse response bottom left, poles bottom right (square, centred on z = 0, wide enough
// for the anticausal poles 1/p up to |1/p| = 2.5).
struct ResponseLayout {
  float header_x = 0, header_y = 0;  // two lines across the top: the spec, what the design is
  PlotFrame linear, decibel, impulse, poles;
  float pole_text_x = 0, pole_text_y = 0;  // the poles by value, beside or below the plane
};
ResponseLayout response_layout(const ResponseData& data, float x, float y, float w, float h,
                               float em);

// 20 log10 of a gain, floored for plotting.
double to_decibels(double gain);

}  // namespace rf::gui
