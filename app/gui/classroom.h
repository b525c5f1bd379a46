// Presets and their lesson cards: a preset applied over the studio's state (its source opened,
// the view fitted), the deck of lessons walked with Previous / Next, and the card on show.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/gui/canvas.h"
#include "app/gui/lessons.h"
#include "app/gui/messages.h"
#include "app/gui/presets.h"
#include "app/gui/source_slot.h"
#include "app/gui/studio_state.h"

namespace rf::gui {

class Classroom {
 public:
  Classroom(StudioState& state, SourceSlot& source, Canvas& canvas, MessageLog& log)
      : state_(state), source_(source), canvas_(canvas), log_(log) {}

  // The built-in lessons, then those of `folder` (none when empty); a bad one is told.
  void load_deck(const std::string& folder);
  // Shows the card of a preset file the command line applied already.
  void show_preset_file(const std::string& path);

  // Applies a preset's JSON over the current state (the panels stay as they are). `origin`
  // names it (a built-in name or a path) for messages and the deck; a preset with a lesson card
  // shows it.
  void apply_preset_json(const std::string& origin, const nlohmann::json& json);
  // Opens lesson `index` of the deck (nothing outside it).
  void open_lesson(int index);
  // The current state as a preset (the source included when it is a pattern or a file).
  Preset current(const std::string& name) const;

  // The preset whose card shows; its index in the deck, -1 when it is not in it.
  const Preset& card() const { return card_; }
  int index() const { return index_; }
  int size() const { return deck_.size(); }
  // True once after a card opened: the lesson panel unfolds.
  bool take_opened();

 private:
  void show(const Preset& preset, LessonEntry entry);

  StudioState& state_;
  SourceSlot& source_;
  Canvas& canvas_;
  MessageLog& log_;
  LessonDeck deck_;
  Preset card_;
  int index_ = -1;
  bool opened_ = false;
};

}  // namespace rf::gui
