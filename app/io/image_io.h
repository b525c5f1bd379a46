// Reading and writing images: PNG, BMP, TGA, HDR through stb_image, JPEG pixels through
// libjpeg-turbo (its headers still read by stb_image); PFM both ways.
//
// Reading: 8-bit (and 16-bit PNG) data is normalised to [0, 1]; HDR and PFM keep their floats.
// Gray stays 1 channel, gray + alpha 2, RGB 3, RGBA 4. PFM ("Pf" gray, "PF" RGB; float32; the
// sign of the scale gives the byte order; rows stored bottom-up) is parsed here and round-trips
// floats exactly. Refused, as IoError("FILE: problem"):
//   - missing, unreadable or empty files, directories;
//   - unsupported formats, and files the decoders cannot decode;
//   - truncated files, including JPEGs whose entropy-coded data stops before the end-of-image
//     marker (a lenient decoder would fill the rest of such an image with grey);
//   - zero sizes, or more than kMaxSide pixels per side (checked from the header, before any
//     pixel memory is allocated);
//   - PFM with short data, or with NaN or infinite samples: the message gives their count and the
//     first one's position (x, y from the top, channel). A float image with holes is almost always
//     a bug upstream, and filtering would smear each hole over the whole image.
//
// Writing, by the file extension (case-insensitive): .png .jpg/.jpeg .bmp .tga quantise to 8 bits
// (clamped to [0, 1], rounded to nearest, NaN as 0); .hdr writes Radiance RGBE; .pfm writes
// little-endian float32 (1 channel as "Pf", 3 or 4 as "PF": PFM has no alpha, so alpha is dropped).
// The file is written whole or not at all (app/io/atomic_file.h): a failed write leaves an
// existing file at the path untouched and no partial file behind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "filters/core/image.h"

namespace rf::io {

inline constexpr int kMaxSide = 32768;

// Throws IoError naming the file and the problem.
Image read_image(const std::string& path);
// The decoder behind read_image(): the bytes of a file in any of the formats above, `name`
// naming it in errors.
Image decode_image(const std::vector<std::uint8_t>& bytes, const std::string& name);
void write_image(const std::string& path, const Image& img);

}  // namespace rf::io
