#include "app/gui/overlays.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/gui/colormap.h"
#include "filters/core/image.h"

namespace rf::gui {
namespace {

// The colour scales' titles; the heat maps' strip on the right is as wide as their boxes.
constexpr const char* kDiffLegendTitle = "|result - truth|";
constexpr const char* kResponseLegendTitle = "|response|";

constexpr ImU32 kYellow = IM_COL32(255, 210, 60, 255);
constexpr ImU32 kWhite = IM_COL32(235, 235, 235, 255);
constexpr ImU32 kCyan = IM_COL32(80, 220, 255, 255);

ImU32 to_u32(Rgb c) {
  return IM_COL32(to_unorm8(c.r), to_unorm8(c.g), to_unorm8(c.b), 255);
}

// The width of a colour scale's box: the bar and its labels, or the title.
float legend_box_width(const char* title) {
  const float w = ImGui::GetFontSize() * 0.9f;
  const float pad = ImGui::GetFontSize() * 0.4f;
  const float label_w = ImGui::CalcTextSize("1e-10").x;
  return std::max(w + label_w + 3 * pad, ImGui::CalcTextSize(title).x + 2 * pad);
}

// The gap between the canvas and a colour scale's bar.
float legend_gap() {
  return 0.8f * ImGui::GetFontSize();
}

// A scale label: with amplification a, colour t of a log scale shows
// |d| = 10^(low + t (high - low)) / a; of a linear one t / a.
void scale_label(char* buf, std::size_t size, float t, float low, float high, bool log_scale,
                 float amplification) {
  if (!log_scale) {
    std::snprintf(buf, size, "%.3g", t / amplification);
    return;
  }
  const double v = std::pow(10.0, low + t * (high - low)) / amplification;
  const int decade = int(std::lround(std::log10(v)));
  if (std::abs(std::log10(v) - decade) < 1e-6)
    std::snprintf(buf, size, decade == 0 ? "1" : "1e%d", decade);
  else
    std::snprintf(buf, size, "%.1e", v);
}

// A vertical colour bar with decade (or linear) labels: the fixed scale of the heat maps.
void draw_legend(ImDrawList* dl, ImVec2 pos, float height, float low, float high, bool log_scale,
                 float amplification, const char* title) {
  const float w = ImGui::GetFontSize() * 0.9f;
  const float pad = ImGui::GetFontSize() * 0.4f;
  const int steps = 64;
  const float box_w = legend_box_width(title);
  const ImVec2 box0(pos.x - pad, pos.y - ImGui::GetFontSize() - 2 * pad);
  const ImVec2 box1(pos.x - pad + box_w, pos.y + height + pad);
  dl->AddRectFilled(box0, box1, IM_COL32(20, 20, 20, 210), 4.0f);
  dl->AddText(ImVec2(pos.x, pos.y - ImGui::GetFontSize() - pad), IM_COL32(230, 230, 230, 255),
              title);
  for (int i = 0; i < steps; ++i) {
    const float t0 = float(i) / steps, t1 = float(i + 1) / steps;
    dl->AddRectFilled(ImVec2(pos.x, pos.y + height * (1 - t1)),
                      ImVec2(pos.x + w, pos.y + height * (1 - t0)),
                      to_u32(inferno(0.5f * (t0 + t1))));
  }
  char buf[32];
  const int labels = log_scale ? int(high - low) : 4;
  for (int i = 0; i <= labels; ++i) {
    const float t = float(i) / labels;
    scale_label(buf, sizeof buf, t, low, high, log_scale, amplification);
    const float y = pos.y + height * (1 - t);
    dl->AddLine(ImVec2(pos.x + w, y), ImVec2(pos.x + w + pad * 0.5f, y),
                IM_COL32(230, 230, 230, 255));
    dl->AddText(ImVec2(pos.x + w + pad * 1.5f, y - ImGui::GetFontSize() * 0.5f),
                IM_COL32(230, 230, 230, 255), buf);
  }
}

// The marks of one image pane (`shader` 0 is the original of side by side).
void draw_pane_marks(ImDrawList* dl, const CanvasRect& pane, int shader, const ViewTransform& t,
                     const ViewSettings& view, Extension ext, float w, float h,
                     const ViewProbes& probes) {
  const float s = ImGui::GetFontSize();
  auto at = [&](float u, float v) {
    const Vec2 c = t.to_canvas({u, v});
    return ImVec2(pane.x + c.x, pane.y + c.y);
  };
  if (view.mode == ViewMode::Tiles) {
    dl->AddRect(at(0, 0), at(w, h), kYellow, 0.0f, 0, 2.0f);
    char buf[96];
    std::snprintf(buf, sizeof buf, "extension: %s%s", to_string(ext),
                  ext == Extension::Ignore ? " (nothing assumed: zero feedback)" : "");
    dl->AddText(ImVec2(at(0, 0).x, at(0, 0).y - s * 1.3f), kYellow, buf);
  }
  if (view.mode == ViewMode::Split) {
    const ImVec2 top = at(view.split * w, 0), bottom = at(view.split * w, h);
    dl->AddCircleFilled(ImVec2(top.x, 0.5f * (top.y + bottom.y)), 0.45f * s, kYellow);
    dl->AddText(ImVec2(top.x - s * 4.6f, top.y - s * 1.3f), kWhite, "original");
    dl->AddText(ImVec2(top.x + s * 0.5f, top.y - s * 1.3f), kWhite, "result");
  }
  if (view.mode == ViewMode::SideBySide)
    dl->AddText(ImVec2(pane.x + s * 0.6f, pane.y + s * 0.4f), kWhite,
                shader == 0 ? "original" : "result");
  const ProfileData& profile = probes.profile();
  if (view.mode == ViewMode::Profile && profile.line >= 0) {
    const float l = float(profile.line) + 0.5f;
    if (profile.vertical)
      dl->AddLine(at(l, 0), at(l, h), kCyan, 1.5f);
    else
      dl->AddLine(at(0, l), at(w, l), kCyan, 1.5f);
  }
  if (view.mode == ViewMode::Impulse) {
    const ImpulseData& impulse = probes.impulse();
    dl->AddCircle(at(impulse.x + 0.5f, impulse.y + 0.5f), 0.8f * s, kCyan, 0, 1.5f);
  }
}

// The heat map's colour scale in the strip right of the canvas; the diff view says so while its
// truth is computing or off.
void draw_scale(ImDrawList* dl, const CanvasRect& canvas, const ViewSettings& view,
                const GroundTruth& truth, bool truth_enabled) {
  const float s = ImGui::GetFontSize();
  const float legend_h = std::min(canvas.h * 0.4f, 16.0f * s);
  const ImVec2 legend_pos(canvas.x + canvas.w + legend_gap(),
                          canvas.y + canvas.h - legend_h - 1.2f * s);
  if (view.mode == ViewMode::Diff) {
    if (truth.current()) {
      draw_legend(dl, legend_pos, legend_h, kLogScaleLowDecade, kLogScaleHighDecade,
                  view.diff_scale == DiffScale::Log, view.amplification, kDiffLegendTitle);
    } else {
      char buf[80];
      std::snprintf(buf, sizeof buf, "computing ground truth... %d%%",
                    int(100.0f * truth.progress()));
      dl->AddText(ImVec2(canvas.x + s, canvas.y + s), kYellow,
                  truth_enabled ? buf : "ground truth is off");
    }
  }
  if (view.mode == ViewMode::Impulse)
    draw_legend(dl, legend_pos, legend_h, kImpulseLowDecade, 0.0f, true, 1.0f,
                kResponseLegendTitle);
}

}  // namespace

const char* legend_title(ViewMode mode) {
  return mode == ViewMode::Diff      ? kDiffLegendTitle
         : mode == ViewMode::Impulse ? kResponseLegendTitle
                                     : nullptr;
}

float legend_strip_width(ViewMode mode) {
  const char* title = legend_title(mode);
  return title ? legend_gap() + legend_box_width(title) + 0.4f * ImGui::GetFontSize() : 0.0f;
}

void draw_overlays(const Canvas& canvas, const ViewSettings& view, Extension ext, int width,
                   int height, const ViewProbes& probes, const GroundTruth& truth,
                   bool truth_enabled) {
  if (width <= 0) return;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  for (const auto& [pane, shader] : canvas.panes(view.mode)) {
    dl->PushClipRect(ImVec2(pane.x, pane.y), ImVec2(pane.x + pane.w, pane.y + pane.h), true);
    draw_pane_marks(dl, pane, shader, canvas.transform(), view, ext, float(width), float(height),
                    probes);
    dl->PopClipRect();
  }
  draw_scale(dl, canvas.rect(), view, truth, truth_enabled);
}

}  // namespace rf::gui
