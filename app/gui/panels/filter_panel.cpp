// Filter: every widget here changes Studio::spec (a FilterSpec) and nothing else; the next frame
// filters with it.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/gui/panels/panels.h"
#include "app/gui/studio.h"
#include "filters/core/design.h"

namespace rf::gui {
namespace {

struct KindEntry {
  FilterKind kind;
  const char* label;
};
const KindEntry kKinds[] = {
    {FilterKind::Gaussian, "Gaussian (order 1-5)"},
    {FilterKind::Deriche, "Deriche Gaussian (order 2, 4)"},
    {FilterKind::Yvrg, "Young-van Vliet (yvrg, order 3)"},
    {FilterKind::BSpline3, "cubic B-spline prefilter"},
    {FilterKind::BSpline5, "quintic B-spline prefilter"},
    {FilterKind::BSpline7, "septic B-spline prefilter"},
    {FilterKind::Exponential, "exponential smoother"},
    {FilterKind::Sat, "summed-area table"},
    {FilterKind::EdgeAware, "edge-aware (domain transform)"},
};

const char* kExtensionHelp[] = {
    "ignore: zero initial feedback, the naive start; shows boundary artifacts",
    "zero: black outside the image (GL_CLAMP_TO_BORDER)",
    "clamp: the edge pixel repeated (GL_CLAMP_TO_EDGE)",
    "repeat: the image tiled periodically (GL_REPEAT)",
    "mirror: half-sample symmetric cba|abc|cba (GL_MIRRORED_REPEAT)",
};

bool uses_sigma(FilterKind k) {
  return k == FilterKind::Gaussian || k == FilterKind::Deriche || k == FilterKind::Yvrg ||
         k == FilterKind::EdgeAware;
}

template <class E, class Values = std::initializer_list<E>>
bool enum_combo(const char* label, E* value, const Values& values) {
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

}  // namespace

void filter_panel(Studio& st) {
  if (!ImGui::CollapsingHeader("Filter", ImGuiTreeNodeFlags_DefaultOpen)) return;
  FilterSpec& s = st.spec;
  const float label_w = ImGui::GetFontSize() * 6.0f;
  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x - label_w);

  const char* current = "?";
  for (const KindEntry& k : kKinds)
    if (k.kind == s.kind) current = k.label;
  if (ImGui::BeginCombo("kind", current)) {
    for (const KindEntry& k : kKinds)
      if (ImGui::Selectable(k.label, k.kind == s.kind)) {
        s.kind = k.kind;
        if (s.kind == FilterKind::Deriche && s.order != 2 && s.order != 4) s.order = 2;
        if (s.kind == FilterKind::Yvrg) s.order = 3;
        // The summed-area table takes only the zero extension (ignore is the same for it).
        if (s.kind == FilterKind::Sat && s.ext != Extension::Ignore) s.ext = Extension::Zero;
      }
    ImGui::EndCombo();
  }

  if (uses_sigma(s.kind)) {
    float sigma = float(s.sigma);
    if (ImGui::SliderFloat("sigma", &sigma, 0.5f, 256.0f, "%.2f px", ImGuiSliderFlags_Logarithmic))
      s.sigma = sigma;
  }
  if (s.kind == FilterKind::Gaussian) {
    ImGui::SliderInt("order", &s.order, 1, 5);
  } else if (s.kind == FilterKind::Deriche) {
    int i = s.order == 4 ? 1 : 0;
    if (ImGui::Combo("order", &i,
                     "2\0"
                     "4\0"))
      s.order = i ? 4 : 2;
  }
  if (s.kind == FilterKind::Exponential) {
    float pole = float(s.pole);
    if (ImGui::SliderFloat("pole", &pole, -0.99f, 0.99f, "%.3f")) s.pole = pole;
  }
  if (s.kind == FilterKind::EdgeAware) {
    float sr = float(s.sigma_r), kappa = float(s.kappa);
    if (ImGui::SliderFloat("sigma_r", &sr, 0.01f, 2.0f, "%.3f", ImGuiSliderFlags_Logarithmic))
      s.sigma_r = sr;
    if (ImGui::SliderFloat("kappa", &kappa, 0.5f, 8.0f, "%.2f sigma")) s.kappa = kappa;
    ImGui::SliderInt("iterations", &s.iterations, 1, 5);
  }

  int ext = int(s.ext);
  if (ImGui::Combo("extension", &ext, "ignore\0zero\0clamp\0repeat\0mirror\0"))
    s.ext = Extension(ext);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kExtensionHelp[int(s.ext)]);
  hint(kExtensionHelp[int(s.ext)]);

  // What the backend that runs offers; an algorithm it does not (after the kind or the backend
  // changed) falls back to auto.
  const Backend running = s.backend == Backend::Auto ? st.processor.running_backend() : s.backend;
  const std::vector<Algorithm> offered = algorithms_for(running, s.kind);
  if (std::find(offered.begin(), offered.end(), s.algo) == offered.end()) s.algo = Algorithm::Auto;
  enum_combo<Algorithm>("algorithm", &s.algo, offered);
  enum_combo("backend", &s.backend, {Backend::Auto, Backend::Cpu, Backend::Cuda});
  ImGui::PopItemWidth();

  // The coefficients in the public convention (design.h), for the blackboard.
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
      if (s.kind == FilterKind::Gaussian || s.kind == FilterKind::Deriche ||
          s.kind == FilterKind::Yvrg) {
        const DesignError e = gaussian_design_error(s);
        std::snprintf(buf, sizeof buf, "vs sampled Gaussian: L2 %.2e, max %.2e", e.l2_relative,
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
  ImGui::Checkbox("filter every frame (live timing)", &st.filter_every_frame);
  if (!st.processor.error().empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.35f, 1.0f));
    ImGui::TextWrapped("%s", st.processor.error().c_str());
    ImGui::PopStyleColor();
  }
}

}  // namespace rf::gui
