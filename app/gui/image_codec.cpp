// stb_image and stb_image_write compiled with static linkage: this file's private copy cannot
// collide with the one rf::io links.
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG  // the built-in image and the tests' screenshots
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include "app/gui/image_codec.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image.h>
#include <stb_image_write.h>
#pragma GCC diagnostic pop

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

#include "app/io/atomic_file.h"
#include "filters/core/errors.h"

namespace rf::gui {

Rgba8Image decode_image(std::string_view bytes, const std::string& what) {
  int w = 0, h = 0, n = 0;
  if (!stbi_info_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), int(bytes.size()), &w,
                             &h, &n))
    throw IoError(what + ": not a readable image (" + stbi_failure_reason() + ")");
  if (w <= 0 || h <= 0 || w > 32768 || h > 32768)
    throw IoError(what + ": absurd size " + std::to_string(w) + "x" + std::to_string(h));
  stbi_uc* data = stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()),
                                        int(bytes.size()), &w, &h, &n, 4);
  if (!data) throw IoError(what + ": cannot decode (" + stbi_failure_reason() + ")");
  Rgba8Image img;
  img.width = w;
  img.height = h;
  img.pixels.assign(data, data + std::size_t(w) * h * 4);
  stbi_image_free(data);
  return img;
}

Rgba8Image read_png(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw IoError(path + ": cannot open");
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return decode_image(bytes, path);
}

void write_png(const std::string& path, const Rgba8Image& img) {
  io::write_atomically(path, [&](const std::string& temp) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(temp.c_str(), "wb"), std::fclose);
    if (!f) throw IoError(path + ": cannot write the PNG (" + std::strerror(errno) + ")");
    // Through a callback, so that a short write (a full disk) is seen: stb_image_write ignores
    // fwrite's result when it writes to a file by name.
    struct Sink {
      std::FILE* f;
      bool failed = false;
    } sink{f.get()};
    const auto put = [](void* context, void* data, int size) {
      Sink* s = static_cast<Sink*>(context);
      s->failed = s->failed || std::fwrite(data, 1, std::size_t(size), s->f) != std::size_t(size);
    };
    // Screenshots of the UI: the Sub filter on every row instead of stb's per-row trial of all
    // five filters is 2.6x faster to encode (a 1604x1032 view: 474 -> 182 ms in the sanitized
    // build) and compresses flat panels as well. This file's stb copy is private, so rf::io's
    // image outputs keep the adaptive choice.
    stbi_write_force_png_filter = 1;
    const bool ok = stbi_write_png_to_func(put, &sink, img.width, img.height, 4, img.pixels.data(),
                                           img.width * 4) != 0;
    if (!ok || sink.failed || std::fclose(f.release()) != 0)
      throw IoError(path + ": cannot write the PNG");
  });
}

}  // namespace rf::gui
