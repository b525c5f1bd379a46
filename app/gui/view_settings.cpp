#include "app/gui/view_settings.h"

#include <utility>

namespace rf::gui {
namespace {

const std::pair<ViewMode, const char*> kViewModes[] = {
    {ViewMode::Original, "original"}, {ViewMode::Result, "result"},
    {ViewMode::Diff, "diff"},         {ViewMode::Split, "split"},
    {ViewMode::SideBySide, "side"},   {ViewMode::Tiles, "tiles"},
    {ViewMode::Profile, "profile"},   {ViewMode::Impulse, "impulse"},
    {ViewMode::Response, "response"}, {ViewMode::Race, "race"},
};
const std::pair<TruthMode, const char*> kTruthModes[] = {{TruthMode::Fir, "fir"},
                                                         {TruthMode::Padded, "padded"},
                                                         {TruthMode::OtherExtension, "extension"}};

}  // namespace

const char* to_string(ViewMode m) {
  for (const auto& [mode, name] : kViewModes)
    if (mode == m) return name;
  return "?";
}
const char* to_string(TruthMode m) {
  for (const auto& [mode, name] : kTruthModes)
    if (mode == m) return name;
  return "?";
}
std::optional<ViewMode> parse_view_mode(std::string_view s) {
  for (const auto& [mode, name] : kViewModes)
    if (s == name) return mode;
  return std::nullopt;
}
std::optional<TruthMode> parse_truth_mode(std::string_view s) {
  for (const auto& [mode, name] : kTruthModes)
    if (s == name) return mode;
  return std::nullopt;
}

}  // namespace rf::gui
