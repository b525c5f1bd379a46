#include <imgui.h>

#include <string>

#include "app/gui/panels/panels.h"

namespace rf::gui {

void hint(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

}  // namespace rf::gui
