#include "app/gui/classroom.h"

#include <exception>

namespace rf::gui {

void Classroom::load_deck(const std::string& folder) {
  try {
    deck_ = LessonDeck::built_in();
    if (!folder.empty()) deck_.add_folder(folder);
  } catch (const std::exception& e) {
    log_.post(std::string("lessons: ") + e.what(), true);
  }
}

void Classroom::show_preset_file(const std::string& path) {
  try {
    LessonEntry e = load_lesson_file(path);
    const Preset p = e.preset;
    show(p, std::move(e));
  } catch (const std::exception& e) {
    log_.post(e.what(), true);
  }
}

void Classroom::show(const Preset& p, LessonEntry entry) {
  // The card belongs to the file (the current state carries none): a preset without one
  // closes the previous card.
  card_ = p;
  index_ = p.lesson.empty() ? -1 : deck_.add(std::move(entry));
  opened_ = true;
  const std::string what = p.name + (p.description.empty() ? "" : " - " + p.description);
  if (index_ >= 0)
    log_.post("lesson " + std::to_string(index_ + 1) + "/" + std::to_string(deck_.size()) + ": " +
              what);
  else
    log_.post("preset: " + what);
}

Preset Classroom::current(const std::string& name) const {
  return make_preset(name, state_.spec, state_.view, state_.diff, source_.choice());
}

void Classroom::apply_preset_json(const std::string& origin, const nlohmann::json& json) {
  Preset p;
  try {
    p = preset_from_json(json, current("current"));
  } catch (const std::exception& e) {
    log_.post(origin + ": " + e.what(), true);
    return;
  }
  state_.spec = p.spec;
  const bool show_ui = state_.view.show_ui;
  state_.view = p.view;
  state_.view.show_ui = show_ui;
  state_.diff = p.diff;
  if (p.source) open_source(source_, log_, *p.source);
  canvas_.fit();
  LessonEntry e;
  e.source = origin;
  e.json = json;
  e.preset = p;
  show(p, std::move(e));
}

void Classroom::open_lesson(int index) {
  if (index < 0 || index >= deck_.size()) return;
  const LessonEntry e = deck_.entries()[index];
  apply_preset_json(e.source, e.json);
}

bool Classroom::take_opened() {
  const bool opened = opened_;
  opened_ = false;
  return opened;
}

}  // namespace rf::gui
