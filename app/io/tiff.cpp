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

// What the first page holds, from its tags.
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

// The sizes every read below relies on: the image within kMaxSide, tiles no larger than the image
// and a margin, every strip or tile inside the file, and no more expansion than a codec allows.
void check_layout(TIFF* t, const Layout& l, toff_t file_size, const std::string& name) {
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

// A stack is refused rather than read page by page: rf filters 2-D images. Reduced-resolution
// pages (thumbnails, pyramid levels) are not pages of the stack. At most kMaxDirectories are
// read, since each may be expensive to parse; a file with more is a stack too. Leaves the first
// page current.
void check_single_page(TIFF* t, Messages& m, const std::string& name) {
  constexpr int kMaxDirectories = 64;
  const tdir_t directories = TIFFNumberOfDirectories(t);
  int pages = 0, read = 0;
  do {
    std::uint32_t type = 0;
    if (!TIFFGetField(t, TIFFTAG_SUBFILETYPE, &type) || !(type & FILETYPE_REDUCEDIMAGE)) ++pages;
  } while (pages < 2 && ++read < kMaxDirectories && TIFFReadDirectory(t));
  m.error.clear();  // a damaged later directory is not read, and not this file's error
  if (pages > 1 || read >= kMaxDirectories)
    fail(name, "multi-page TIFF (" + std::to_string(directories) +
                   " images): rf filters one 2-D image a file; split the stack first (tiffsplit)");
  if (!TIFFSetDirectory(t, 0)) fail(name, "corrupt TIFF (" + reason(m, "first page") + ")");
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

bool direct_layout(const Layout& l) {
  const bool type = ((l.bits == 8 || l.bits == 16) && l.format == SAMPLEFORMAT_UINT) ||
                    (l.bits == 32 && l.format == SAMPLEFORMAT_IEEEFP);
  const bool gray = l.photometric == PHOTOMETRIC_MINISBLACK ||
                    (l.photometric == PHOTOMETRIC_MINISWHITE && l.samples <= 2 && l.bits <= 16);
  const bool rgb = l.photometric == PHOTOMETRIC_RGB && l.samples >= 3;
  return type && (gray || rgb);
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
// conversion: gray stays gray, alpha is kept where the file has an extra sample.
Image read_rgba(TIFF* t, const Layout& l, const Messages& m, const std::string& name) {
  char why[1024] = "";
  if (l.bits > 8 || !TIFFRGBAImageOK(t, why))
    fail(name, "unsupported TIFF (" + std::to_string(l.bits) + "-bit " +
                   (l.format == SAMPLEFORMAT_IEEEFP ? "float"
                    : l.format == SAMPLEFORMAT_INT  ? "signed"
                                                    : "unsigned") +
                   " samples, photometric " + std::to_string(l.photometric) +
                   (why[0] ? std::string(": ") + why : std::string()) +
                   "); readable: 8-bit or 16-bit unsigned or 32-bit float gray or RGB, 1 to 4 "
                   "samples, and 8-bit palette, bilevel, YCbCr and CMYK");
  std::uint16_t extra = 0;
  std::uint16_t* types = nullptr;
  TIFFGetFieldDefaulted(t, TIFFTAG_EXTRASAMPLES, &extra, &types);
  const bool gray =
      l.photometric == PHOTOMETRIC_MINISBLACK || l.photometric == PHOTOMETRIC_MINISWHITE;
  const int channels = (gray ? 1 : 3) + (extra > 0 ? 1 : 0);
  std::vector<std::uint32_t> raster(std::size_t(l.width) * l.height);
  if (!TIFFReadRGBAImageOriented(t, l.width, l.height, raster.data(), ORIENTATION_TOPLEFT, 1))
    fail(name, "truncated or corrupt TIFF (" + reason(m, "cannot decode") + ")");
  Image img(int(l.width), int(l.height), channels);
  for (std::size_t i = 0; i < raster.size(); ++i) {
    const std::uint32_t px = raster[i];
    const std::uint8_t rgba[4] = {std::uint8_t(TIFFGetR(px)), std::uint8_t(TIFFGetG(px)),
                                  std::uint8_t(TIFFGetB(px)), std::uint8_t(TIFFGetA(px))};
    float* o = &img.pixels[i * channels];
    for (int c = 0; c < (gray ? 1 : 3); ++c) o[c] = from_unorm8(rgba[c]);
    if (extra > 0) o[channels - 1] = from_unorm8(rgba[3]);
  }
  return img;
}

// ---- writing ----------------------------------------------------------------------------------

void set_fields(TIFF* t, const Image& img, int bits) {
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, std::uint32_t(img.width));
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, std::uint32_t(img.height));
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, std::uint16_t(img.channels));
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, std::uint16_t(bits));
  TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, bits == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC,
               img.channels <= 2 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(t, TIFFTAG_PREDICTOR, bits == 32 ? PREDICTOR_NONE : PREDICTOR_HORIZONTAL);
  if (img.channels == 2 || img.channels == 4) {
    const std::uint16_t alpha = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(t, TIFFTAG_EXTRASAMPLES, std::uint16_t(1), &alpha);
  }
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
}

// One row of `img` in the file's sample type.
void encode_row(const Image& img, int y, int bits, std::vector<std::uint8_t>& row) {
  const std::size_t n = std::size_t(img.width) * img.channels;
  const float* src = img.pixels.data() + std::size_t(y) * n;
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
  check_single_page(t.get(), m, name);
  const Layout l = read_layout(t.get(), name, m);
  check_layout(t.get(), l, src.size, name);
  const bool direct = direct_layout(l);
  Image img = direct ? read_direct(t.get(), l, m, name) : read_rgba(t.get(), l, m, name);
  if (bits) *bits = direct ? l.bits : 8;
  return img;
}

void write_tiff(const std::string& file, const std::string& path, const Image& img, int bits) {
  silence_global_handlers();
  Messages m;
  Tiff t;
  {
    Options o(m);
    errno = 0;
    t.reset(TIFFOpenExt(file.c_str(), "w", o.opts));
  }
  if (!t)
    fail(path, "cannot write (" + (errno ? std::string(std::strerror(errno)) : m.error) + ")");
  set_fields(t.get(), img, bits);
  // The system's reason where a write failed (a full disk), else libtiff's.
  const auto write_failed = [&] {
    fail(path, "write error (" +
                   (errno ? std::string(std::strerror(errno)) : reason(m, "libtiff")) + ")");
  };
  std::vector<std::uint8_t> row(std::size_t(img.width) * img.channels * (bits / 8));
  errno = 0;
  for (int y = 0; y < img.height; ++y) {
    encode_row(img, y, bits, row);
    if (TIFFWriteScanline(t.get(), row.data(), std::uint32_t(y), 0) < 0) write_failed();
  }
  if (!TIFFWriteDirectory(t.get())) write_failed();
}

}  // namespace rf::io
