// TIFF through libtiff, for rf::io::read_image() and write_image() (app/io/image_io.h).
//
// Reading takes the first page of a file, from memory:
//   - 8-bit and 16-bit unsigned samples (normalised to [0, 1]) and 32-bit float samples, 1 to 4 a
//     pixel (gray, gray + alpha, RGB, RGBA; min-is-white gray is inverted), interleaved or in
//     separate planes, in strips or tiles, with any compression libtiff decodes;
//   - other 8-bit-or-less layouts libtiff's RGBA interface converts (palette, bilevel, YCbCr,
//     CMYK) as RGB or gray, with alpha when the file has one, reported as 8 bits;
//   - the Orientation tag is honoured by that RGBA path only: rows are read top-down as stored.
// Refused, as IoError("FILE: problem") in one line (libtiff's own errors and warnings never reach
// stderr; its first error is quoted in the message):
//   - other sample types (signed, 32-bit integer, 64-bit float), more than 4 samples a pixel;
//   - a file with more than one full-resolution page (a stack: z, time or channels): rf filters 2-D
//     images, and reading page 1 alone would drop the rest silently. Reduced-resolution pages
//     (thumbnails, pyramid levels) do not count;
//   - a strip or tile that lies past the end of the file, or image data that would have to expand
//     more than kMaxTiffExpansion times in decoding (no codec of a real file comes close; a few
//     bytes claiming gigapixels do);
//   - anything libtiff cannot decode.
//
// Writing: 8-bit or 16-bit unsigned (Deflate, horizontal predictor) or 32-bit float (Deflate);
// gray or RGB, alpha as an unassociated extra sample; one page.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "filters/core/image.h"

namespace rf::io {

inline constexpr double kMaxTiffExpansion = 4096.0;

// "II*\0" or "MM\0*" (classic TIFF), "II+\0" or "MM\0+" (BigTIFF).
bool is_tiff(const std::vector<std::uint8_t>& bytes);

// The first page of a TIFF file's bytes; `name` names the file in errors; `bits` receives 8, 16
// or 32 (float).
Image decode_tiff(const std::vector<std::uint8_t>& bytes, const std::string& name, int* bits);

// Writes `img` as a TIFF of `bits` (8, 16 or 32: float) to the file at `file`, which it creates;
// errors name `path`, the destination the caller reports.
void write_tiff(const std::string& file, const std::string& path, const Image& img, int bits);

}  // namespace rf::io
