#include "app/io/tiff.h"

#include <tiffio.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "app/io/image_io.h"
#include "filters/core/errors.h"

namespace rf::io {
namespace {

[[noreturn]] void fail(const std::string& name, const std::string& problem) {
  throw IoError(name + ": " + problem);
}

// libtiff's messages for one handle: the first error is kept for the IoError, warnings are
// dropped. Nothing goes to stderr.
struct Messages {
  std::string error;
};

int on_error(TIFF*, void* user, const char*, const char* fmt, va_list ap) {
  auto* m = static_cast<Messages*>(user);
  if (m->error.empty()) {
    char text[512];
    std::vsnprintf(text, sizeof text, fmt, ap);
    m->error = text;
    for (char& c : m->error)
      if (c == '\n' || c == '\r') c = ' ';
  }
  return 1;  // handled: the process-wide handler is not called
}

int on_warning(TIFF*, void*, const char*, const char*, va_list) {
  return 1;
}

// libtiff reports through process-wide handlers where it has no handle to report through; they
// are silenced once, so that a message never reaches stderr.
void silence_global_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    TIFFSetErrorHandler(nullptr);
    TIFFSetWarningHandler(nullptr);
  });
}

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};
using Tiff = std::unique_ptr<TIFF, TiffCloser>;

struct Options {
  TIFFOpenOptions* opts = TIFFOpenOptionsAlloc();
  explicit Options(Messages& m) {
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, &m);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, nullptr);
  }
  ~Options() { TIFFOpenOptionsFree(opts); }
  Options(const Options&) = delete;
  Options& operator=(const Options&) = delete;
};

// ---- reading from memory ---------------------------------------------------------------------

struct Source {
  const std::uint8_t* data;
  toff_t size;
  toff_t pos = 0;
};

tmsize_t source_read(thandle_t h, void* buf, tmsize_t n) {
  auto* s = static_cast<Source*>(h);
  if (n <= 0 || s->pos >= s->size) return 0;
  const toff_t got = std::min<toff_t>(toff_t(n), s->size - s->pos);
  std::memcpy(buf, s->data + s->pos, got);
  s->pos += got;
  return tmsize_t(got);
}
tmsize_t source_write(thandle_t, void*, tmsize_t) {
  return -1;
}
toff_t source_seek(thandle_t h, toff_t offset, int whence) {
  auto* s = static_cast<Source*>(h);
  const toff_t base = whence == SEEK_CUR ? s->pos : whence == SEEK_END ? s->size : 0;
  s->pos = base + offset;  // past the end: reads return nothing
  return s->pos;
}
int source_close(thandle_t) {
  return 0;
}
toff_t source_size(thandle_t h) {
  return static_cast<Source*>(h)->size;
}
int source_map(thandle_t h, void** base, toff_t* size) {
  auto* s = static_cast<Source*>(h);
  *base = const_cast<std::uint8_t*>(s->data);  // read-only: the handle is opened for reading
  *size = s->size;
  return 1;
}
void source_unmap(thandle_t, void*, toff_t) {}

// The first error libtiff reported, or `fallback`.
std::string reason(const Messages& m, const char* fallback) {
  return m.error.empty() ? fallback : m.error;
}

// What a page holds, from its tags.
struct Layout {
  std::uint32_t width = 0, height = 0;
  std::uint16_t samples = 1, bits = 1, format = SAMPLEFORMAT_UINT;
  std::uint16_t photometric = PHOTOMETRIC_MINISBLACK, planar = PLANARCONFIG_CONTIG;
  bool tiled = false;
  std::uint32_t tile_w = 0, tile_h = 0, rows_per_strip = 0;

  std::size_t planes() const { return planar == PLANARCONFIG_SEPARATE ? samples : 1; }
  std::size_t per_pixel() const { return samples / planes(); }  // samples a pixel in one plane
  std::size_t row_bytes() const { return std::size_t(width) * per_pixel() * (bits / 8); }
  double raw_bytes() const { return double(width) * height * samples * bits / 8.0; }
};

Layout read_layout(TIFF* t, const std::string& name, const Messages& m) {
  Layout l;
  if (!TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &l.width) ||
      !TIFFGetField(t, TIFFTAG_IMAGELENGTH, &l.height))
    fail(name, "corrupt TIFF (" + reason(m, "no image size") + ")");
  TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &l.samples);
  TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &l.bits);
  TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &l.format);
  TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &l.planar);
  if (!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &l.photometric))
    l.photometric = l.samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
  l.tiled = TIFFIsTiled(t) != 0;
  if (l.tiled) {
    TIFFGetField(t, TIFFTAG_TILEWIDTH, &l.tile_w);
    TIFFGetField(t, TIFFTAG_TILELENGTH, &l.tile_h);
  } else {
    TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &l.rows_per_strip);
  }
  return l;
}

bool is_reduced(TIFF* t) {
  std::uint32_t type = 0;
  return TIFFGetField(t, TIFFTAG_SUBFILETYPE, &type) && (type & FILETYPE_REDUCEDIMAGE);
}

bool direct_layout(const Layout& l) {
  const bool type = ((l.bits == 8 || l.bits == 16) && l.format == SAMPLEFORMAT_UINT) ||
                    (l.bits == 32 && l.format == SAMPLEFORMAT_IEEEFP);
  const bool gray = l.photometric == PHOTOMETRIC_MINISBLACK ||
                    (l.photometric == PHOTOMETRIC_MINISWHITE && l.samples <= 2 && l.bits <= 16);
  const bool rgb = l.photometric == PHOTOMETRIC_RGB && l.samples >= 3;
  return type && (gray || rgb);
}

// One full-resolution page as its directory describes it: what it decodes to and how, read while
// the directory is current and checked once every page has been counted.
struct PageHeader {
  Layout l;
  bool direct = false;      // read as stored, else through libtiff's RGBA conversion
  int channels = 0;         // of the decoded image
  int bits = 8;             // what decode_tiff() reports: 8, 16 or 32 (float)
  std::string unsupported;  // why the page cannot be decoded, or empty
};

PageHeader read_header(TIFF* t, const std::string& name, const Messages& m) {
  PageHeader h;
  h.l = read_layout(t, name, m);
  const Layout& l = h.l;
  h.direct = direct_layout(l);
  if (h.direct) {
    h.channels = l.samples;
    h.bits = l.bits;
    return h;
  }
  char why[1024] = "";
  if (l.bits > 8 || !TIFFRGBAImageOK(t, why)) {
    h.unsupported = "unsupported TIFF (" + std::to_string(l.bits) + "-bit " +
                    (l.format == SAMPLEFORMAT_IEEEFP ? "float"
                     : l.format == SAMPLEFORMAT_INT  ? "signed"
                                                     : "unsigned") +
                    " samples, photometric " + std::to_string(l.photometric) +
                    (why[0] ? std::string(": ") + why : std::string()) +
                    "); readable: 8-bit or 16-bit unsigned or 32-bit float gray or RGB, 1 to 4 "
                    "samples, and 8-bit palette, bilevel, YCbCr and CMYK";
    return h;
  }
  // Palette, bilevel, YCbCr, CMYK and the like: gray stays gray, an extra sample is alpha.
  std::uint16_t extra = 0;
  std::uint16_t* types = nullptr;
  TIFFGetFieldDefaulted(t, TIFFTAG_EXTRASAMPLES, &extra, &types);
  const bool gray =
      l.photometric == PHOTOMETRIC_MINISBLACK || l.photometric == PHOTOMETRIC_MINISWHITE;
  h.channels = (gray ? 1 : 3) + (extra > 0 ? 1 : 0);
  return h;
}

// What the tags alone must satisfy before anything is allocated: the image within kMaxSide, 1 to
// 4 samples, tiles no larger than the image and a margin, a sample type this reader decodes.
void check_header(const PageHeader& h, const std::string& name) {
  const Layout& l = h.l;
  if (l.width < 1 || l.height < 1 || l.width > std::uint32_t(kMaxSide) ||
      l.height > std::uint32_t(kMaxSide))
    fail(name, "TIFF image size " + std::to_string(l.width) + "x" + std::to_string(l.height) +
                   " is zero or exceeds the limit of " + std::to_string(kMaxSide) +
                   " pixels per side");
  if (l.samples < 1 || l.samples > 4)
    fail(name, "TIFF with " + std::to_string(l.samples) + " samples per pixel (1 to 4 are read)");
  if (l.tiled &&
      (l.tile_w < 1 || l.tile_h < 1 || l.tile_w > l.width + 1024 || l.tile_h > l.height + 1024))
    fail(name, "corrupt TIFF (tiles of " + std::to_string(l.tile_w) + "x" +
                   std::to_string(l.tile_h) + " for an image of " + std::to_string(l.width) + "x" +
                   std::to_string(l.height) + ")");
  if (!h.unsupported.empty()) fail(name, h.unsupported);
}

// What a reader of the current directory's image data relies on: every strip or tile inside the
// file, and no more expansion than a codec allows.
void check_strips(TIFF* t, const Layout& l, toff_t file_size, const std::string& name) {
  const std::uint32_t count = l.tiled ? TIFFNumberOfTiles(t) : TIFFNumberOfStrips(t);
  double data = 0.0;
  for (std::uint32_t i = 0; i < count; ++i) {
    int err = 0;
    const std::uint64_t offset = TIFFGetStrileOffsetWithErr(t, i, &err);
    const std::uint64_t bytes = TIFFGetStrileByteCountWithErr(t, i, &err);
    if (err) fail(name, "corrupt TIFF (its table of strips or tiles is unreadable)");
    if (bytes > 0 && (offset > file_size || bytes > file_size - offset))
      fail(name, std::string("truncated TIFF (") + (l.tiled ? "tile " : "strip ") +
                     std::to_string(i) + " lies past the end of the file)");
    data += double(bytes);
  }
  if (l.raw_bytes() > kMaxTiffExpansion * data + 4096.0)
    fail(name, "truncated or corrupt TIFF: " + std::to_string(l.width) + "x" +
                   std::to_string(l.height) + "x" + std::to_string(l.samples) + " samples of " +
                   std::to_string(l.bits) + " bits cannot come from " +
                   std::to_string(std::uint64_t(data)) + " bytes of image data");
}

// The bytes a well-formed file spends on the current directory's tables alone: its entries, and
// the offsets and byte counts of its strips or tiles (2 bytes each at least) where they do not fit
// in the entries. Distinct directories never share these bytes, so their sum is at most the file's
// size; a few bytes of directories that overlap, or point at one table, would otherwise make
// libtiff parse the same megabytes once for each of thousands of pages.
double table_bytes(TIFF* t, const std::vector<std::uint8_t>& b) {
  const bool big = TIFFIsBigTIFF(t) != 0, motorola = b[0] == 'M';
  const std::size_t at = std::size_t(TIFFCurrentDirOffset(t)), width = big ? 8 : 2;
  std::uint64_t entries = 0;
  for (std::size_t i = 0; i < width && at + i < b.size(); ++i)
    entries |= std::uint64_t(b[at + i]) << (8 * (motorola ? width - 1 - i : i));
  const double strile = double(TIFFIsTiled(t) ? TIFFNumberOfTiles(t) : TIFFNumberOfStrips(t));
  const double inline_values = big ? 4.0 : 2.0;  // SHORTs that fit in an entry's value field
  return double(entries) * (big ? 20.0 : 12.0) + (big ? 16.0 : 6.0) +  // the count and the link
         (strile > inline_values ? 4.0 * strile : 0.0);
}

[[noreturn]] void bad_directory(const std::string& name, const Messages& m, std::size_t pages) {
  fail(name, "truncated or corrupt TIFF (the directory after page " + std::to_string(pages) + ": " +
                 reason(m, "unreadable") + ")");
}

// Every full-resolution page's header, in file order, from the first directory on; reduced-
// resolution pages (thumbnails, pyramid levels) are not pages. A directory that cannot be read is
// an error, not the end of the file: a stack cut short must not read as a shorter one.
std::vector<PageHeader> read_headers(TIFF* t, Messages& m, const std::vector<std::uint8_t>& bytes,
                                     const std::string& name) {
  std::vector<PageHeader> pages;
  double tables = 0.0;
  for (;;) {
    tables += table_bytes(t, bytes);
    if (tables > double(bytes.size()))
      fail(name, "corrupt TIFF (its directories describe " + std::to_string(std::uint64_t(tables)) +
                     " bytes of tables in a file of " + std::to_string(bytes.size()) + ")");
    if (!is_reduced(t)) {
      if (pages.size() == std::size_t(kMaxPages))
        fail(name, "TIFF of more than " + std::to_string(kMaxPages) + " pages (the limit)");
      pages.push_back(read_header(t, name, m));
    }
    if (TIFFLastDirectory(t)) break;
    m.error.clear();
    if (!TIFFReadDirectory(t)) bad_directory(name, m, pages.size());
  }
  if (pages.empty()) fail(name, "TIFF of reduced-resolution images only (no full-size page)");
  m.error.clear();
  return pages;
}

// "FILE" for a single page, "FILE: page 3" for the third of a stack.
std::string page_name(const std::string& name, std::size_t z, std::size_t count) {
  return count > 1 ? name + ": page " + std::to_string(z + 1) : name;
}

std::string describe(const PageHeader& h, bool depth) {
  static const char* const kChannels[] = {"gray", "gray + alpha", "RGB", "RGBA"};
  std::string s = std::to_string(h.l.width) + "x" + std::to_string(h.l.height) + " " +
                  kChannels[h.channels - 1];
  if (depth) s += h.bits == 32 ? " 32-bit float" : " " + std::to_string(h.bits) + "-bit";
  return s;
}

// Each page readable, all alike (the first mismatch named), and the whole within
// kMaxVolumeSamples: all from the tags, before any sample is allocated.
TiffPages check_pages(const std::vector<PageHeader>& pages, const std::string& name) {
  for (std::size_t z = 0; z < pages.size(); ++z)
    check_header(pages[z], page_name(name, z, pages.size()));
  const PageHeader& first = pages.front();
  for (std::size_t z = 1; z < pages.size(); ++z) {
    const PageHeader& p = pages[z];
    if (p.l.width == first.l.width && p.l.height == first.l.height &&
        p.channels == first.channels && p.bits == first.bits)
      continue;
    const bool depth = p.bits != first.bits;
    fail(name, "page " + std::to_string(z + 1) + " is " + describe(p, depth) + ", page 1 " +
                   describe(first, depth) + ": the pages of a volume must be alike");
  }
  TiffPages shape;
  shape.count = int(pages.size());
  shape.width = int(first.l.width);
  shape.height = int(first.l.height);
  shape.channels = first.channels;
  shape.bits = first.bits;
  const double samples = double(shape.count) * shape.width * shape.height * shape.channels;
  if (samples > kMaxVolumeSamples)
    fail(name, "TIFF of " + std::to_string(shape.count) + " pages of " + describe(first, false) +
                   ": " + std::to_string(std::uint64_t(samples)) + " samples exceed the limit of " +
                   std::to_string(std::uint64_t(kMaxVolumeSamples)));
  return shape;
}

[[noreturn]] void read_failed(const std::string& name, const Messages& m, const char* what,
                              std::uint32_t index) {
  fail(name, std::string("truncated or corrupt TIFF (") + what + " " + std::to_string(index) +
                 ": " + reason(m, "short data") + ")");
}

void read_strips(TIFF* t, const Layout& l, std::uint16_t plane, std::uint8_t* out,
                 const Messages& m, const std::string& name) {
  const std::uint32_t step = std::max<std::uint32_t>(1, std::min(l.rows_per_strip, l.height));
  for (std::uint32_t y = 0; y < l.height; y += step) {
    const std::uint32_t strip = TIFFComputeStrip(t, y, plane);
    const tmsize_t want = tmsize_t(std::min(step, l.height - y) * l.row_bytes());
    if (TIFFReadEncodedStrip(t, strip, out + y * l.row_bytes(), want) != want)
      read_failed(name, m, "strip", strip);
  }
}

void read_tiles(TIFF* t, const Layout& l, std::uint16_t plane, std::uint8_t* out, const Messages& m,
                const std::string& name) {
  const std::size_t pixel = l.per_pixel() * (l.bits / 8);
  const std::size_t tile_row = std::size_t(l.tile_w) * pixel;
  std::vector<std::uint8_t> tile(tile_row * l.tile_h);
  for (std::uint32_t ty = 0; ty < l.height; ty += l.tile_h)
    for (std::uint32_t tx = 0; tx < l.width; tx += l.tile_w) {
      const std::uint32_t index = TIFFComputeTile(t, tx, ty, 0, plane);
      if (TIFFReadEncodedTile(t, index, tile.data(), tmsize_t(tile.size())) !=
          tmsize_t(tile.size()))
        read_failed(name, m, "tile", index);
      const std::uint32_t rows = std::min(l.tile_h, l.height - ty);
      const std::size_t bytes = std::min(l.tile_w, l.width - tx) * pixel;
      for (std::uint32_t r = 0; r < rows; ++r)
        std::memcpy(out + (ty + r) * l.row_bytes() + tx * pixel, tile.data() + r * tile_row, bytes);
    }
}

// Samples as stored, [plane][y][x][sample of the plane], then to float channels.
template <typename T, typename ToFloat>
Image to_image(const std::vector<std::uint8_t>& raw, const Layout& l, ToFloat to_float) {
  Image img(int(l.width), int(l.height), l.samples);
  const std::size_t pixels = std::size_t(l.width) * l.height, per = l.per_pixel();
  for (std::size_t p = 0; p < l.planes(); ++p)
    for (std::size_t i = 0; i < pixels; ++i)
      for (std::size_t s = 0; s < per; ++s) {
        T v;
        std::memcpy(&v, raw.data() + ((p * pixels + i) * per + s) * sizeof(T), sizeof(T));
        const std::size_t channel = p + s;  // one of the two is 0
        img.pixels[i * l.samples + channel] = to_float(v, channel);
      }
  return img;
}

Image read_direct(TIFF* t, const Layout& l, const Messages& m, const std::string& name) {
  std::vector<std::uint8_t> raw(l.row_bytes() * l.height * l.planes());
  for (std::uint16_t p = 0; p < l.planes(); ++p) {
    std::uint8_t* plane = raw.data() + p * l.row_bytes() * l.height;
    if (l.tiled)
      read_tiles(t, l, p, plane, m, name);
    else
      read_strips(t, l, p, plane, m, name);
  }
  const bool invert = l.photometric == PHOTOMETRIC_MINISWHITE;  // the gray channel only
  if (l.bits == 8)
    return to_image<std::uint8_t>(raw, l, [invert](std::uint8_t v, std::size_t c) {
      return from_unorm8(invert && c == 0 ? std::uint8_t(255 - v) : v);
    });
  if (l.bits == 16)
    return to_image<std::uint16_t>(raw, l, [invert](std::uint16_t v, std::size_t c) {
      return from_unorm16(invert && c == 0 ? std::uint16_t(65535 - v) : v);
    });
  return to_image<float>(raw, l, [](float v, std::size_t) { return v; });
}

// Palette, bilevel, YCbCr, CMYK and other layouts of 8 bits or less, through libtiff's RGBA
// conversion: gray stays gray, alpha is kept where the file has an extra sample (read_header).
Image read_rgba(TIFF* t, const PageHeader& h, const Messages& m, const std::string& name) {
  const Layout& l = h.l;
  const bool gray = h.channels <= 2, alpha = h.channels % 2 == 0;
  std::vector<std::uint32_t> raster(std::size_t(l.width) * l.height);
  if (!TIFFReadRGBAImageOriented(t, l.width, l.height, raster.data(), ORIENTATION_TOPLEFT, 1))
    fail(name, "truncated or corrupt TIFF (" + reason(m, "cannot decode") + ")");
  Image img(int(l.width), int(l.height), h.channels);
  for (std::size_t i = 0; i < raster.size(); ++i) {
    const std::uint32_t px = raster[i];
    const std::uint8_t rgba[4] = {std::uint8_t(TIFFGetR(px)), std::uint8_t(TIFFGetG(px)),
                                  std::uint8_t(TIFFGetB(px)), std::uint8_t(TIFFGetA(px))};
    float* o = &img.pixels[i * h.channels];
    for (int c = 0; c < (gray ? 1 : 3); ++c) o[c] = from_unorm8(rgba[c]);
    if (alpha) o[h.channels - 1] = from_unorm8(rgba[3]);
  }
  return img;
}

// The current directory's image, whose header check_pages() passed; `name` names the page.
Image read_page(TIFF* t, const PageHeader& h, toff_t file_size, const Messages& m,
                const std::string& name) {
  check_strips(t, h.l, file_size, name);
  Image img = h.direct ? read_direct(t, h.l, m, name) : read_rgba(t, h, m, name);
  if (h.bits == 32) check_finite(name, img, "float TIFF");
  return img;
}

// Opens `bytes`, checks every page's header, then decodes the pages one by one into `take`.
// `single` (decode_tiff's case) refuses a stack before anything else is checked.
TiffPages decode_pages(const std::vector<std::uint8_t>& bytes, const std::string& name, bool single,
                       const TiffPageSink& take) {
  silence_global_handlers();
  Messages m;
  Source src{bytes.data(), toff_t(bytes.size())};
  Tiff t;
  {
    Options o(m);
    t.reset(TIFFClientOpenExt(name.c_str(), "r", &src, source_read, source_write, source_seek,
                              source_close, source_size, source_map, source_unmap, o.opts));
  }
  if (!t) fail(name, "truncated or corrupt TIFF (" + reason(m, "cannot open") + ")");
  const std::vector<PageHeader> headers = read_headers(t.get(), m, bytes, name);
  if (single && headers.size() > 1)
    fail(name, "multi-page TIFF (" + std::to_string(headers.size()) +
                   " pages): a 3-D volume, filtered with rfcli's --axes");
  const TiffPages pages = check_pages(headers, name);
  if (!TIFFSetDirectory(t.get(), 0))
    fail(name, "corrupt TIFF (" + reason(m, "first directory") + ")");
  for (std::size_t z = 0;;) {
    m.error.clear();
    if (!is_reduced(t.get())) {
      take(pages, int(z),
           read_page(t.get(), headers[z], src.size, m, page_name(name, z, headers.size())));
      if (++z == headers.size()) break;
    }
    if (!TIFFReadDirectory(t.get())) bad_directory(name, m, z);
  }
  return pages;
}

// ---- writing ----------------------------------------------------------------------------------

// Page z of `pages`; a stack's pages are marked as pages of one image (TIFF 6.0: SubfileType,
// PageNumber), a single page carries neither.
void set_fields(TIFF* t, const TiffPages& pages, int z) {
  const int bits = pages.bits, channels = pages.channels;
  if (pages.count > 1) {
    TIFFSetField(t, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
    // The total as 0 ("unknown") for kMaxPages pages, which a 16-bit field cannot hold.
    TIFFSetField(t, TIFFTAG_PAGENUMBER, std::uint16_t(z), std::uint16_t(pages.count));
  }
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, std::uint32_t(pages.width));
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, std::uint32_t(pages.height));
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, std::uint16_t(channels));
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, std::uint16_t(bits));
  TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, bits == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, channels <= 2 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(t, TIFFTAG_PREDICTOR, bits == 32 ? PREDICTOR_NONE : PREDICTOR_HORIZONTAL);
  if (channels == 2 || channels == 4) {
    const std::uint16_t alpha = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(t, TIFFTAG_EXTRASAMPLES, std::uint16_t(1), &alpha);
  }
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
}

// `n` samples of one row in the file's sample type.
void encode_row(const float* src, std::size_t n, int bits, std::vector<std::uint8_t>& row) {
  for (std::size_t i = 0; i < n; ++i) {
    if (bits == 8) {
      row[i] = to_unorm8(src[i]);
    } else if (bits == 16) {
      const std::uint16_t v = to_unorm16(src[i]);
      std::memcpy(&row[i * 2], &v, 2);
    } else {
      std::memcpy(&row[i * 4], &src[i], 4);
    }
  }
}

}  // namespace

bool is_tiff(const std::vector<std::uint8_t>& b) {
  if (b.size() < 4) return false;
  return (b[0] == 'I' && b[1] == 'I' && (b[2] == 42 || b[2] == 43) && b[3] == 0) ||
         (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && (b[3] == 42 || b[3] == 43));
}

Image decode_tiff(const std::vector<std::uint8_t>& bytes, const std::string& name, int* bits) {
  Image img;
  const TiffPages pages = decode_pages(
      bytes, name, true, [&img](const TiffPages&, int, Image&& page) { img = std::move(page); });
  if (bits) *bits = pages.bits;
  return img;
}

TiffPages decode_tiff_pages(const std::vector<std::uint8_t>& bytes, const std::string& name,
                            const TiffPageSink& take) {
  return decode_pages(bytes, name, false, take);
}

void write_tiff_pages(const std::string& file, const std::string& path, const TiffPages& pages,
                      const float* samples) {
  silence_global_handlers();
  Messages m;
  // Classic TIFF addresses 4 GiB; BigTIFF where the samples alone come within a tenth of that.
  const double raw =
      double(pages.count) * pages.width * pages.height * pages.channels * (pages.bits / 8);
  const bool big = raw > 0.9 * 4294967296.0;
  Tiff t;
  {
    Options o(m);
    errno = 0;
    t.reset(TIFFOpenExt(file.c_str(), big ? "w8" : "w", o.opts));
  }
  if (!t)
    fail(path, "cannot write (" + (errno ? std::string(std::strerror(errno)) : m.error) + ")");
  // The system's reason where a write failed (a full disk), else libtiff's.
  const auto write_failed = [&] {
    fail(path, "write error (" +
                   (errno ? std::string(std::strerror(errno)) : reason(m, "libtiff")) + ")");
  };
  const std::size_t n = std::size_t(pages.width) * pages.channels;
  std::vector<std::uint8_t> row(n * std::size_t(pages.bits / 8));
  errno = 0;
  for (int z = 0; z < pages.count; ++z) {
    set_fields(t.get(), pages, z);
    for (int y = 0; y < pages.height; ++y) {
      encode_row(samples + (std::size_t(z) * pages.height + y) * n, n, pages.bits, row);
      if (TIFFWriteScanline(t.get(), row.data(), std::uint32_t(y), 0) < 0) write_failed();
    }
    if (!TIFFWriteDirectory(t.get())) write_failed();
  }
}

void write_tiff(const std::string& file, const std::string& path, const Image& img, int bits) {
  TiffPages page;
  page.count = 1;
  page.width = img.width;
  page.height = img.height;
  page.channels = img.channels;
  page.bits = bits;
  write_tiff_pages(file, path, page, img.pixels.data());
}

}  // namespace rf::io
