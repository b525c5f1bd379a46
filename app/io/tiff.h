// TIFF through libtiff, for rf::io::read_image() and write_image() (app/io/image_io.h) and for
// volumes, read_volume() and write_volume() (app/io/volume.h).
//
// A file is a list of full-resolution pages; reduced-resolution pages (thumbnails, pyramid levels)
// are skipped. One reader decodes every page, from memory:
//   - 8-bit and 16-bit unsigned samples (normalised to [0, 1]) and 32-bit float samples, 1 to 4 a
//     pixel (gray, gray + alpha, RGB, RGBA; min-is-white gray is inverted), interleaved or in
//     separate planes, in strips or tiles, with any compression libtiff decodes;
//   - other 8-bit-or-less layouts libtiff's RGBA interface converts (palette, bilevel, YCbCr,
//     CMYK) as RGB or gray, with alpha when the file has one, reported as 8 bits;
//   - the Orientation tag is honoured by that RGBA path only: rows are read top-down as stored.
// decode_tiff() takes a file of one page, decode_tiff_pages() any number of alike pages: every
// directory is read and every page's header checked before any sample is decoded. Refused, as
// IoError("FILE: problem") in one line (libtiff's own errors and warnings never reach stderr; its
// first error is quoted in the message; a problem of one page of several says "FILE: page 3: ..."):
//   - other sample types (signed, 32-bit integer, 64-bit float), more than 4 samples a pixel;
//   - NaN or infinite float samples (as read_image() refuses them);
//   - by decode_tiff(), a file of more than one page: a 3-D volume (z, time or channels), which
//     reading page 1 alone would drop silently;
//   - by decode_tiff_pages(), pages that differ in size, channel count or depth (the first
//     mismatch is named), more than kMaxPages pages, or more than kMaxVolumeSamples samples in all;
//   - a directory that cannot be read, anywhere in the chain: a stack cut short is not a shorter
//   one;
//   - directories whose tables add up to more bytes than the file holds (they overlap, or share
//     one table: no writer does that, and libtiff would parse the same bytes once for every page);
//   - a strip or tile that lies past the end of the file, or image data that would have to expand
//     more than kMaxTiffExpansion times in decoding (no codec of a real file comes close; a few
//     bytes claiming gigapixels do);
//   - anything libtiff cannot decode.
//
// Writing: 8-bit or 16-bit unsigned (Deflate, horizontal predictor) or 32-bit float (Deflate);
// gray or RGB, alpha as an unassociated extra sample; one page per image of a stack (marked as
// pages with SubfileType and PageNumber where there are several), BigTIFF where the samples come
// near classic TIFF's 4 GiB.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "filters/core/image.h"

namespace rf::io {

inline constexpr double kMaxTiffExpansion = 4096.0;
// The most full-resolution pages a file may hold, and the most samples (pages x rows x columns x
// channels) its pages may decode to in all: 2^32 floats, 16 GiB. One page never exceeds the
// latter (kMaxSide^2 x 4 samples).
inline constexpr int kMaxPages = 65536;
inline constexpr double kMaxVolumeSamples = 4294967296.0;

// "II*\0" or "MM\0*" (classic TIFF), "II+\0" or "MM\0+" (BigTIFF).
bool is_tiff(const std::vector<std::uint8_t>& bytes);

// Alike pages: `count` images of `width` x `height` pixels of `channels` samples, stored at `bits`
// (8, 16 or 32: float).
struct TiffPages {
  int count = 0, width = 0, height = 0, channels = 0, bits = 0;
};

// The page of a TIFF file of one page; `name` names the file in errors; `bits` receives 8, 16
// or 32 (float).
Image decode_tiff(const std::vector<std::uint8_t>& bytes, const std::string& name, int* bits);

// Every full-resolution page of a TIFF file, in file order. Once all pages' headers have been
// checked, each page is decoded and handed to `take`, to keep or copy, with the pages' common
// shape and its index z from 0: a caller fills one buffer of shape.count pages without ever
// holding the stack twice. Returns the shape.
using TiffPageSink = std::function<void(const TiffPages& shape, int z, Image&& page)>;
TiffPages decode_tiff_pages(const std::vector<std::uint8_t>& bytes, const std::string& name,
                            const TiffPageSink& take);

// Writes `pages` at pages.bits from `samples` (page after page, each `height` rows of `width`
// pixels of `channels` interleaved floats) to the file at `file`, which it creates; errors name
// `path`, the destination the caller reports. One page gives the file write_tiff() writes.
void write_tiff_pages(const std::string& file, const std::string& path, const TiffPages& pages,
                      const float* samples);
// `img` as a TIFF of one page at `bits`.
void write_tiff(const std::string& file, const std::string& path, const Image& img, int bits);

}  // namespace rf::io
