#include "app/gui/panels/filter_choices.h"

#include <algorithm>

#include "filters/core/engine.h"
#include "filters/core/filter_table.h"

namespace rf::gui {
namespace {

// The sigmas a slider spans when the design allows more: below half a pixel the Gaussian is
// nearly one tap, beyond 256 pixels wider than most frames.
constexpr double kSliderMinSigma = 0.5, kSliderMaxSigma = 256.0;

}  // namespace

std::vector<std::pair<FilterKind, std::string>> kind_choices() {
  std::vector<std::pair<FilterKind, std::string>> out;
  for (const KindInfo& k : kind_table()) {
    std::string label = std::string(k.title) + " (" + k.name;
    if (k.params.has(Param::Order)) label += ", order " + orders_text(k);
    out.emplace_back(k.kind, label + ")");
  }
  return out;
}

std::vector<int> order_choices(FilterKind kind) {
  const KindInfo& k = info(kind);
  std::vector<int> out;
  if (k.params.has(Param::Order))
    for (const OrderInfo& o : k.orders) out.push_back(o.order);
  return out;
}

std::vector<Extension> extension_choices(FilterKind kind) {
  return info(kind).extensions;
}

std::string extension_hint(Extension ext) {
  const ExtensionInfo& e = info(ext);
  std::string out = std::string(e.name) + ": " + e.picture + ", " + e.description;
  if (*e.gl) out += std::string(" (") + e.gl + ")";
  return out;
}

std::vector<std::pair<Derivative, std::string>> derivative_choices(FilterKind kind) {
  if (!info(kind).params.has(Param::Derivative)) return {};
  std::vector<std::pair<Derivative, std::string>> out;
  const struct {
    int x, y;
    const char* label;
  } partials[] = {{0, 0, "none (the smoothed image)"},
                  {1, 0, "d/dx"},
                  {0, 1, "d/dy"},
                  {2, 0, "d2/dx2"},
                  {0, 2, "d2/dy2"},
                  {1, 1, "d2/dxdy"}};
  for (const auto& p : partials) {
    Derivative d;
    d.x = p.x;
    d.y = p.y;
    out.emplace_back(d, p.label);
  }
  Derivative g;
  g.measure = Derivative::Measure::GradientMagnitude;
  out.emplace_back(g, "gradient magnitude");
  Derivative l;
  l.measure = Derivative::Measure::Laplacian;
  out.emplace_back(l, "Laplacian d2/dx2 + d2/dy2");
  return out;
}

std::vector<Extension> truth_extension_choices() {
  std::vector<Extension> out;
  for (const ExtensionInfo& e : extension_table())
    if (e.ext != Extension::Ignore) out.push_back(e.ext);
  return out;
}

std::vector<Algorithm> algorithm_choices(Backend running, FilterKind kind) {
  return algorithms_for(running, kind);
}

std::vector<Backend> backend_choices() {
  std::vector<Backend> out;
  for (const BackendInfo& b : backend_table()) out.push_back(b.backend);
  return out;
}

SliderRange sigma_slider(FilterKind kind, int order) {
  const Range r = sigma_range(kind, order);
  return {float(std::max(r.lo, kSliderMinSigma)), float(std::min(r.hi, kSliderMaxSigma))};
}

FilterSpec with_order(FilterSpec spec, int order) {
  spec.order = order;
  const Range r = sigma_range(spec.kind, order);
  if (!r.contains(spec.sigma))
    spec.sigma = std::clamp(spec.sigma, std::max(r.lo, kSliderMinSigma), r.hi);
  if (spec.sigma_y && !r.contains(*spec.sigma_y))
    spec.sigma_y = std::clamp(*spec.sigma_y, std::max(r.lo, kSliderMinSigma), r.hi);
  return spec;
}

}  // namespace rf::gui
