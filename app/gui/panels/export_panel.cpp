// Export and presets: the result as PNG/PFM with a JSON sidecar, screenshots, and presets.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <nlohmann/json.hpp>

#include "app/gui/embedded.h"
#include "app/gui/panels/panels.h"
#include "app/gui/presets.h"
#include "app/gui/studio.h"

namespace rf::gui {
namespace {

void apply(Studio& st, const Preset& p) {
  st.spec = p.spec;
  st.view.mode = p.view.mode;
  st.view.split = p.view.split;
  st.view.diff_scale = p.view.diff_scale;
  st.view.amplification = p.view.amplification;
  st.view.tiles_show_result = p.view.tiles_show_result;
  st.view.profile_vertical = p.view.profile_vertical;
  st.view.profile_line = p.view.profile_line;
  st.view.probe_x = p.view.probe_x;
  st.view.probe_y = p.view.probe_y;
  st.diff = p.diff;
  if (p.source) st.open_source(*p.source);
  st.fit_view();
  st.post("preset: " + p.name + (p.description.empty() ? "" : " - " + p.description));
}

}  // namespace

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
        apply(st, preset_from_json(nlohmann::json::parse(embedded(name)), current));
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
      apply(st, load_preset_file(preset_path, current));
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
