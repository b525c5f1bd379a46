// libFuzzer target: a preset file's text, as rfstudio --preset and the classroom presets read it.
// A clean refusal is IoError (not JSON) or InvalidParameter (not a preset). An accepted preset
// must survive what the studio does next: applied to the options, written back as JSON, and
// its filter checked.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "app/gui/presets.h"
#include "filters/core/design.h"
#include "filters/core/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  rf::gui::Preset preset;
  try {
    preset = rf::gui::parse_preset(text, "input.json");
  } catch (const rf::IoError&) {
    return 0;
  } catch (const rf::InvalidParameter&) {
    return 0;
  }
  rf::gui::StudioOptions options;
  rf::gui::apply_preset(preset, &options);
  (void)rf::gui::to_json(preset).dump(2);
  (void)rf::describe(options.spec);
  try {
    rf::validate(options.spec);
  } catch (const rf::InvalidParameter&) {
  }
  return 0;
}
