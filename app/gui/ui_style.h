// Dear ImGui's look at a given content scale, and where its ini file lives.
#pragma once

#include <string>

namespace rf::gui {

// Rebuilds the font atlas at `scale` (a TrueType font when the system has one, crisp at any
// scale; ImGui's built-in font otherwise) and scales the style's sizes. Call between frames.
void apply_ui_scale(float scale);

// $XDG_CONFIG_HOME/rfstudio/imgui.ini, or ~/.config/rfstudio/imgui.ini; the folder is created.
// Empty when neither can be used.
std::string imgui_ini_path();

}  // namespace rf::gui
