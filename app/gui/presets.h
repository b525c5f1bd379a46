// Presets: the filter spec, view and diff settings (and optionally a source) as JSON, for saving
// a setup and for the classroom presets shipped in assets/presets/. Every key is optional; a
// missing key keeps the current value.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "app/gui/options.h"

namespace rf::gui {

// A lesson card: the short text a preset carries for the classroom. `order` places it in the
// walk through the lessons (Next / Previous).
struct Lesson {
  int order = 0;
  std::string look;   // what to look at
  std::string shows;  // what it shows
  std::string paper;  // which paper section
  bool empty() const { return look.empty() && shows.empty() && paper.empty(); }
};

struct Preset {
  std::string name;
  std::string description;
  Lesson lesson;
  FilterSpec spec;
  ViewSettings view;
  DiffSettings diff;
  std::optional<SourceChoice> source;
};

// The preset of the current state (source included when it is a pattern or a file).
Preset make_preset(const std::string& name, const FilterSpec& spec, const ViewSettings& view,
                   const DiffSettings& diff, std::optional<SourceChoice> source);

nlohmann::json to_json(const Preset& preset);
// Reads over `base` (the current state): keys present replace its values. The "filter" object is
// read as rfcli reads its options (rf::parse_spec): a kind named without its order or extension
// takes the kind's defaults, and a bad name or value throws rfcli's message. Other keys throw
// InvalidParameter naming the key for an unknown name or a value of the wrong type.
Preset preset_from_json(const nlohmann::json& j, const Preset& base);

// A preset file's text (`name` names it in errors): throws IoError for text that is not JSON,
// InvalidParameter for content that is not a preset.
Preset parse_preset(std::string_view text, const std::string& name, const Preset& base = {});
// Throws IoError (file) or InvalidParameter (content), naming the file.
Preset load_preset_file(const std::string& path, const Preset& base = {});
void save_preset_file(const std::string& path, const Preset& preset);

// Applies a preset to the command line's state (options given explicitly are applied after).
void apply_preset(const Preset& preset, StudioOptions* options);

}  // namespace rf::gui
