// Source: what is being filtered: the built-in image, a file or folder, a video, a camera or a
// classroom pattern.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <cstdio>

#include "app/gui/panels/panels.h"
#include "app/gui/studio.h"

namespace rf::gui {

void source_panel(Studio& st) {
  if (!ImGui::CollapsingHeader("Source", ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGui::TextWrapped("%s", st.source.description().c_str());
  const std::string status = st.source.status();
  if (!status.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), "%s", status.c_str());

  // The box names the pattern on screen, and nothing while another source is: choosing one
  // opens it.
  static const char* patterns[] = {"impulses", "steps", "checkerboard",
                                   "periodic", "noise", "moving-bar"};
  const SourceChoice& shown = st.source.choice();
  const bool is_pattern = shown.kind == SourceKind::Pattern;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
  if (ImGui::BeginCombo("##pattern", is_pattern ? shown.path.c_str() : "a pattern...")) {
    for (const char* p : patterns)
      if (ImGui::Selectable(p, is_pattern && shown.path == p)) {
        SourceChoice c{SourceKind::Pattern, p};
        if (is_pattern) {
          c.width = shown.width;
          c.height = shown.height;
        }
        st.open_source(c);
      }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(shown.kind == SourceKind::Default);
  if (ImGui::Button("Built-in")) st.open_source({SourceKind::Default, {}});
  ImGui::EndDisabled();

  if (ImGui::Button("Open file, folder or video... (Ctrl+O)")) st.open_dialog_requested = true;

  static std::vector<app::CameraInfo> cameras;
  static bool scanned = false;
  if (ImGui::Button("Scan cameras")) {
    try {
      cameras = app::list_cameras();
    } catch (const std::exception& e) {
      st.post(std::string("camera scan: ") + e.what(), true);
    }
    scanned = true;
  }
  if (scanned && cameras.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("no V4L2 camera found");
  }
  for (const app::CameraInfo& c : cameras) {
    const std::string label = c.device + "  " + c.name;
    if (ImGui::Selectable(label.c_str())) st.open_source({SourceKind::Camera, c.device});
    if (ImGui::IsItemHovered() && !c.modes.empty()) {
      ImGui::BeginTooltip();
      for (const app::CameraMode& m : c.modes)
        ImGui::Text("%s %dx%d %.0f fps", m.fourcc.c_str(), m.width, m.height, m.fps);
      ImGui::EndTooltip();
    }
  }

  // Folders play at a chosen rate; changing it reopens the folder at its start.
  const SourceChoice& current = st.source.choice();
  if (current.kind == SourceKind::Folder || current.kind == SourceKind::Video) {
    SourceChoice c = current;
    bool reopen = ImGui::Checkbox("loop", &c.loop);
    if (c.kind == SourceKind::Folder) {
      static const double rates[] = {1, 2, 5, 10, 24, 30, 60};
      char label[32];
      std::snprintf(label, sizeof label, "%g fps", c.fps);
      ImGui::SameLine();
      ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
      if (ImGui::BeginCombo("rate", label)) {
        for (double r : rates) {
          std::snprintf(label, sizeof label, "%g fps", r);
          if (ImGui::Selectable(label, r == c.fps)) {
            c.fps = r;
            reopen = true;
          }
        }
        ImGui::EndCombo();
      }
    }
    if (reopen) st.open_source(c);
  }
  if (st.source.animated()) {
    bool paused = st.source.paused();
    if (ImGui::Checkbox("Pause (Space)", &paused)) st.source.set_paused(paused);
    ImGui::SameLine();
    ImGui::BeginDisabled(!paused);
    if (ImGui::Button("Step")) st.source.step();
    ImGui::EndDisabled();
  }
  if (st.processor.has_frame())
    ImGui::TextDisabled("%d x %d, frame %llu", st.processor.width(), st.processor.height(),
                        static_cast<unsigned long long>(st.source.frame().index));
}

}  // namespace rf::gui
