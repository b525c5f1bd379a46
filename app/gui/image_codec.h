// 8-bit image encoding and decoding inside rfstudio: the embedded default image, screenshots,
// and reading screenshots back in tests. Float results go through rf::io (PNG and PFM).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rf::gui {

struct Rgba8Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  // RGBA, rows top to bottom, packed
};

// Throws IoError naming `what` (a file name) when the bytes are not a readable image.
Rgba8Image decode_image(std::string_view bytes, const std::string& what);
Rgba8Image read_png(const std::string& path);
// Throws IoError naming the file when it cannot be written.
void write_png(const std::string& path, const Rgba8Image& img);

}  // namespace rf::gui
