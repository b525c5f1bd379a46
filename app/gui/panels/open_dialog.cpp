// The Ctrl+O dialog: a path to an image, a folder of images or a video file.
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/gui/panels/panels.h"
#include "app/gui/source_slot.h"

namespace rf::gui {

void open_dialog(bool& requested, SourceSlot& source, MessageLog& log) {
  static std::string path;
  if (requested) {
    ImGui::OpenPopup("Open");
    requested = false;
  }
  if (!ImGui::BeginPopupModal("Open", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted("An image (PNG, JPEG, PFM, ...), a folder of images or a video file.");
  ImGui::TextDisabled("Files can also be dropped on the window.");
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30);
  const bool enter = ImGui::InputText("##path", &path, ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::Button("Open") || enter) {
    open_path(source, log, path);
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
    ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

}  // namespace rf::gui
