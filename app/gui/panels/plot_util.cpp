#include "app/gui/panels/plot_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rf::gui::plot {

std::vector<double> nice_ticks(double lo, double hi, int count) {
  std::vector<double> out;
  if (!(hi > lo) || count < 1) return out;
  const double raw = (hi - lo) / count;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * p;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= raw) {
      step = m * p;
      break;
    }
  for (double t = std::ceil(lo / step) * step; t <= hi + 1e-9 * step; t += step)
    out.push_back(std::abs(t) < 1e-12 * step ? 0.0 : t);
  return out;
}

void axes(ImDrawList* dl, const PlotFrame& f, const std::vector<double>& xticks,
          const std::vector<std::string>& xlabels, const std::vector<double>& yticks,
          const char* yformat) {
  const float em = ImGui::GetFontSize();
  dl->AddRectFilled(ImVec2(f.x0, f.y0), ImVec2(f.x1, f.y1), kBackground);
  for (std::size_t i = 0; i < xticks.size(); ++i) {
    const float x = std::round(f.sx(xticks[i]));
    dl->AddLine(ImVec2(x, f.y0), ImVec2(x, f.y1), kGrid);
    const std::string& label = xlabels[i];
    const float tw = ImGui::CalcTextSize(label.c_str()).x;
    dl->AddText(ImVec2(x - 0.5f * tw, f.y1 + 0.2f * em), kLabel, label.c_str());
  }
  char buf[32];
  for (double t : yticks) {
    const float y = std::round(f.sy(t));
    dl->AddLine(ImVec2(f.x0, y), ImVec2(f.x1, y), kGrid);
    std::snprintf(buf, sizeof buf, yformat, t);
    const float tw = ImGui::CalcTextSize(buf).x;
    dl->AddText(ImVec2(f.x0 - tw - 0.3f * em, y - 0.5f * em), kLabel, buf);
  }
  dl->AddRect(ImVec2(f.x0, f.y0), ImVec2(f.x1 + 1, f.y1 + 1), kFrame);
}

void curve(ImDrawList* dl, const PlotFrame& f, const std::vector<double>& x,
           const std::vector<double>& y, ImU32 color, float thickness) {
  dl->PushClipRect(ImVec2(f.x0, f.y0), ImVec2(f.x1 + 1, f.y1 + 1), true);
  std::vector<ImVec2> pts;
  // Far outside the frame a point is pinned just beyond its edge: ImGui's float coordinates
  // stay small, and the clipped line keeps its slope where it crosses the edge.
  const double span = f.ymax - f.ymin;
  auto flush = [&] {
    if (pts.size() > 1) dl->AddPolyline(pts.data(), int(pts.size()), color, 0, thickness);
    pts.clear();
  };
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
    if (!std::isfinite(y[i])) {
      flush();
      continue;
    }
    const double v = std::clamp(y[i], f.ymin - span, f.ymax + span);
    pts.push_back(ImVec2(f.sx(x[i]), f.sy(v)));
  }
  flush();
  dl->PopClipRect();
}

void title(ImDrawList* dl, const PlotFrame& f, const std::string& text, float right) {
  const float em = ImGui::GetFontSize();
  dl->PushClipRect(ImVec2(f.x0 - 4 * em, f.y0 - 2 * em), ImVec2(right > 0 ? right : f.x1, f.y0),
                   true);
  dl->AddText(ImVec2(f.x0, f.y0 - 1.35f * em), kText, text.c_str());
  dl->PopClipRect();
}

void legend(ImDrawList* dl, const PlotFrame& f, const std::vector<LegendEntry>& entries,
            bool left) {
  const float em = ImGui::GetFontSize();
  float width = 0;
  for (const LegendEntry& e : entries)
    width = std::max(width, ImGui::CalcTextSize(e.text.c_str()).x);
  const float swatch = 1.4f * em;
  const float x =
      left ? f.x0 + 0.7f * em : std::max(f.x0 + 0.7f * em, f.x1 - width - swatch - 1.0f * em);
  float y = f.y0 + 0.4f * em;
  dl->AddRectFilled(
      ImVec2(x - 0.4f * em, y - 0.2f * em),
      ImVec2(x + swatch + width + 0.7f * em, y + entries.size() * 1.2f * em + 0.1f * em),
      IM_COL32(18, 18, 20, 220), 3.0f);
  for (const LegendEntry& e : entries) {
    dl->AddLine(ImVec2(x, y + 0.55f * em), ImVec2(x + swatch - 0.3f * em, y + 0.55f * em), e.color,
                2.0f);
    dl->AddText(ImVec2(x + swatch, y), kText, e.text.c_str());
    y += 1.2f * em;
  }
}

}  // namespace rf::gui::plot
