// Messages for people: what the status bar shows (the newest), each also printed on the terminal
// with the program's name (errors on stderr).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rf::gui {

struct Message {
  std::string text;
  bool error = false;
  double time = 0.0;  // ImGui::GetTime() when posted
};

class MessageLog {
 public:
  // Keeps the newest kMaxMessages.
  void post(std::string text, bool error = false);
  // The newest message goes (the status bar's dismiss button).
  void dismiss_newest() { messages_.pop_back(); }

  bool empty() const { return messages_.empty(); }
  std::size_t size() const { return messages_.size(); }
  const Message& back() const { return messages_.back(); }
  std::vector<Message>::const_iterator begin() const { return messages_.begin(); }
  std::vector<Message>::const_iterator end() const { return messages_.end(); }

  static constexpr std::size_t kMaxMessages = 50;

 private:
  std::vector<Message> messages_;
};

}  // namespace rf::gui
