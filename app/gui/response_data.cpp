#include "app/gui/response_data.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "filters/core/response.h"

namespace rf::gui {
namespace {

constexpr double kMinDecibels = -300.0;
// The impulse plot shows at least this many samples either side, and at most kMaxHalf.
constexpr int kMinHalf = 8, kMaxHalf = 4096;

// The sampled B-spline kernel of odd degree, centre to edge (design.cpp inverts the same).
std::vector<double> bspline_kernel(FilterKind kind) {
  switch (kind) {
    case FilterKind::BSpline3:
      return {4.0 / 6.0, 1.0 / 6.0};
    case FilterKind::BSpline5:
      return {66.0 / 120.0, 26.0 / 120.0, 1.0 / 120.0};
    case FilterKind::BSpline7:
      return {2416.0 / 5040.0, 1191.0 / 5040.0, 120.0 / 5040.0, 1.0 / 5040.0};
    default:
      return {};
  }
}

double nice_ceiling(double v) {
  if (!(v > 0)) return 1.0;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
    if (m * p >= v) return m * p;
  return 10 * p;
}

}  // namespace

double to_decibels(double gain) {
  if (!(gain > 0)) return kMinDecibels;
  return std::max(kMinDecibels, 20.0 * std::log10(gain));
}

ResponseData compute_response(const FilterSpec& spec, int points) {
  ResponseData d;
  d.spec = spec;
  try {
    const Recursive f = design(spec);
    d.coefficients = f;
    d.causal_only = f.causal_only;
    for (const ResponsePoint& p : frequency_response(spec, points)) {
      d.omega.push_back(p.omega);
      d.gain.push_back(p.gain);
      if (p.ideal) d.ideal.push_back(*p.ideal);
    }
    const std::vector<double> kernel = bspline_kernel(spec.kind);
    for (double w : d.omega) {
      if (kernel.empty()) break;
      double b = kernel[0];
      for (std::size_t k = 1; k < kernel.size(); ++k)
        b += 2.0 * kernel[k] * std::cos(double(k) * w);
      d.kernel.push_back(b);
    }
    // The impulse response on a line long enough for the plot, then cut where it has decayed to
    // 1e-3 of its peak (a summed-area table never decays: it shows 32 samples).
    const bool gaussian = approximates_gaussian(spec.kind);
    LineResponse line = line_impulse_response(f, f.causal_only ? 32 : 2 * kMaxHalf);
    d.poles = std::move(line.poles);
    const int line_half = line.half;
    const std::vector<double>& h = line.values;
    double peak = 0.0;
    for (double v : h) peak = std::max(peak, std::abs(v));
    int half = kMinHalf;
    if (f.causal_only) {
      half = line_half;
    } else {
      for (int i = 0; i <= line_half; ++i)
        if (std::abs(h[line_half + i]) > 1e-3 * peak) half = std::max(half, i + 1);
      if (gaussian) half = std::max(half, int(std::ceil(4.0 * spec.sigma)));
      half = std::min({half, line_half, kMaxHalf});
    }
    d.half = half;
    d.impulse.assign(h.begin() + (line_half - half), h.begin() + (line_half + half + 1));
    if (gaussian) {
      // Normalised over +-12 sigma, as rf::gaussian_design_error does.
      const int wide = int(std::ceil(12.0 * spec.sigma)) + 8;
      double sum = 0.0;
      for (int i = -wide; i <= wide; ++i) sum += std::exp(-0.5 * i * i / (spec.sigma * spec.sigma));
      for (int i = -half; i <= half; ++i)
        d.sampled.push_back(std::exp(-0.5 * i * i / (spec.sigma * spec.sigma)) / sum);
      d.design_error = gaussian_design_error(spec);
    }
  } catch (const std::exception& e) {
    ResponseData empty;
    empty.spec = spec;
    empty.error = e.what();
    return empty;
  }
  return d;
}

namespace {

// The four cells of the response view: two rows and two columns below the header, each keeping a
// title line above its plot and tick labels left of it and below it.
struct CellGrid {
  float x = 0, y = 0, cell_w = 0, cell_h = 0, gap = 0, left = 0, title = 0, bottom = 0;

  CellGrid(float x_, float y_, float w, float h, float em)
      : x(x_), y(y_), gap(em), left(4.2f * em), title(1.6f * em), bottom(1.5f * em) {
    cell_w = std::floor((w - 3 * gap) / 2);
    cell_h = std::floor((h - 3 * gap) / 2);
  }

  PlotFrame frame(int col, int row) const {
    PlotFrame p;
    p.x0 = std::floor(x + gap + col * (cell_w + gap) + left);
    p.x1 = std::floor(x + gap + col * (cell_w + gap) + cell_w);
    p.y0 = std::floor(y + gap + row * (cell_h + gap) + title);
    p.y1 = std::floor(y + gap + row * (cell_h + gap) + cell_h - bottom);
    p.x1 = std::max(p.x1, p.x0 + 1);
    p.y1 = std::max(p.y1, p.y0 + 1);
    return p;
  }
};

// The linear gain on [0, pi], up to a round value above the gain and the B-spline kernel's.
void fit_linear_gain(const ResponseData& d, PlotFrame& f) {
  f.xmin = 0;
  f.xmax = std::acos(-1.0);
  double top = 1.0;
  for (const std::vector<double>* v : {&d.gain, &d.kernel})
    for (double g : *v)
      if (std::isfinite(g)) top = std::max(top, g);
  // A summed-area table's gain grows without bound towards omega = 0: the plot stops at 20.
  f.ymax = nice_ceiling(std::min(top, 20.0) * 1.05);
  f.ymin = 0;
}

// The gain in dB on [0, pi], in whole steps of 20 dB below and 10 dB above.
void fit_decibel_gain(const ResponseData& d, PlotFrame& f) {
  f.xmin = 0;
  f.xmax = std::acos(-1.0);
  double lo = 0.0, hi = 0.0;
  for (double g : d.gain) {
    lo = std::min(lo, to_decibels(g));
    if (std::isfinite(g)) hi = std::max(hi, to_decibels(g));
  }
  f.ymin = std::max(-160.0, 20.0 * std::floor(lo / 20.0) - 20.0);
  f.ymax = std::min(40.0, 10.0 * std::ceil(hi / 10.0) + 10.0);
}

// The impulse response and the sampled Gaussian on [-half, half].
void fit_impulse(const ResponseData& d, PlotFrame& f) {
  f.xmin = -d.half - 0.5;
  f.xmax = d.half + 0.5;
  double imin = 0.0, imax = 0.0;
  for (const std::vector<double>* v : {&d.impulse, &d.sampled})
    for (double s : *v) {
      imin = std::min(imin, s);
      imax = std::max(imax, s);
    }
  if (imax <= imin) imax = imin + 1.0;
  // Headroom above the peak keeps the legend off the curves.
  const double pad = 0.08 * (imax - imin);
  f.ymin = imin < 0 ? imin - pad : 0.0;
  f.ymax = imax + 0.45 * (imax - imin);
}

// The z-plane keeps its aspect: a square in its cell, the list of poles beside it when the cell
// is wide, below it otherwise.
void place_poles(const ResponseData& d, const PlotFrame& cell, float em, ResponseLayout& l) {
  const float cw = cell.x1 - cell.x0, ch = cell.y1 - cell.y0;
  const float text_w = 15.0f * em,
              text_h = 1.2f * em * float(std::max<std::size_t>(1, d.poles.size())) + 2.0f * em;
  PlotFrame& z = l.poles;
  float side;
  if (cw - ch >= text_w) {
    side = ch;
    z.x0 = cell.x0;
    z.y0 = cell.y0;
    l.pole_text_x = z.x0 + side + 1.5f * em;
    l.pole_text_y = z.y0;
  } else {
    side = std::max(1.0f, std::min(cw, ch - text_h));
    z.x0 = std::floor(cell.x0 + 0.5f * (cw - side));
    z.y0 = cell.y0;
    l.pole_text_x = cell.x0;
    l.pole_text_y = z.y0 + side + 2.0f * em;
  }
  side = std::floor(side);
  z.x1 = z.x0 + side;
  z.y1 = z.y0 + side;
  double extent = 1.3;
  if (!d.causal_only)
    for (const std::complex<double>& p : d.poles)
      if (std::abs(p) > 0 && 1.0 / std::abs(p) <= 2.5) extent = std::max(extent, 1.1 / std::abs(p));
  z.xmin = z.ymin = -extent;
  z.xmax = z.ymax = extent;
}

}  // namespace

ResponseLayout response_layout(const ResponseData& d, float x, float y, float w, float h,
                               float em) {
  ResponseLayout l;
  l.header_x = x + em;
  l.header_y = y + 0.5f * em;
  const float header = 3.0f * em;  // two lines
  const CellGrid grid(x, y + header, w, h - header, em);
  l.linear = grid.frame(0, 0);
  fit_linear_gain(d, l.linear);
  l.decibel = grid.frame(1, 0);
  fit_decibel_gain(d, l.decibel);
  l.impulse = grid.frame(0, 1);
  fit_impulse(d, l.impulse);
  place_poles(d, grid.frame(1, 1), em, l);
  return l;
}

}  // namespace rf::gui
