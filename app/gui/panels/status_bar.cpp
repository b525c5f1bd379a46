// Status bar: which backend runs and why, the source, and the latest message.
#include <imgui.h>

#include "app/gui/panels/panels.h"
#include "app/gui/studio.h"

namespace rf::gui {

void status_bar(Studio& st, float x, float y, float w, float h) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(w, h));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoScrollWithMouse;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(ImGui::GetFontSize() * 0.5f, 1.0f));
  if (ImGui::Begin("##status", nullptr, flags)) {
    ImGui::AlignTextToFramePadding();
    ImGui::Text("%s | %s | %s", st.processor.backend_line().c_str(),
                st.processor.path_line().c_str(), st.platform().name().c_str());
    const std::string source_status = st.source.status();
    if (!source_status.empty()) {
      ImGui::SameLine();
      ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1), "| %s", source_status.c_str());
    }
    if (!st.messages.empty()) {
      const Message& m = st.messages.back();
      const bool recent = ImGui::GetTime() - m.time < 8.0 || m.error;
      if (recent) {
        ImGui::SameLine();
        ImGui::TextColored(m.error ? ImVec4(1, 0.45f, 0.35f, 1) : ImVec4(0.6f, 0.9f, 0.6f, 1),
                           "| %s", m.text.c_str());
        if (m.error) {
          ImGui::SameLine();
          if (ImGui::SmallButton("dismiss")) st.messages.pop_back();
        }
      }
    }
  }
  ImGui::End();
  ImGui::PopStyleVar();
}

}  // namespace rf::gui
