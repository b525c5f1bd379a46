// Fitting text into a width: the status bar cuts what does not fit and shows the rest on hover.
// Plain C++ with the measure passed in (ImGui's CalcTextSize in the UI), unit-tested.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rf::gui {

using TextMeasure = std::function<float(std::string_view)>;

// `text` itself when it fits `width`; otherwise its longest prefix of whole UTF-8 characters
// followed by "...", or "" when not even "..." fits.
std::string ellipsize(const std::string& text, float width, const TextMeasure& measure);

// Widths for texts shown side by side in `width`: each gets what it needs while all fit;
// otherwise the widest give way first, so that short texts stay whole and long ones share the
// rest equally (water-filling).
std::vector<float> share_width(const std::vector<float>& needed, float width);

}  // namespace rf::gui
