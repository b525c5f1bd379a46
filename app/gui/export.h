// Export: screenshots of the framebuffer, results as PNG or PFM, JSON sidecars.
#pragma once

#include <string>

#include "app/gui/image_codec.h"
#include "filters/core/image.h"

namespace rf::gui {

// The framebuffer's pixels, rows top to bottom (GL returns them bottom-up).
Rgba8Image read_framebuffer(unsigned framebuffer, int width, int height);

// The RGB channels of a float RGBA result through rf::io: .png quantises to 8 bits, .pfm keeps
// float32. Throws IoError naming the file.
void write_result(const std::string& path, const Image& rgba);

void write_text(const std::string& path, const std::string& text);

}  // namespace rf::gui
