// 16-bit PNG writing through libpng, for rf::io::write_image() (stb_image_write writes 8 bits
// only; reading stays with stb_image).
#pragma once

#include <cstdio>
#include <string>

#include "filters/core/image.h"

namespace rf::io {

// Writes `img` (1 to 4 channels: gray, gray + alpha, RGB, RGBA) to `f` as a 16-bit PNG, each
// sample to_unorm16(). Throws IoError naming `path` when the encoder or a write fails.
void write_png16(std::FILE* f, const std::string& path, const Image& img);

}  // namespace rf::io
