// Source: what is being filtered: the built-in image, a file or folder, a video, a camera or a
// classroom pattern.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <cstdio>
#include <vector>

#include "app/gui/messages.h"
#include "app/gui/panels/panels.h"
#include "app/gui/processing.h"
#include "app/gui/source_slot.h"

namespace rf::gui {
namespace {

// The box names the pattern on screen, and nothing while another source is: choosing one opens
// it (at the size of the pattern on screen).
void pattern_box(SourceSlot& source, MessageLog& log) {
  static const char* patterns[] = {"impulses", "steps", "checkerboard",
                                   "periodic", "noise", "moving-bar"};
  const SourceChoice& shown = source.choice();
  const bool is_pattern = shown.kind == SourceKind::Pattern;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
  if (!ImGui::BeginCombo("##pattern", is_pattern ? shown.path.c_str() : "a pattern...")) return;
  for (const char* p : patterns)
    if (ImGui::Selectable(p, is_pattern && shown.path == p)) {
      SourceChoice c{SourceKind::Pattern, p};
      if (is_pattern) {
        c.width = shown.width;
        c.height = shown.height;
      }
      open_source(source, log, c);
    }
  ImGui::EndCombo();
}

// Scan cameras, then one entry per camera (its modes in the tooltip).
void camera_list(SourceSlot& source, MessageLog& log) {
  static std::vector<app::CameraInfo> cameras;
  static bool scanned = false;
  if (ImGui::Button("Scan cameras")) {
    try {
      cameras = app::list_cameras();
    } catch (const std::exception& e) {
      log.post(std::string("camera scan: ") + e.what(), true);
    }
    scanned = true;
  }
  if (scanned && cameras.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("no V4L2 camera found");
  }
  for (const app::CameraInfo& c : cameras) {
    const std::string label = c.device + "  " + c.name;
    if (ImGui::Selectable(label.c_str())) open_source(source, log, {SourceKind::Camera, c.device});
    if (ImGui::IsItemHovered() && !c.modes.empty()) {
      ImGui::BeginTooltip();
      for (const app::CameraMode& m : c.modes)
        ImGui::Text("%s %dx%d %.0f fps", m.fourcc.c_str(), m.width, m.height, m.fps);
      ImGui::EndTooltip();
    }
  }
}

// Folders and videos loop or not; folders play at a chosen rate. A change reopens the source at
// its start.
void sequence_controls(SourceSlot& source, MessageLog& log) {
  const SourceChoice& current = source.choice();
  if (current.kind != SourceKind::Folder && current.kind != SourceKind::Video) return;
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
  if (reopen) open_source(source, log, c);
}

void pause_controls(SourceSlot& source) {
  if (!source.animated()) return;
  bool paused = source.paused();
  if (ImGui::Checkbox("Pause (Space)", &paused)) source.set_paused(paused);
  ImGui::SameLine();
  ImGui::BeginDisabled(!paused);
  if (ImGui::Button("Step")) source.step();
  ImGui::EndDisabled();
}

}  // namespace

void source_panel(SourceSlot& source, MessageLog& log, bool& open_dialog_requested,
                  const Processor& processor) {
  if (!ImGui::CollapsingHeader("Source", ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGui::TextWrapped("%s", source.description().c_str());
  const std::string status = source.status();
  if (!status.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), "%s", status.c_str());

  pattern_box(source, log);
  ImGui::SameLine();
  ImGui::BeginDisabled(source.choice().kind == SourceKind::Default);
  if (ImGui::Button("Built-in")) open_source(source, log, {SourceKind::Default, {}});
  ImGui::EndDisabled();

  if (ImGui::Button("Open file, folder or video... (Ctrl+O)")) open_dialog_requested = true;
  camera_list(source, log);
  sequence_controls(source, log);
  pause_controls(source);
  if (processor.has_frame())
    ImGui::TextDisabled("%d x %d, frame %llu", processor.width(), processor.height(),
                        static_cast<unsigned long long>(source.frame().index));
}

}  // namespace rf::gui
