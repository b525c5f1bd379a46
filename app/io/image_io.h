// Reading and writing images: PNG, BMP, TGA, HDR through stb_image, JPEG pixels through
// libjpeg-turbo (its headers still read by stb_image), TIFF through libtiff (app/io/tiff.h), 16-bit
// PNG written through libpng; PFM both ways.
//
// Reading: 8-bit and 16-bit data (PNG, TIFF) is normalised to [0, 1]; HDR, PFM and float TIFF keep
// their floats. Gray stays 1 channel, gray + alpha 2, RGB 3, RGBA 4. PFM ("Pf" gray, "PF" RGB;
// float32; the sign of the scale gives the byte order; rows stored bottom-up) is parsed here and
// round-trips floats exactly. read_image() also reports the depth the file stored (`bits`: 8, 16,
// or 32 for float samples: PFM, HDR and float TIFF). Refused, as IoError("FILE: problem"):
//   - missing, unreadable or empty files, directories;
//   - unsupported formats, and files the decoders cannot decode;
//   - truncated files, including JPEGs whose entropy-coded data stops before the end-of-image
//     marker (a lenient decoder would fill the rest of such an image with grey);
//   - zero sizes, or more than kMaxSide pixels per side (checked from the header, before any
//     pixel memory is allocated);
//   - multi-page TIFFs: a 3-D volume, which read_volume() reads (app/io/volume.h);
//   - PFM and float TIFF with NaN or infinite samples: the message gives their count and the
//     first one's position (x, y from the top, channel). A float image with holes is almost always
//     a bug upstream, and filtering would smear each hole over the whole image.
//
// Writing, by the file extension (case-insensitive), at a sample depth `bits` the format stores
// (output_depths()): .png 8 or 16 bits; .tif/.tiff 8, 16 or 32 (float32); .jpg/.jpeg .bmp .tga 8;
// .hdr Radiance RGBE and .pfm little-endian float32 (1 channel as "Pf", 3 or 4 as "PF": PFM has no
// alpha, so alpha is dropped), both 32. bits = 0 asks for the format's default: 8 where it stores
// 8, else 32. Integer samples are clamped to [0, 1] and rounded to the nearest step of 1/255 or
// 1/65535 (NaN as 0), so a 16-bit file read and written again is unchanged. The file is written
// whole or not at all (app/io/atomic_file.h): a failed write leaves an existing file at the path
// untouched and no partial file behind. A stack of images, as one multi-page TIFF, is written by
// write_volume() (app/io/volume.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "filters/core/image.h"

namespace rf::io {

inline constexpr int kMaxSide = 32768;

// Throws IoError naming the file and the problem. `bits`, when given, receives the depth the file
// stored: 8, 16, or 32 for float samples.
Image read_image(const std::string& path, int* bits = nullptr);
// The decoder behind read_image(): the bytes of a file in any of the formats above, `name`
// naming it in errors.
Image decode_image(const std::vector<std::uint8_t>& bytes, const std::string& name,
                   int* bits = nullptr);
// The bytes read_image() decodes: the whole file, refused as above when it is missing,
// unreadable, empty or a directory.
std::vector<std::uint8_t> read_image_file(const std::string& path);
// Refuses `img` when it holds NaN or infinite samples, as read_image() does for PFM and float TIFF
// (`format` names it in the message); `name` names the file, or the page of one.
void check_finite(const std::string& name, const Image& img, const char* format);

// The extensions of the formats above, lower-case, for folder listings: a file's bytes decide how
// it is decoded, its extension only whether a folder's file is taken for an image.
inline constexpr const char* kImageExtensions = "png, jpg, jpeg, bmp, tga, hdr, tif, tiff, pfm";
bool has_image_extension(const std::string& path);  // case-insensitive

// The depths write_image() can write for the format of `path` (by its extension), in increasing
// order: {8, 16} for .png, {8, 16, 32} for .tif, {32} for .pfm. Throws IoError for an extension it
// does not write.
std::vector<int> output_depths(const std::string& path);

// The depth write_image() writes to `path` for `bits`: `bits` itself, or for 0 the format's
// default. Throws IoError when `bits` is not among output_depths(path).
int output_depth(const std::string& path, int bits);

// Throws IoError when `bits` (0: the format's default) is not among output_depths(path).
void write_image(const std::string& path, const Image& img, int bits = 0);

// The 16-bit conversion: a sample u is u / 65535; a float goes back to the nearest step, clamped
// to [0, 65535], NaN as 0.
inline float from_unorm16(std::uint16_t v) {
  return float(v) / 65535.0f;
}
std::uint16_t to_unorm16(float v);

}  // namespace rf::io
