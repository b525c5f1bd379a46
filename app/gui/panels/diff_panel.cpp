// Diff: the ground truth, its progress, and the error of the result over the whole image, a
// border band and the interior.
#include <imgui.h>

#include <cmath>
#include <cstdio>

#include "app/gui/ground_truth.h"
#include "app/gui/panels/filter_choices.h"
#include "app/gui/panels/panels.h"

namespace rf::gui {
namespace {

// The error of the result over the whole image, the border band and the interior. Explicit column
// weights: a table appearing on the frame of a screenshot has no measured content widths yet.
void stats_table(const DiffStats& s) {
  if (!ImGui::BeginTable("stats", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp))
    return;
  ImGui::TableSetupColumn("region", ImGuiTableColumnFlags_WidthStretch, 1.6f);
  ImGui::TableSetupColumn("max |d|", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("RMSE", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("PSNR dB", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableHeadersRow();
  auto row = [](const char* name, const ErrorStats& e) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(name);
    ImGui::TableNextColumn();
    ImGui::Text("%.2e", e.max_abs);
    ImGui::TableNextColumn();
    ImGui::Text("%.2e", e.rmse);
    ImGui::TableNextColumn();
    if (std::isinf(e.psnr))
      ImGui::TextUnformatted("inf");
    else
      ImGui::Text("%.1f", e.psnr);
  };
  char border[32];
  std::snprintf(border, sizeof border, "border %d px", s.band);
  row("whole", s.whole);
  row(border, s.border);
  row("interior", s.interior);
  ImGui::EndTable();
}

}  // namespace

void diff_panel(DiffSettings& d, bool& truth_enabled, const FilterSpec& spec, GroundTruth& truth) {
  if (!ImGui::CollapsingHeader("Diff against ground truth", ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGui::Checkbox("compute ground truth", &truth_enabled);
  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
  const bool own_reference = !truth_modes_apply(spec);
  int mode = int(d.truth);
  ImGui::BeginDisabled(own_reference);
  if (own_reference) {
    if (ImGui::BeginCombo("truth", "its own reference (double)")) ImGui::EndCombo();
  } else if (ImGui::Combo("truth", &mode,
                          "FIR Gaussian (double)\0padded recursion (double)\0same filter, other "
                          "extension\0")) {
    d.truth = TruthMode(mode);
  }
  ImGui::EndDisabled();
  // The box shows the extension the truth is computed with, the one its caption names. It is a
  // choice only where the filter's own extension does not decide it; otherwise it is greyed.
  TruthRequest shown;
  shown.spec = spec;
  shown.mode = d.truth;
  shown.truth_ext = d.truth_ext;
  bool chosen = false;
  const Extension used = truth_extension(shown, &chosen);
  ImGui::BeginDisabled(!chosen);
  if (ImGui::BeginCombo("truth extension", to_string(used))) {
    for (Extension e : truth_extension_choices())
      if (ImGui::Selectable(to_string(e), e == used)) d.truth_ext = e;
    ImGui::EndCombo();
  }
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(chosen ? "the extension of the truth: the filter itself does not set one"
                             : "the truth uses the filter's extension; choose here when the "
                               "filter ignores boundaries or for the other-extension comparison");
  ImGui::Checkbox("band = 3 sigma", &d.auto_band);
  if (!d.auto_band) {
    ImGui::SameLine();
    ImGui::SliderInt("##band", &d.band, 1, 256, "%d px");
  }
  ImGui::PopItemWidth();

  if (truth.busy()) {
    ImGui::ProgressBar(truth.progress(), ImVec2(ImGui::GetContentRegionAvail().x * 0.7f, 0),
                       "truth");
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) truth.cancel();
  }
  if (!truth.current()) {
    ImGui::TextDisabled(truth_enabled ? "waiting for the truth of this frame" : "off");
    return;
  }
  const TruthResult& result = truth.result();
  ImGui::TextWrapped("truth: %s (%.0f ms)", result.label.c_str(), result.ms);
  stats_table(result.stats);
}

}  // namespace rf::gui
