// The lesson card: what to look at, what it shows and which paper section, for the preset that
// was loaded last; Previous / Next walk through the lessons in order.
#include <imgui.h>

#include <cstdio>
#include <string>

#include "app/gui/classroom.h"
#include "app/gui/panels/panels.h"

namespace rf::gui {
namespace {

void section(const char* title, const std::string& text) {
  if (text.empty()) return;
  ImGui::TextColored(ImVec4(1.0f, 0.82f, 0.35f, 1.0f), "%s", title);
  ImGui::TextWrapped("%s", text.c_str());
}

}  // namespace

void lesson_panel(Classroom& classroom) {
  const Preset& preset = classroom.card();
  const Lesson& card = preset.lesson;
  const int count = classroom.size();
  const int at = classroom.index();
  char header[160];
  if (card.empty())
    std::snprintf(header, sizeof header, "Lessons (%d)###lesson", count);
  else if (at >= 0)
    std::snprintf(header, sizeof header, "Lesson %d/%d: %s###lesson", at + 1, count,
                  preset.name.c_str());
  else
    std::snprintf(header, sizeof header, "Lesson: %s###lesson", preset.name.c_str());
  if (classroom.take_opened()) ImGui::SetNextItemOpen(true);
  if (!ImGui::CollapsingHeader(header)) return;
  if (card.empty()) {
    ImGui::TextWrapped(
        "Each classroom preset sets up a filter and a view and says what to look at. Next opens "
        "the first; Load in Export and presets opens a lesson of your own (docs/lessons.md).");
  } else {
    section("Look at", card.look);
    section("What it shows", card.shows);
    section("Paper", card.paper);
  }
  ImGui::BeginDisabled(at <= 0);
  if (ImGui::Button("< Previous")) classroom.open_lesson(at - 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(at + 1 >= count);
  if (ImGui::Button(at < 0 ? "Start >" : "Next >")) classroom.open_lesson(at + 1);
  ImGui::EndDisabled();
}

}  // namespace rf::gui
