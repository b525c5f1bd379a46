// Filter: every widget here changes the spec (a FilterSpec) and nothing else; the next frame
// filters with it.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/gui/panels/filter_choices.h"
#include "app/gui/panels/panels.h"
#include "app/gui/processing.h"
#include "filters/core/design.h"
#include "filters/core/filter_table.h"
#include "filters/core/response.h"

namespace rf::gui {
namespace {

template <class E>
bool enum_combo(const char* label, E* value, const std::vector<E>& values) {
  bool changed = false;
  if (ImGui::BeginCombo(label, to_string(*value))) {
    for (E v : values)
      if (ImGui::Selectable(to_string(v), v == *value)) {
        *value = v;
        changed = true;
      }
    ImGui::EndCombo();
  }
  return changed;
}

// An order slider where the orders run without a gap (gaussian 1..5), a box otherwise (2 or 4).
void order_control(FilterSpec& s) {
  const std::vector<int> orders = order_choices(s.kind);
  if (orders.empty()) return;
  int order = s.order;
  bool changed = false;
  if (orders.back() - orders.front() + 1 == int(orders.size())) {
    changed = ImGui::SliderInt("order", &order, orders.front(), orders.back(), "%d",
                               ImGuiSliderFlags_AlwaysClamp);
  } else if (ImGui::BeginCombo("order", std::to_string(s.order).c_str())) {
    for (int o : orders)
      if (ImGui::Selectable(std::to_string(o).c_str(), o == s.order)) {
        order = o;
        changed = true;
      }
    ImGui::EndCombo();
  }
  if (changed) s = with_order(s, order);
}

// The kind box: every kind of the filter table, with its label.
void kind_combo(FilterSpec& s) {
  const std::vector<std::pair<FilterKind, std::string>> kinds = kind_choices();
  std::string current = "?";
  for (const auto& [kind, label] : kinds)
    if (kind == s.kind) current = label;
  if (!ImGui::BeginCombo("kind", current.c_str())) return;
  for (const auto& [kind, label] : kinds)
    if (ImGui::Selectable(label.c_str(), kind == s.kind)) s = with_kind(s, kind);
  ImGui::EndCombo();
}

// One sigma slider, or with the lock open (a kind that takes a sigma per axis) one along x and
// one along y. The lock is the spec's own: closed, sigma_y is unset and y follows x.
void sigma_sliders(FilterSpec& s) {
  const SliderRange r = sigma_slider(s.kind, s.order);
  const ImGuiSliderFlags flags = ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp;
  float sigma = float(s.sigma);
  if (ImGui::SliderFloat(s.sigma_y ? "sigma x" : "sigma", &sigma, r.lo, r.hi, "%.2f px", flags))
    s.sigma = sigma;
  if (!info(s.kind).params.has(Param::SigmaY)) return;
  if (s.sigma_y) {
    float sigma_y = float(*s.sigma_y);
    if (ImGui::SliderFloat("sigma y", &sigma_y, r.lo, r.hi, "%.2f px", flags)) s.sigma_y = sigma_y;
  }
  bool locked = !s.sigma_y;
  if (ImGui::Checkbox("one sigma for x and y", &locked)) {
    if (locked)
      s.sigma_y.reset();
    else
      s.sigma_y = s.sigma;
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("unticked: a sigma along x (the width) and one along y (the height)");
}

// A slider for each parameter the kind takes, inside the ranges its design holds.
void parameter_sliders(FilterSpec& s) {
  const ParamSet params = info(s.kind).params;
  if (params.has(Param::Sigma)) sigma_sliders(s);
  order_control(s);
  if (params.has(Param::Pole)) {
    float pole = float(s.pole);
    if (ImGui::SliderFloat("pole", &pole, -0.99f, 0.99f, "%.3f", ImGuiSliderFlags_AlwaysClamp))
      s.pole = pole;
  }
  if (params.has(Param::SigmaR)) {
    float sr = float(s.sigma_r);
    if (ImGui::SliderFloat("sigma_r", &sr, 0.01f, 2.0f, "%.3f",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
      s.sigma_r = sr;
  }
  if (params.has(Param::Kappa)) {
    float kappa = float(s.kappa);
    if (ImGui::SliderFloat("kappa", &kappa, 0.5f, 8.0f, "%.2f sigma", ImGuiSliderFlags_AlwaysClamp))
      s.kappa = kappa;
  }
  if (params.has(Param::Iterations))
    ImGui::SliderInt("iterations", &s.iterations, 1, 5, "%d", ImGuiSliderFlags_AlwaysClamp);
}

// The derivative box and its scale normalisation, for the kinds that take one.
void derivative_control(FilterSpec& s) {
  const auto choices = derivative_choices(s.kind);
  if (choices.empty()) return;
  Derivative& d = s.derivative;
  std::string current = to_string(d);
  for (const auto& [choice, label] : choices)
    if (choice.x == d.x && choice.y == d.y && choice.measure == d.measure) current = label;
  if (ImGui::BeginCombo("derivative", current.c_str())) {
    for (const auto& [choice, label] : choices)
      if (ImGui::Selectable(label.c_str(), current == label)) {
        const bool normalized = d.normalized;
        d = choice;
        d.normalized = normalized && d.any();
      }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "a derivative of the smoothed image: differences of it, exact at the border "
        "for every extension; signed values, shown blue (< 0) to red (> 0)");
  if (d.any()) {
    ImGui::Checkbox("scale-normalised (x sigma^order)", &d.normalized);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "each partial times sigma^order along its axis, so that responses "
          "compare across scales (ITK's NormalizeAcrossScale)");
  }
}

// The extensions the kind takes, explained; the algorithms the backend that runs offers (one it
// does not offer, after the kind or the backend changed, falls back to auto); the backends.
void extension_and_backend(FilterSpec& s, Backend running_backend) {
  enum_combo("extension", &s.ext, extension_choices(s.kind));
  const std::string ext_hint = extension_hint(s.ext);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ext_hint.c_str());
  hint(ext_hint);
  if (s.ext == Extension::Constant) {
    // On the frame's [0, 1] scale; beyond it a constant still filters, and shows as a glow.
    float cval = float(s.cval);
    if (ImGui::SliderFloat("constant", &cval, -1.0f, 2.0f, "%.3f")) s.cval = cval;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("the value outside the image (0 black, 1 white); Ctrl+click to type one");
  }
  const Backend running = s.backend == Backend::Auto ? running_backend : s.backend;
  // The Gaussian's method: the recursive design, the FIR or the faster; the FIR runs no
  // recursive algorithm, so the algorithm box rests at auto under it.
  const bool methods = info(s.kind).params.has(Param::GaussianMethod);
  if (methods) {
    std::vector<GaussianMethod> all;
    for (const MethodInfo& m : method_table()) all.push_back(m.method);
    enum_combo("method", &s.gaussian_method, all);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", info(s.gaussian_method).description);
  }
  const bool fir = methods && s.gaussian_method == GaussianMethod::Fir;
  const std::vector<Algorithm> offered = algorithm_choices(running, s.kind);
  if (fir || std::find(offered.begin(), offered.end(), s.algo) == offered.end())
    s.algo = Algorithm::Auto;
  ImGui::BeginDisabled(fir);
  enum_combo("algorithm", &s.algo, offered);
  ImGui::EndDisabled();
  enum_combo("backend", &s.backend, backend_choices());
}

// The coefficients in the public convention (design.h), for the blackboard, and how far a
// Gaussian design is from the sampled Gaussian; computed when the spec changes.
void coefficients_node(const FilterSpec& s) {
  static FilterSpec shown;
  static std::string coeffs, design_error;
  static bool first = true;
  if (first || shown != s) {
    first = false;
    shown = s;
    design_error.clear();
    try {
      const Recursive r = design(s);
      char buf[96];
      std::snprintf(buf, sizeof buf, "b0 = %.6g", r.b0);
      coeffs = buf;
      for (int k = 0; k < r.order(); ++k) {
        std::snprintf(buf, sizeof buf, "\na%d = %.6g", k + 1, r.a[k]);
        coeffs += buf;
      }
      if (r.causal_only) coeffs += "\ncausal only";
      if (approximates_gaussian(s.kind)) {
        // Along x: the smoothing, or the partial along x the difference makes of it.
        FilterSpec along_x = s;
        along_x.derivative = Derivative{};
        if (s.derivative.measure == Derivative::Measure::Partial)
          along_x.derivative.x = s.derivative.x;
        const DesignError e = gaussian_design_error(along_x);
        const char* what = along_x.derivative.x == 0   ? "Gaussian"
                           : along_x.derivative.x == 1 ? "Gaussian d/dx"
                                                       : "Gaussian d2/dx2";
        std::snprintf(buf, sizeof buf, "vs sampled %s: L2 %.2e, max %.2e", what, e.l2_relative,
                      e.max_relative);
        design_error = buf;
      }
    } catch (const std::exception& e) {
      coeffs = e.what();
    }
  }
  if (ImGui::TreeNode("Coefficients")) {
    ImGui::TextUnformatted(coeffs.c_str());
    if (!design_error.empty()) hint(design_error);
    ImGui::TreePop();
  }
}

}  // namespace

void filter_panel(FilterSpec& spec, bool& filter_every_frame, const Processor& processor) {
  if (!ImGui::CollapsingHeader("Filter", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const float label_w = ImGui::GetFontSize() * 6.0f;
  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x - label_w);
  kind_combo(spec);
  parameter_sliders(spec);
  derivative_control(spec);
  extension_and_backend(spec, processor.running_backend());
  ImGui::PopItemWidth();
  coefficients_node(spec);
  ImGui::Checkbox("filter every frame (live timing)", &filter_every_frame);
  if (!processor.error().empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.35f, 1.0f));
    ImGui::TextWrapped("%s", processor.error().c_str());
    ImGui::PopStyleColor();
  }
}

}  // namespace rf::gui
