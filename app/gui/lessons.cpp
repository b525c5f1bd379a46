#include "app/gui/lessons.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/gui/embedded.h"
#include "filters/core/errors.h"

namespace rf::gui {

LessonEntry lesson_entry(const std::string& source, const std::string& text) {
  LessonEntry e;
  e.source = source;
  try {
    e.json = nlohmann::json::parse(text);
    e.preset = preset_from_json(e.json, Preset{});
  } catch (const nlohmann::json::parse_error& ex) {
    throw InvalidParameter(source + ": not valid JSON (" + ex.what() + ")");
  } catch (const InvalidParameter& ex) {
    throw InvalidParameter(source + ": " + ex.what());
  }
  return e;
}

LessonEntry load_lesson_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw IoError(path + ": cannot open the preset");
  std::ostringstream text;
  text << in.rdbuf();
  return lesson_entry(path, text.str());
}

LessonDeck LessonDeck::built_in() {
  LessonDeck deck;
  for (std::string_view name : embedded_names("assets/presets/")) {
    LessonEntry e = lesson_entry(std::string(name), std::string(embedded(name)));
    if (!e.preset.lesson.empty()) deck.add(std::move(e));
  }
  return deck;
}

void LessonDeck::add_folder(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw IoError(dir + ": not a folder of lessons");
  std::vector<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec))
    if (f.path().extension() == ".json") files.push_back(f.path().string());
  if (ec) throw IoError(dir + ": cannot list the folder (" + ec.message() + ")");
  std::sort(files.begin(), files.end());
  for (const std::string& path : files) {
    LessonEntry e = load_lesson_file(path);
    if (!e.preset.lesson.empty()) add(std::move(e));
  }
}

int LessonDeck::add(LessonEntry entry) {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].source == entry.source || entries_[i].json == entry.json) {
      // A built-in lesson keeps its name when it is opened from its file.
      if (entries_[i].json == entry.json) entry.source = entries_[i].source;
      entries_.erase(entries_.begin() + i);
      break;
    }
  auto before = [](const LessonEntry& a, const LessonEntry& b) {
    if (a.preset.lesson.order != b.preset.lesson.order)
      return a.preset.lesson.order < b.preset.lesson.order;
    return a.source < b.source;
  };
  const auto at = std::upper_bound(entries_.begin(), entries_.end(), entry, before);
  const int index = int(at - entries_.begin());
  entries_.insert(at, std::move(entry));
  return index;
}

int LessonDeck::find(const std::string& source) const {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].source == source) return int(i);
  return -1;
}

}  // namespace rf::gui
