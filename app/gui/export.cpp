#include "app/gui/export.h"

#include <glad/gl.h>

#include <cstring>
#include <fstream>

#include "app/io/atomic_file.h"
#include "app/io/image_io.h"
#include "filters/core/errors.h"

namespace rf::gui {

Rgba8Image read_framebuffer(unsigned framebuffer, int width, int height) {
  Rgba8Image img;
  img.width = width;
  img.height = height;
  img.pixels.resize(std::size_t(width) * height * 4);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
  if (framebuffer == 0) glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, img.pixels.data());
  const std::size_t row = std::size_t(width) * 4;
  std::vector<std::uint8_t> tmp(row);
  for (int y = 0; y < height / 2; ++y) {
    std::uint8_t* a = img.pixels.data() + row * y;
    std::uint8_t* b = img.pixels.data() + row * (height - 1 - y);
    std::memcpy(tmp.data(), a, row);
    std::memcpy(a, b, row);
    std::memcpy(b, tmp.data(), row);
  }
  // The UI is opaque; alpha from blending would make viewers show it translucent.
  for (std::size_t i = 3; i < img.pixels.size(); i += 4) img.pixels[i] = 255;
  return img;
}

void write_result(const std::string& path, const Image& rgba) {
  Image rgb(rgba.width, rgba.height, 3);
  for (std::size_t i = 0; i < std::size_t(rgba.width) * rgba.height; ++i)
    for (int c = 0; c < 3; ++c)
      rgb.pixels[3 * i + c] = rgba.pixels[std::size_t(rgba.channels) * i + c];
  io::write_image(path, rgb);
}

void write_text(const std::string& path, const std::string& text) {
  io::write_atomically(path, [&](const std::string& temp) {
    std::ofstream f(temp);
    f << text << "\n";
    f.close();
    if (!f) throw IoError(path + ": cannot write");
  });
}

}  // namespace rf::gui
