// Files compiled into rfstudio: shaders, classroom presets and the default image.
#pragma once

#include <string_view>
#include <vector>

namespace rf::gui {

struct EmbeddedFile {
  const char* name;            // path relative to the source tree: "shaders/view.frag.glsl"
  const unsigned char* begin;  // followed by a NUL byte at `end`, so text can be used as a C string
  const unsigned char* end;
  std::string_view bytes() const {
    return {reinterpret_cast<const char*>(begin), std::size_t(end - begin)};
  }
};

const std::vector<EmbeddedFile>& embedded_files();

// The embedded file of that name; throws std::out_of_range naming it when absent.
std::string_view embedded(std::string_view name);

// Names of the embedded files under `prefix` ("assets/presets/").
std::vector<std::string_view> embedded_names(std::string_view prefix);

}  // namespace rf::gui
