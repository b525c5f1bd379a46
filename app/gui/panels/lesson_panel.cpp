// The lesson card: what to look at, what it shows and which paper section, for the preset that
// was loaded last; Previous / Next walk through the lessons in order.
#include <imgui.h>

#include <cstdio>
#include <string>

#include "app/gui/panels/panels.h"
#include "app/gui/studio.h"

namespace rf::gui {
namespace {

void section(const char* title, const std::string& text) {
  if (text.empty()) return;
  ImGui::TextColored(ImVec4(1.0f, 0.82f, 0.35f, 1.0f), "%s", title);
  ImGui::TextWrapped("%s", text.c_str());
}

}  // namespace

void lesson_panel(Studio& st) {
  const Lesson& card = st.lesson.lesson;
  const int count = st.lessons.size();
  char header[160];
  if (card.empty())
    std::snprintf(header, sizeof header, "Lessons (%d)###lesson", count);
  else if (st.lesson_index >= 0)
    std::snprintf(header, sizeof header, "Lesson %d/%d: %s###lesson", st.lesson_index + 1, count,
                  st.lesson.name.c_str());
  else
    std::snprintf(header, sizeof header, "Lesson: %s###lesson", st.lesson.name.c_str());
  if (st.lesson_opened) {
    ImGui::SetNextItemOpen(true);
    st.lesson_opened = false;
  }
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
  const int at = st.lesson_index;
  ImGui::BeginDisabled(at <= 0);
  if (ImGui::Button("< Previous")) st.open_lesson(at - 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(at + 1 >= count);
  if (ImGui::Button(at < 0 ? "Start >" : "Next >")) st.open_lesson(at + 1);
  ImGui::EndDisabled();
}

}  // namespace rf::gui
