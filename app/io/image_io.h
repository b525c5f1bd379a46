// Reading and writing images: PNG, JPEG, BMP, TGA, HDR through stb_image; PFM both ways.
#pragma once

#include <string>

#include "filters/image.h"

namespace rf::io {

// Throws IoError naming the file and the problem.
Image read_image(const std::string& path);
void write_image(const std::string& path, const Image& img);

}  // namespace rf::io
