#include "app/gui/view_settings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace rf::gui {
namespace {

const std::pair<ViewMode, const char*> kViewModes[] = {
    {ViewMode::Original, "original"}, {ViewMode::Result, "result"},
    {ViewMode::Diff, "diff"},         {ViewMode::Split, "split"},
    {ViewMode::SideBySide, "side"},   {ViewMode::Tiles, "tiles"},
    {ViewMode::Profile, "profile"},   {ViewMode::Impulse, "impulse"},
    {ViewMode::Response, "response"}, {ViewMode::Race, "race"},
};
const std::pair<TruthMode, const char*> kTruthModes[] = {{TruthMode::Fir, "fir"},
                                                         {TruthMode::Padded, "padded"},
                                                         {TruthMode::OtherExtension, "extension"}};

}  // namespace

DerivativeView derivative_view(const FilterSpec& spec, float gain) {
  DerivativeView v;
  const Derivative& d = spec.derivative;
  if (!d.any()) return v;
  v.view = d.measure == Derivative::Measure::GradientMagnitude ? SignedView::Magnitude
                                                               : SignedView::Diverging;
  // The largest of its partials (a measure's size is one partial's).
  const double sx = spec.sigma, sy = sigma_along(spec, Axis::Y);
  double scale = std::numeric_limits<double>::infinity();
  for (const Partial& p : partials(d))
    scale = std::min(scale, std::pow(sx, p.x) * std::pow(sy, p.y));
  if (d.normalized) scale = 1.0;
  v.range = float(0.5 / scale / std::max(gain, 1e-6f));
  return v;
}

const char* to_string(ViewMode m) {
  for (const auto& [mode, name] : kViewModes)
    if (mode == m) return name;
  return "?";
}
const char* to_string(TruthMode m) {
  for (const auto& [mode, name] : kTruthModes)
    if (mode == m) return name;
  return "?";
}
std::optional<ViewMode> parse_view_mode(std::string_view s) {
  for (const auto& [mode, name] : kViewModes)
    if (s == name) return mode;
  return std::nullopt;
}
std::optional<TruthMode> parse_truth_mode(std::string_view s) {
  for (const auto& [mode, name] : kTruthModes)
    if (s == name) return mode;
  return std::nullopt;
}

}  // namespace rf::gui
