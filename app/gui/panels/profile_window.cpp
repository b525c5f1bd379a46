// Line profile: one row or column of the input, the result, the truth and the result under every
// extension, overlaid; the boundary behaviour of each extension is visible at both ends.
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <vector>

#include "app/gui/panels/panels.h"
#include "app/gui/view_probes.h"

namespace rf::gui {
namespace {

struct Series {
  const std::vector<float>* data;
  ImU32 color;
  float thickness;
  const char* label;
};

// One colour per extension, indexed by int(Extension).
constexpr std::size_t kExtensions = std::size(kAllExtensions);
const ImU32 kExtensionColors[kExtensions] = {
    IM_COL32(255, 90, 90, 255),  IM_COL32(150, 150, 255, 255), IM_COL32(255, 170, 60, 255),
    IM_COL32(90, 220, 120, 255), IM_COL32(230, 110, 230, 255), IM_COL32(240, 230, 90, 255),
    IM_COL32(170, 200, 255, 255)};
static_assert(std::size(kExtensionColors) == kExtensions, "a colour for every extension");

// The curves drawn, back to front: the input (not beside a derivative, whose values are of
// another scale), the other extensions shown, the truth, the result.
std::vector<Series> profile_series(const ProfileData& p, Extension current, const bool* shown,
                                   bool derivative) {
  std::vector<Series> series;
  if (!derivative) series.push_back({&p.input, IM_COL32(140, 140, 140, 255), 1.0f, "input"});
  for (Extension e : kAllExtensions) {
    const int i = int(e);
    if (i < int(p.by_extension.size()) && shown[i] && e != current)
      series.push_back({&p.by_extension[i], kExtensionColors[i], 1.0f, to_string(e)});
  }
  if (!p.truth.empty()) series.push_back({&p.truth, IM_COL32(80, 220, 255, 255), 2.5f, "truth"});
  series.push_back({&p.result, IM_COL32(255, 255, 255, 255), 1.5f, "result"});
  return series;
}

// The legend, with a toggle for each other extension's curve.
void profile_legend(const ProfileData& p, Extension current, bool* shown, bool derivative) {
  ImGui::TextColored(ImVec4(1, 1, 1, 1), "result (%s)", to_string(current));
  ImGui::SameLine();
  ImGui::TextColored(ImVec4(0.55f, 0.55f, 0.55f, 1),
                     derivative ? "(input not drawn: another scale)" : "input");
  if (!p.truth.empty()) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(0.31f, 0.86f, 1, 1), "truth");
  }
  for (Extension e : kAllExtensions) {
    if (e == current) continue;
    const int i = int(e);
    // On this line while the checkbox fits, else on the next.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float width =
        ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(to_string(e)).x;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (ImGui::GetItemRectMax().x + style.ItemSpacing.x + width <= right) ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(kExtensionColors[i]));
    ImGui::Checkbox(to_string(e), &shown[i]);
    ImGui::PopStyleColor();
  }
  if (!p.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1), "%s", p.error.c_str());
}

// The curves over the rest of the window, with 0 and 1 (the input's range) as reference lines
// and the plotted range's ends labelled.
void plot_series(const std::vector<Series>& series, int n) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 size = ImGui::GetContentRegionAvail();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y),
                    IM_COL32(18, 18, 20, 255));
  float lo = FLT_MAX, hi = -FLT_MAX;
  for (const Series& s : series)
    for (float v : *s.data) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (series.empty() || n < 2 || !(hi >= lo)) return;
  if (hi - lo < 1e-6f) hi = lo + 1e-6f;
  const float pad = 0.05f * (hi - lo);
  lo -= pad;
  hi += pad;
  auto pt = [&](int i, float v) {
    return ImVec2(origin.x + size.x * (float(i) + 0.5f) / float(n),
                  origin.y + size.y * (1.0f - (v - lo) / (hi - lo)));
  };
  for (float ref : {0.0f, 1.0f})
    if (ref > lo && ref < hi)
      dl->AddLine(pt(0, ref), ImVec2(origin.x + size.x, pt(0, ref).y), IM_COL32(60, 60, 60, 255));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", hi);
  dl->AddText(ImVec2(origin.x + 4, origin.y + 2), IM_COL32(160, 160, 160, 255), buf);
  std::snprintf(buf, sizeof buf, "%.3g", lo);
  dl->AddText(ImVec2(origin.x + 4, origin.y + size.y - ImGui::GetFontSize() - 2),
              IM_COL32(160, 160, 160, 255), buf);
  std::vector<ImVec2> pts;
  for (const Series& s : series) {
    if (int(s.data->size()) != n) continue;
    pts.clear();
    for (int i = 0; i < n; ++i) pts.push_back(pt(i, (*s.data)[i]));
    dl->AddPolyline(pts.data(), int(pts.size()), s.color, 0, s.thickness);
  }
}

}  // namespace

void profile_window(const ProfileData& p, Extension current, bool derivative, float x, float y,
                    float w, float h) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(w, h));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoScrollbar;
  char title[64];
  std::snprintf(title, sizeof title, "Profile of %s %d (luma)###profile",
                p.vertical ? "column" : "row", p.line);
  if (ImGui::Begin(title, nullptr, flags)) {
    static bool shown[kExtensions] = {};
    static bool initialised = false;
    if (!initialised) std::fill(std::begin(shown), std::end(shown), true);
    initialised = true;
    const std::vector<Series> series = profile_series(p, current, shown, derivative);
    profile_legend(p, current, shown, derivative);
    plot_series(series, int(p.result.size()));
  }
  ImGui::End();
}

}  // namespace rf::gui
