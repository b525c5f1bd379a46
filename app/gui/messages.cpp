#include "app/gui/messages.h"

#include <imgui.h>

#include <cstdio>

namespace rf::gui {

void MessageLog::post(std::string text, bool error) {
  std::fprintf(error ? stderr : stdout, "rfstudio: %s\n", text.c_str());
  // Without a Dear ImGui context (a service driven alone) the time is 0.
  const double now = ImGui::GetCurrentContext() ? ImGui::GetTime() : 0.0;
  messages_.push_back({std::move(text), error, now});
  if (messages_.size() > kMaxMessages) messages_.erase(messages_.begin());
}

}  // namespace rf::gui
