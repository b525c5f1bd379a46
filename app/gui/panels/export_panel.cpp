// Export and presets: the result as PNG/PFM with a JSON sidecar, screenshots, and presets.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <nlohmann/json.hpp>

#include "app/gui/embedded.h"
#include "app/gui/lessons.h"
#include "app/gui/panels/panels.h"
#include "app/gui/presets.h"
#include "app/gui/studio.h"

namespace rf::gui {

void export_panel(Studio& st) {
  if (!ImGui::CollapsingHeader("Export and presets")) return;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
  ImGui::InputText("folder", &st.export_dir);
  if (ImGui::Button("Export result (Ctrl+S)")) st.export_all("rfstudio");
  ImGui::SameLine();
  if (ImGui::Button("Screenshot"))
    st.request_screenshot(st.export_dir + "/rfstudio-screenshot.png");
  ImGui::TextDisabled("result PNG + PFM, JSON sidecar, view PNG");

  ImGui::Separator();
  const Preset current = make_preset("current", st.spec, st.view, st.diff, st.source.choice());
  ImGui::TextUnformatted("Classroom presets");
  for (std::string_view name : embedded_names("assets/presets/")) {
    std::string label(name.substr(name.rfind('/') + 1));
    if (ImGui::Selectable(label.c_str())) {
      try {
        st.apply_preset_json(std::string(name), nlohmann::json::parse(embedded(name)));
      } catch (const std::exception& e) {
        st.post(label + ": " + e.what(), true);
      }
    }
  }
  static std::string preset_path = "out/preset.json";
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
  ImGui::InputText("preset", &preset_path);
  if (ImGui::Button("Load")) {
    try {
      st.apply_preset_json(preset_path, load_lesson_file(preset_path).json);
    } catch (const std::exception& e) {
      st.post(e.what(), true);
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Save")) {
    try {
      save_preset_file(preset_path, current);
      st.post("saved preset " + preset_path);
    } catch (const std::exception& e) {
      st.post(e.what(), true);
    }
  }
}

}  // namespace rf::gui
