// Status bar: which backend runs and why, the source, and the latest message. One line: what does
// not fit is cut with "...", and hovering the bar shows every part in full.
#include <imgui.h>

#include <string>
#include <vector>

#include "app/gui/messages.h"
#include "app/gui/panels/panels.h"
#include "app/gui/platform.h"
#include "app/gui/processing.h"
#include "app/gui/source_slot.h"
#include "app/gui/text_fit.h"

namespace rf::gui {
namespace {

struct Part {
  std::string text;
  ImVec4 color;
};

}  // namespace

void status_bar(const Processor& processor, const Platform& platform, const SourceSlot& source,
                MessageLog& log, float x, float y, float w, float h) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(w, h));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoScrollWithMouse;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(ImGui::GetFontSize() * 0.5f, 1.0f));
  if (ImGui::Begin("##status", nullptr, flags)) {
    const ImVec4 plain = ImGui::GetStyle().Colors[ImGuiCol_Text];
    const ImVec4 red(1, 0.45f, 0.35f, 1), green(0.6f, 0.9f, 0.6f, 1);
    std::vector<Part> parts = {
        {processor.backend_line() + " | " + processor.path_line() + " | " + platform.name(),
         plain}};
    const std::string source_status = source.status();
    if (!source_status.empty()) parts.push_back({"| " + source_status, red});
    bool dismissable = false;
    if (!log.empty()) {
      const Message& m = log.back();
      if (ImGui::GetTime() - m.time < 8.0 || m.error) {
        parts.push_back({"| " + m.text, m.error ? red : green});
        dismissable = m.error;
      }
    }

    const TextMeasure measure = [](std::string_view s) {
      return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x;
    };
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    float avail = ImGui::GetContentRegionAvail().x;
    if (dismissable)
      avail -=
          ImGui::CalcTextSize("dismiss").x + 2 * spacing + 2 * ImGui::GetStyle().FramePadding.x;
    std::vector<float> needed;
    for (const Part& p : parts) needed.push_back(measure(p.text));
    avail -= spacing * float(parts.size() - 1);
    const std::vector<float> widths = share_width(needed, avail);
    bool cut = false;
    ImGui::AlignTextToFramePadding();
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::string shown = ellipsize(parts[i].text, widths[i], measure);
      cut = cut || shown != parts[i].text;
      if (i > 0) ImGui::SameLine();
      ImGui::TextColored(parts[i].color, "%s", shown.c_str());
    }
    if (dismissable) {
      ImGui::SameLine();
      if (ImGui::SmallButton("dismiss")) log.dismiss_newest();
    }
    if (cut && ImGui::IsWindowHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 45.0f);
      for (const Part& p : parts) ImGui::TextColored(p.color, "%s", p.text.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }
  ImGui::End();
  ImGui::PopStyleVar();
}

}  // namespace rf::gui
