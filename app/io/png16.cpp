#include "app/io/png16.h"

#include <png.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "app/io/image_io.h"
#include "filters/core/errors.h"

namespace rf::io {
namespace {

struct PngState {
  char error[256] = "";
};

void on_error(png_structp png, png_const_charp message) {
  auto* s = static_cast<PngState*>(png_get_error_ptr(png));
  std::snprintf(s->error, sizeof s->error, "%s", message);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

// libpng reports errors by longjmp: no object with a destructor lives in this function, and
// everything it writes is prepared by the caller. False on failure, with state->error set.
bool encode(std::FILE* f, int width, int height, int color_type, png_bytepp rows, PngState* state) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, state, on_error, on_warning);
  if (!png) {
    std::snprintf(state->error, sizeof state->error, "out of memory");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    std::snprintf(state->error, sizeof state->error, "out of memory");
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), 16, color_type,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

void write_png16(std::FILE* f, const std::string& path, const Image& img) {
  static const int kColorTypes[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                    PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  // PNG stores 16-bit samples big-endian.
  std::vector<std::uint8_t> data(img.pixels.size() * 2);
  for (std::size_t i = 0; i < img.pixels.size(); ++i) {
    const std::uint16_t v = to_unorm16(img.pixels[i]);
    data[2 * i] = std::uint8_t(v >> 8);
    data[2 * i + 1] = std::uint8_t(v & 0xFF);
  }
  const std::size_t row = std::size_t(img.width) * img.channels * 2;
  std::vector<png_bytep> rows(std::size_t(img.height));
  for (std::size_t y = 0; y < rows.size(); ++y) rows[y] = data.data() + y * row;
  PngState state;
  errno = 0;
  if (!encode(f, img.width, img.height, kColorTypes[img.channels - 1], rows.data(), &state)) {
    const int err = errno;
    throw IoError(path + ": write error (" + (err ? std::strerror(err) : state.error) + ")");
  }
}

}  // namespace rf::io
