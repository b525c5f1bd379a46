// libFuzzer target: rf::io::decode_image, the decoder behind every image read by rfcli and the
// studio's file sources (PNG, JPEG, BMP, TGA, HDR through stb_image; TIFF through libtiff; PFM
// parsed here).
// A clean refusal is an IoError; anything else (a crash, a sanitizer report, another exception,
// an image that breaks its own invariants) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "app/io/image_io.h"
#include "filters/core/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::uint8_t> bytes(data, data + size);
  try {
    const rf::Image img = rf::io::decode_image(bytes, "input");
    if (img.width < 1 || img.height < 1 || img.width > rf::io::kMaxSide ||
        img.height > rf::io::kMaxSide || img.channels < 1 || img.channels > 4 ||
        img.pixels.size() != std::size_t(img.width) * img.height * img.channels)
      std::abort();
  } catch (const rf::IoError&) {
  }
  return 0;
}
