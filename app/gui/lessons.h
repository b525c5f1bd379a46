// The classroom's lessons: presets that carry a lesson card, in the order a teacher walks through
// them (Next / Previous). The built-in ones are the presets compiled in from assets/presets/; a
// teacher adds more as JSON files (a preset with a "lesson" object, docs/lessons.md), from a
// folder (--lessons DIR) or one at a time (--preset FILE, or Load in the Export panel).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/presets.h"

namespace rf::gui {

struct LessonEntry {
  std::string source;   // "assets/presets/x.json" (built in) or the file's path
  nlohmann::json json;  // applied over the current state when the lesson opens
  Preset preset;        // the same, read over the defaults: name, description, lesson card
};

class LessonDeck {
 public:
  // The built-in presets that carry a lesson, in lesson order. Throws InvalidParameter naming
  // the file when one does not parse.
  static LessonDeck built_in();

  // Every *.json in `dir` that carries a lesson; throws IoError or InvalidParameter naming the
  // folder or the file.
  void add_folder(const std::string& dir);
  // Inserts an entry, keeping lesson order (then source), or replaces the one with the same
  // source or the same JSON (a built-in preset opened from its file). Returns its index.
  int add(LessonEntry entry);
  // -1 when absent.
  int find(const std::string& source) const;

  const std::vector<LessonEntry>& entries() const { return entries_; }
  int size() const { return int(entries_.size()); }

 private:
  std::vector<LessonEntry> entries_;
};

// Parses a preset's JSON text into an entry; throws InvalidParameter naming `source`.
LessonEntry lesson_entry(const std::string& source, const std::string& text);
// The same from a file; throws IoError or InvalidParameter naming it.
LessonEntry load_lesson_file(const std::string& path);

}  // namespace rf::gui
