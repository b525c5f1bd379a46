#include "app/io/volume.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "app/io/atomic_file.h"
#include "app/io/image_io.h"
#include "app/io/tiff.h"
#include "filters/core/errors.h"

namespace rf::io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw IoError(path + ": " + problem);
}

bool tiff_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".tif" || ext == ".tiff";
}

}  // namespace

Volume read_volume(const std::string& path, int* bits, std::size_t max_samples) {
  const std::vector<std::uint8_t> bytes = read_image_file(path);
  if (!is_tiff(bytes)) {
    Image img = decode_image(bytes, path, bits);
    return Volume{img.width, img.height, 1, img.channels, std::move(img.pixels)};
  }
  // Each page goes to its place in one buffer as it is decoded: the stack is never held twice.
  Volume v;
  const TiffPages pages =
      decode_tiff_pages(bytes, path, [&](const TiffPages& shape, int z, Image&& page) {
        if (z == 0) {
          const std::size_t samples = page.pixels.size() * std::size_t(shape.count);
          if (max_samples && shape.count > 1 && samples > max_samples)
            fail(path, std::to_string(shape.count) + " pages of " + std::to_string(shape.width) +
                           "x" + std::to_string(shape.height) + ": " + std::to_string(samples) +
                           " samples, more than the " + std::to_string(max_samples) +
                           " taken here");
          v = Volume{shape.width, shape.height, shape.count, shape.channels,
                     std::vector<float>(samples)};
        }
        std::copy(page.pixels.begin(), page.pixels.end(),
                  v.voxels.begin() + std::ptrdiff_t(page.pixels.size() * std::size_t(z)));
      });
  if (bits) *bits = pages.bits;
  return v;
}

void write_volume(const std::string& path, const Volume& v, int bits) {
  if (v.width < 1 || v.height < 1 || v.depth < 1 || v.channels < 1 || v.channels > 4 ||
      v.voxels.size() != std::size_t(v.width) * v.height * v.depth * v.channels)
    fail(path, "nothing to write: the volume is empty or malformed");
  if (!tiff_extension(path)) {
    if (v.depth != 1)
      fail(path, "a volume of " + std::to_string(v.depth) +
                     " pages needs .tif or .tiff (one page per z): other formats hold one image");
    Image img(v.width, v.height, v.channels);
    img.pixels = v.voxels;
    write_image(path, img, bits);
    return;
  }
  if (v.depth > kMaxPages)
    fail(path, "a volume of " + std::to_string(v.depth) + " pages: TIFF volumes of at most " +
                   std::to_string(kMaxPages) + " pages are read");
  TiffPages pages;
  pages.count = v.depth;
  pages.width = v.width;
  pages.height = v.height;
  pages.channels = v.channels;
  pages.bits = output_depth(path, bits);
  write_atomically(
      path, [&](const std::string& temp) { write_tiff_pages(temp, path, pages, v.voxels.data()); });
}

}  // namespace rf::io
