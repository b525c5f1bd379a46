// View: what the canvas shows, and the settings of each view.
#include <imgui.h>

#include <algorithm>

#include "app/gui/algorithm_race.h"
#include "app/gui/canvas.h"
#include "app/gui/colormap.h"
#include "app/gui/panels/panels.h"
#include "app/gui/processing.h"
#include "app/gui/view_probes.h"
#include "filters/core/image.h"

namespace rf::gui {
namespace {

const std::pair<ViewMode, const char*> kModes[] = {
    {ViewMode::Original, "original"},       {ViewMode::Result, "result"},
    {ViewMode::Diff, "diff (D)"},           {ViewMode::Split, "split wipe"},
    {ViewMode::SideBySide, "side by side"}, {ViewMode::Tiles, "3x3 tiles"},
    {ViewMode::Profile, "line profile"},    {ViewMode::Impulse, "impulse probe"},
    {ViewMode::Response, "response"},       {ViewMode::Race, "algorithm race"},
};

// A derivative's colour scale under the mode buttons: the bar with its ends, and its contrast.
void derivative_scale(ViewSettings& v, const FilterSpec& spec) {
  const DerivativeView dv = derivative_view(spec, v.derivative_gain);
  const bool shows_result = v.mode != ViewMode::Diff && v.mode != ViewMode::Impulse &&
                            v.mode != ViewMode::Response && v.mode != ViewMode::Race &&
                            v.mode != ViewMode::Original;
  if (dv.view == SignedView::Off || !shows_result) return;
  const float s = ImGui::GetFontSize();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x * 0.6f, h = 0.8f * s;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int steps = 48;
  for (int i = 0; i < steps; ++i) {
    const float t = (i + 0.5f) / steps;
    const Rgb c = dv.view == SignedView::Diverging ? diverging(2.0f * t - 1.0f) : inferno(t);
    dl->AddRectFilled(ImVec2(p.x + w * i / steps, p.y), ImVec2(p.x + w * (i + 1) / steps, p.y + h),
                      IM_COL32(to_unorm8(c.r), to_unorm8(c.g), to_unorm8(c.b), 255));
  }
  ImGui::Dummy(ImVec2(w, h));
  if (dv.view == SignedView::Diverging)
    ImGui::Text("%-9.3g 0 %9.3g", -double(dv.range), double(dv.range));
  else
    ImGui::Text("0 .. %.3g", double(dv.range));
  ImGui::SameLine();
  ImGui::TextDisabled("(luminance)");
  ImGui::SliderFloat("contrast", &v.derivative_gain, 0.05f, 100.0f, "x%.2f",
                     ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
}

}  // namespace

void view_panel(ViewSettings& v, Canvas& canvas, const ImpulseData& impulse, AlgorithmRace& race,
                const FilterSpec& spec, Processor& processor) {
  if (!ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) return;
  int i = 0;
  for (const auto& [mode, label] : kModes) {
    if (i++ % 2) ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.5f);
    if (ImGui::RadioButton(label, v.mode == mode)) v.mode = mode;
  }
  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
  derivative_scale(v, spec);
  switch (v.mode) {
    case ViewMode::Split:
      ImGui::SliderFloat("split", &v.split, 0.0f, 1.0f, "%.2f");
      ImGui::TextDisabled("drag the handle on the image");
      break;
    case ViewMode::Diff: {
      int scale = int(v.diff_scale);
      if (ImGui::Combo("scale", &scale, "log (1e-7 .. 1)\0linear\0"))
        v.diff_scale = DiffScale(scale);
      ImGui::SliderFloat("amplification", &v.amplification, 1.0f, 1e6f, "x%.0f",
                         ImGuiSliderFlags_Logarithmic);
      break;
    }
    case ViewMode::Tiles: {
      int src = v.tiles_show_result ? 1 : 0;
      ImGui::Combo("tiles of", &src, "input (what the filter sees)\0result\0");
      v.tiles_show_result = src == 1;
      ImGui::TextDisabled("the real image is outlined in yellow");
      break;
    }
    case ViewMode::Profile: {
      int dir = v.profile_vertical ? 1 : 0;
      if (ImGui::Combo("along", &dir, "row\0column\0")) v.profile_vertical = dir == 1;
      const int n = std::max(1, v.profile_vertical ? processor.width() : processor.height());
      int line = v.profile_line < 0 ? n / 2 : v.profile_line;
      if (ImGui::SliderInt(v.profile_vertical ? "column" : "row", &line, 0, n - 1))
        v.profile_line = line;
      ImGui::TextDisabled("click the image to choose the line");
      break;
    }
    case ViewMode::Impulse:
      ImGui::TextDisabled("click to place the impulse");
      ImGui::Text("impulse at (%d, %d)", impulse.x, impulse.y);
      if (impulse.max > 0)
        ImGui::Text("peak %.3g, smallest nonzero %.2g", impulse.max, impulse.min_nonzero);
      if (!impulse.error.empty())
        ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1), "%s", impulse.error.c_str());
      break;
    case ViewMode::Response:
      ImGui::TextDisabled("the filter itself; it follows the sliders");
      break;
    case ViewMode::Race: {
      const bool busy = race.busy();
      ImGui::BeginDisabled(busy || !processor.has_frame());
      if (ImGui::Button("Run the race")) race.request(spec, processor);
      ImGui::EndDisabled();
      if (busy) {
        ImGui::SameLine();
        ImGui::ProgressBar(race.progress(), ImVec2(-1, 0));
      }
      break;
    }
    default:
      break;
  }
  ImGui::PopItemWidth();
  // The plots of the response and race views fill the canvas: nothing to zoom.
  if (v.mode == ViewMode::Response || v.mode == ViewMode::Race) return;
  ImGui::Text("zoom %.0f%%", 100.0f * canvas.transform().zoom);
  ImGui::SameLine();
  if (ImGui::SmallButton("fit (F)")) canvas.fit();
  ImGui::SameLine();
  if (ImGui::SmallButton("1:1 (1)")) canvas.one_to_one();
  hint("wheel zooms at the cursor, drag pans, Tab hides the panels");
}

}  // namespace rf::gui
