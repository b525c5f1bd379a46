#include "filters/core/derivative.h"

#include <cmath>

#include "filters/core/design.h"

namespace rf {

DerivativePlan derivative_plan(const FilterSpec& spec, int width, int height) {
  validate(spec);
  const Derivative& d = spec.derivative;
  DerivativePlan plan;
  DerivativeArgs& a = plan.args;
  a.measure = d.measure;
  a.ext = spec.ext;
  a.width = width;
  a.height = height;
  const std::vector<Partial> orders = partials(d);
  a.terms = int(orders.size());
  for (int t = 0; t < a.terms; ++t) {
    FilterSpec s = spec;
    s.derivative = Derivative{};
    s.derivative.x = orders[std::size_t(t)].x;
    s.derivative.y = orders[std::size_t(t)].y;
    const int ox = orders[std::size_t(t)].x, oy = orders[std::size_t(t)].y;
    const double scale = d.normalized ? std::pow(sigma_along(spec, Axis::X), ox) *
                                            std::pow(sigma_along(spec, Axis::Y), oy)
                                      : 1.0;
    a.taps[t] = 0;
    for (int j = -1; j <= 1; ++j)
      for (int i = -1; i <= 1; ++i) {
        const double w = double(difference_weight(ox, i)) * difference_weight(oy, j) * scale;
        if (w == 0.0) continue;
        a.tap_x[t][a.taps[t]] = i;
        a.tap_y[t][a.taps[t]] = j;
        a.weight[t][a.taps[t]] = float(w);
        ++a.taps[t];
      }
    if (!continues_smoothed(spec.ext)) {
      if (ox > 0) a.pad_x = 1;
      if (oy > 0) a.pad_y = 1;
    }
    plan.smoothing.push_back(s);
    plan.scale.push_back(scale);
  }
  return plan;
}

std::vector<std::string> derivative_stages(const DerivativeArgs& a) {
  if (a.terms == 1) return {"smoothing", "derivative"};
  return {"smoothing d/dx", "smoothing d/dy",
          a.measure == Derivative::Measure::GradientMagnitude ? "gradient magnitude" : "laplacian"};
}

}  // namespace rf
