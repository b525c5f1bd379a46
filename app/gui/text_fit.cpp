#include "app/gui/text_fit.h"

#include <algorithm>
#include <numeric>

namespace rf::gui {

std::string ellipsize(const std::string& text, float width, const TextMeasure& measure) {
  if (measure(text) <= width) return text;
  const std::string dots = "...";
  if (measure(dots) > width) return {};
  // Character boundaries: bytes that are not UTF-8 continuation bytes (10xxxxxx).
  std::vector<std::size_t> cuts;
  for (std::size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) cuts.push_back(i);
  // The widest prefix that fits, by bisection over the boundaries (widths grow with length).
  std::size_t lo = 0, hi = cuts.size();  // cuts[lo] fits (the empty prefix always does)
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (measure(std::string_view(text.data(), cuts[mid])) + measure(dots) <= width)
      lo = mid;
    else
      hi = mid;
  }
  std::string out = text.substr(0, cuts[lo]);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + dots;
}

std::vector<float> share_width(const std::vector<float>& needed, float width) {
  std::vector<float> out = needed;
  const float total = std::accumulate(needed.begin(), needed.end(), 0.0f);
  if (total <= width || needed.empty()) return out;
  // The cap c with sum(min(needed_i, c)) = width.
  std::vector<float> sorted = needed;
  std::sort(sorted.begin(), sorted.end());
  float left = std::max(0.0f, width);
  float cap = 0.0f;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const float share = left / float(sorted.size() - i);
    if (sorted[i] >= share) {
      cap = share;
      break;
    }
    left -= sorted[i];
    cap = sorted[i];
  }
  for (float& w : out) w = std::min(w, cap);
  return out;
}

}  // namespace rf::gui
