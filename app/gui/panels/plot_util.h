// Drawing helpers shared by the plots of the response and race views: frames, ticks, curves.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "app/gui/response_data.h"

namespace rf::gui::plot {

inline constexpr ImU32 kBackground = IM_COL32(18, 18, 20, 255);
inline constexpr ImU32 kFrame = IM_COL32(90, 90, 96, 255);
inline constexpr ImU32 kGrid = IM_COL32(48, 48, 54, 255);
inline constexpr ImU32 kLabel = IM_COL32(170, 170, 176, 255);
inline constexpr ImU32 kText = IM_COL32(230, 230, 230, 255);
// The filter, the Gaussian it approximates, and other references (the profile view's colours).
inline constexpr ImU32 kFilterColor = IM_COL32(255, 170, 60, 255);
inline constexpr ImU32 kGaussianColor = IM_COL32(80, 220, 255, 255);
inline constexpr ImU32 kKernelColor = IM_COL32(150, 150, 150, 255);

// About `count` round tick values covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int count = 5);

// Background, grid lines at the ticks, tick labels (printf `format`), and the frame.
void axes(ImDrawList* dl, const PlotFrame& f, const std::vector<double>& xticks,
          const std::vector<std::string>& xlabels, const std::vector<double>& yticks,
          const char* yformat);

// A polyline through (x[i], y[i]), clipped to the frame; non-finite points break the line.
void curve(ImDrawList* dl, const PlotFrame& f, const std::vector<double>& x,
           const std::vector<double>& y, ImU32 color, float thickness);

// Text at the top-left of a frame, above it, cut at `right` (default: the frame's right edge).
void title(ImDrawList* dl, const PlotFrame& f, const std::string& text, float right = 0.0f);

// Legend entries stacked in the frame's top-right corner (top-left with `left`).
struct LegendEntry {
  std::string text;
  ImU32 color;
};
void legend(ImDrawList* dl, const PlotFrame& f, const std::vector<LegendEntry>& entries,
            bool left = false);

}  // namespace rf::gui::plot
