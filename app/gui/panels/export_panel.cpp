// Export and presets: the result as PNG/PFM with a JSON sidecar, screenshots, and presets.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <nlohmann/json.hpp>

#include "app/gui/classroom.h"
#include "app/gui/embedded.h"
#include "app/gui/exporter.h"
#include "app/gui/lessons.h"
#include "app/gui/messages.h"
#include "app/gui/panels/panels.h"
#include "app/gui/presets.h"

namespace rf::gui {

void export_panel(std::string& export_dir, Exporter& exporter, Classroom& classroom,
                  MessageLog& log) {
  if (!ImGui::CollapsingHeader("Export and presets")) return;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
  ImGui::InputText("folder", &export_dir);
  if (ImGui::Button("Export result (Ctrl+S)")) exporter.export_all("rfstudio", export_dir);
  ImGui::SameLine();
  if (ImGui::Button("Screenshot"))
    exporter.request_screenshot(export_dir + "/rfstudio-screenshot.png");
  ImGui::TextDisabled("result PNG + PFM, JSON sidecar, view PNG");

  ImGui::Separator();
  const Preset current = classroom.current("current");
  ImGui::TextUnformatted("Classroom presets");
  for (std::string_view name : embedded_names("assets/presets/")) {
    std::string label(name.substr(name.rfind('/') + 1));
    if (ImGui::Selectable(label.c_str())) {
      try {
        classroom.apply_preset_json(std::string(name), nlohmann::json::parse(embedded(name)));
      } catch (const std::exception& e) {
        log.post(label + ": " + e.what(), true);
      }
    }
  }
  static std::string preset_path = "out/preset.json";
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
  ImGui::InputText("preset", &preset_path);
  if (ImGui::Button("Load")) {
    try {
      classroom.apply_preset_json(preset_path, load_lesson_file(preset_path).json);
    } catch (const std::exception& e) {
      log.post(e.what(), true);
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Save")) {
    try {
      save_preset_file(preset_path, current);
      log.post("saved preset " + preset_path);
    } catch (const std::exception& e) {
      log.post(e.what(), true);
    }
  }
}

}  // namespace rf::gui
