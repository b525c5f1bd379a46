#include "app/io/image_io.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/io/atomic_file.h"
#include "app/io/jpeg.h"
#include "app/io/png16.h"
#include "app/io/tiff.h"
#include "filters/core/errors.h"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
// The formats this reader documents, no others: stb_image also parses PNM, PSD, GIF and PIC,
// which nobody asked for and whose parsers the fuzzer reached (a PNM header whose size overflows
// an int, undefined behaviour).
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#define STBI_ONLY_HDR
#include <stb/stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace rf::io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw IoError(path + ": " + problem);
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

void check_size(const std::string& path, long long w, long long h) {
  if (w < 1 || h < 1)
    fail(path, "invalid image size " + std::to_string(w) + "x" + std::to_string(h));
  if (w > kMaxSide || h > kMaxSide)
    fail(path, "image size " + std::to_string(w) + "x" + std::to_string(h) +
                   " exceeds the limit of " + std::to_string(kMaxSide) + " pixels per side");
}

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

// ---- PFM -------------------------------------------------------------------------------------

bool is_pfm(const std::vector<std::uint8_t>& b) {
  return b.size() >= 3 && b[0] == 'P' && (b[1] == 'f' || b[1] == 'F') && std::isspace(b[2]);
}

// A PFM header: the size, the channel count (Pf gray, PF colour), the byte order and where the
// raster starts.
struct PfmHeader {
  long long width = 0, height = 0;
  int channels = 1;
  bool little_endian = false;  // a negative scale
  std::size_t raster = 0;
};

// The header is three whitespace-separated tokens after the magic ("W H SCALE"), then exactly one
// whitespace byte before the raster.
PfmHeader read_pfm_header(const std::string& path, const std::vector<std::uint8_t>& b) {
  std::size_t pos = 2;
  auto token = [&](const char* what) {
    while (pos < b.size() && std::isspace(b[pos])) ++pos;
    const std::size_t start = pos;
    while (pos < b.size() && !std::isspace(b[pos]) && pos - start < 64) ++pos;
    if (pos == start || pos >= b.size())
      fail(path, std::string("PFM header: missing or malformed ") + what);
    return std::string(b.begin() + start, b.begin() + pos);
  };
  auto integer = [&](const char* what) {
    const std::string t = token(what);
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (*end || errno)
      fail(path, std::string("PFM header: ") + what + " '" + t + "' is not an integer");
    return v;
  };
  PfmHeader h;
  h.channels = b[1] == 'F' ? 3 : 1;
  h.width = integer("width");
  h.height = integer("height");
  check_size(path, h.width, h.height);
  const std::string st = token("scale");
  char* end = nullptr;
  const double scale = std::strtod(st.c_str(), &end);
  if (*end || !std::isfinite(scale) || scale == 0.0)
    fail(path, "PFM header: scale '" + st + "' is not a nonzero number");
  h.little_endian = scale < 0.0;
  h.raster = pos + 1;  // after the single whitespace byte that ends the header
  return h;
}

float pfm_sample(const std::uint8_t* p, bool little_endian) {
  const std::uint32_t u = little_endian ? std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 |
                                              std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24
                                        : std::uint32_t(p[3]) | std::uint32_t(p[2]) << 8 |
                                              std::uint32_t(p[1]) << 16 | std::uint32_t(p[0]) << 24;
  float v;
  std::memcpy(&v, &u, 4);
  return v;
}

Image read_pfm(const std::string& path, const std::vector<std::uint8_t>& b) {
  const PfmHeader h = read_pfm_header(path, b);
  const std::size_t samples = std::size_t(h.width) * std::size_t(h.height) * h.channels;
  const std::size_t need = samples * 4;
  const std::size_t have = b.size() >= h.raster ? b.size() - h.raster : 0;
  if (have < need)
    fail(path, "PFM data is short: " + std::to_string(have) + " bytes for " +
                   std::to_string(h.width) + "x" + std::to_string(h.height) + "x" +
                   std::to_string(h.channels) + " floats (" + std::to_string(need) + " bytes)");
  Image img(int(h.width), int(h.height), h.channels);
  const std::size_t row = std::size_t(h.width) * h.channels;
  for (std::size_t fy = 0; fy < std::size_t(h.height); ++fy) {
    const std::size_t y = std::size_t(h.height) - 1 - fy;  // rows are stored bottom-up
    for (std::size_t i = 0; i < row; ++i)
      img.pixels[y * row + i] = pfm_sample(&b[h.raster + (fy * row + i) * 4], h.little_endian);
  }
  check_finite(path, img, "PFM");
  return img;
}

// Errors of the writers below name the destination, not the temporary file they fill.
[[noreturn]] void write_failed(const std::string& path, int err) {
  fail(path,
       std::string("write error (") + (err ? std::strerror(err) : "the encoder failed") + ")");
}

void write_pfm(std::FILE* f, const std::string& path, const Image& img) {
  const int out_c = img.channels == 1 ? 1 : 3;
  if (std::fprintf(f, "%s\n%d %d\n-1.0\n", out_c == 1 ? "Pf" : "PF", img.width, img.height) < 0)
    write_failed(path, errno);
  std::vector<std::uint8_t> row(std::size_t(img.width) * out_c * 4);
  for (int fy = 0; fy < img.height; ++fy) {
    const int y = img.height - 1 - fy;
    std::size_t k = 0;
    for (int x = 0; x < img.width; ++x)
      for (int c = 0; c < out_c; ++c) {
        std::uint32_t u;
        const float v = img.at(x, y, c);
        std::memcpy(&u, &v, 4);
        for (int byte = 0; byte < 4; ++byte) row[k++] = std::uint8_t(u >> (8 * byte));
      }
    if (std::fwrite(row.data(), 1, row.size(), f) != row.size()) write_failed(path, errno);
  }
}

// ---- stb_image -------------------------------------------------------------------------------

// A baseline or progressive JPEG ends with EOI (FF D9) after its last scan. Inside entropy-coded
// data every FF byte is followed by 00 or a restart marker, so a file that stops mid-scan has no
// FF D9 after its last start-of-scan (FF DA). stb_image decodes such files "successfully",
// padding the missing data, so the check is made here.
bool jpeg_is_truncated(const std::vector<std::uint8_t>& b) {
  std::size_t last_sos = 0;
  for (std::size_t i = 0; i + 1 < b.size(); ++i)
    if (b[i] == 0xFF && b[i + 1] == 0xDA) last_sos = i;
  if (last_sos == 0) return true;
  for (std::size_t i = last_sos + 2; i + 1 < b.size(); ++i)
    if (b[i] == 0xFF && b[i + 1] == 0xD9) return false;
  return true;
}

// Where a JPEG's data starts after its start-of-image marker, or 0 when the file has none.
// stb_image, like the JPEG standard, takes any number of 0xFF fill bytes before a marker, the
// first one included: "FF FF D8" starts a JPEG as "FF D8" does.
std::size_t jpeg_after_soi(const std::vector<std::uint8_t>& b) {
  std::size_t i = 0;
  while (i < b.size() && b[i] == 0xFF) ++i;
  return i >= 1 && i < b.size() && b[i] == 0xD8 ? i + 1 : 0;
}

bool is_jpeg(const std::vector<std::uint8_t>& b) {
  return jpeg_after_soi(b) != 0;
}

// stb_image 2.27 (Debian 12's) builds a Huffman table of up to 256 codes from the 16 counts of a
// DHT segment without checking that they sum to at most 256, and writes past its arrays when
// they do. A table like that is corrupt (the codes would not fit in 16 bits either), so every DHT
// segment is checked here first, including those between the scans of a progressive JPEG.
// Returns what is wrong, or nullptr.
const char* jpeg_huffman_problem(const std::vector<std::uint8_t>& b) {
  std::size_t i = jpeg_after_soi(b);
  while (i + 1 < b.size()) {
    if (b[i] != 0xFF) {  // entropy-coded data: skip to the next marker
      ++i;
      continue;
    }
    const std::uint8_t marker = b[i + 1];
    // Fill bytes, stuffed zeros inside scans, and the markers without a length field.
    if (marker == 0xFF || marker == 0x00 || (marker >= 0xD0 && marker <= 0xD8) || marker == 0x01) {
      i += marker == 0xFF ? 1 : 2;
      continue;
    }
    if (marker == 0xD9 || i + 3 >= b.size()) return nullptr;  // EOI, or the end of the data
    const std::size_t length = std::size_t(b[i + 2]) << 8 | b[i + 3];
    if (length < 2) return "corrupt JPEG (a segment shorter than its length field)";
    const bool cut = i + 2 + length > b.size();
    const std::size_t end = std::min(b.size(), i + 2 + length);
    if (marker == 0xC4) {
      for (std::size_t t = i + 4; t < end;) {
        if (t + 17 > end)
          return cut ? "truncated JPEG (the file ends inside a Huffman table)"
                     : "corrupt JPEG (a Huffman table longer than its segment)";
        std::size_t codes = 0;
        for (int k = 1; k <= 16; ++k) codes += b[t + k];
        if (codes > 256) return "corrupt JPEG (a Huffman table with more than 256 codes)";
        t += 17 + codes;
        // A table running past its segment would make stb_image read on into what this loop
        // takes for the next marker; such a segment is corrupt anyway.
        if (t > end)
          return cut ? "truncated JPEG (the file ends inside a Huffman table)"
                     : "corrupt JPEG (a Huffman table longer than its segment)";
      }
    }
    i += 2 + length;
  }
  return nullptr;
}

// stb_image 2.27 decodes a run-length scanline of a Radiance HDR file (width 8 to 32767) in runs
// whose lengths it reads from the file, and a run of length 0 -- which is also what it reads once
// the data has ended -- never advances: a truncated or corrupt file loops for ever. The runs are
// walked here first, as stb_image walks them; false when one of length 0 comes before the image
// is complete. Anything else stb_image refuses, or decodes, by itself.
bool hdr_runs_end(const std::vector<std::uint8_t>& b) {
  // The header ends at its first empty line -- for stb_image, a line whose first byte is '\n' or
  // 0 -- after the signature line; the resolution line follows.
  std::size_t pos = 0;
  while (pos < b.size() && b[pos] != '\n') ++pos;  // the signature line
  ++pos;
  for (;;) {
    if (pos >= b.size()) return true;
    const bool empty = b[pos] == '\n' || b[pos] == 0;
    while (pos < b.size() && b[pos] != '\n') ++pos;
    ++pos;
    if (empty) break;
  }
  const std::size_t line = pos;
  while (pos < b.size() && b[pos] != '\n') ++pos;
  if (pos >= b.size()) return true;
  const std::string resolution(b.begin() + std::ptrdiff_t(line), b.begin() + std::ptrdiff_t(pos));
  ++pos;
  long long height = 0, width = 0;
  if (std::sscanf(resolution.c_str(), "-Y %lld +X %lld", &height, &width) != 2) return true;
  if (width < 8 || width >= 32768 || height <= 0) return true;  // flat pixels: no runs
  auto get = [&]() -> int { return pos < b.size() ? b[pos++] : 0; };
  for (long long row = 0; row < height; ++row) {
    const int c1 = get(), c2 = get(), hi = get();
    if (c1 != 2 || c2 != 2 || (hi & 0x80)) return true;  // flat pixels from here on
    if ((hi << 8 | get()) != width) return true;         // refused by stb_image
    for (int component = 0; component < 4; ++component)
      for (long long x = 0; x < width;) {
        int count = get();
        if (count > 128) {
          count -= 128;
          get();
        } else if (count == 0) {
          return false;
        } else {
          pos += std::size_t(count);
        }
        if (count > width - x) return true;  // refused by stb_image
        x += count;
      }
  }
  return true;
}

bool is_png(const std::vector<std::uint8_t>& b) {
  static const std::uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  return b.size() >= 8 && std::equal(kSignature, kSignature + 8, b.begin());
}

// stb_image 2.27 grows its buffer of PNG image data to each IDAT chunk's declared length before
// reading the chunk: a few hundred bytes that declare 2 GiB of data allocate 2 GiB. Every chunk
// of a PNG must lie within the file (length, type, data, CRC), which is checked here first. And
// an empty first IDAT chunk makes it copy zero bytes to a null buffer (undefined behaviour, found
// by the fuzzer); no encoder writes one, so it is refused too. Returns what is wrong, or nullptr.
const char* png_chunk_problem(const std::vector<std::uint8_t>& b) {
  std::size_t pos = 8;  // after the signature
  bool data = false;
  auto type_is = [&](const char* t) {
    return std::equal(b.begin() + std::ptrdiff_t(pos + 4), b.begin() + std::ptrdiff_t(pos + 8), t);
  };
  while (pos + 8 <= b.size()) {
    const std::size_t length = std::size_t(b[pos]) << 24 | std::size_t(b[pos + 1]) << 16 |
                               std::size_t(b[pos + 2]) << 8 | b[pos + 3];
    if (length > b.size() - pos - 8 || b.size() - pos - 8 - length < 4)
      return "truncated or corrupt PNG (a chunk longer than the file)";
    if (type_is("IEND")) return nullptr;
    if (type_is("IDAT")) {
      if (length == 0 && !data) return "corrupt PNG (an empty first image-data chunk)";
      data = true;
    }
    pos += 12 + length;
  }
  // Chunks up to the end without IEND: stb_image refuses that itself.
  return pos == b.size() ? nullptr : "truncated or corrupt PNG (a chunk longer than the file)";
}

// The most pixels a well-formed file of each format can hold per byte of the file. stb_image
// decodes a BMP, TGA, HDR or JPEG that ends early as if zeros followed, so a few bytes that
// claim 17737 x 17486 pixels would cost gigabytes and seconds of decoding nothing; a file below
// its format's densest possible coding is truncated or corrupt. The densest codings: BMP 1 bit
// per pixel (8 pixels a byte); TGA run-length packets of 128 8-bit pixels in 2 bytes (64); HDR
// runs of 127 in 2 bytes for each of 4 components (16); JPEG at least one bit per 8x8 block
// (512). PNG is exempt: stb_image refuses a PNG whose data stops short.
double max_pixels_per_byte(const std::vector<std::uint8_t>& b) {
  if (is_png(b)) return HUGE_VAL;
  if (is_jpeg(b)) return 512.0;
  if (b.size() >= 2 && b[0] == 'B' && b[1] == 'M') return 8.0;
  return 64.0;  // TGA and HDR
}

std::string stb_reason() {
  const char* r = stbi_failure_reason();
  return r ? r : "unknown reason";
}

// Checks a file for stb_image before it decodes anything (even stbi_info reads the Huffman
// tables) and returns the header's size and channel count.
void check_stb_header(const std::string& path, const std::vector<std::uint8_t>& b, int& w, int& h,
                      int& comp) {
  if (b.size() > std::size_t(INT32_MAX)) fail(path, "file too large");
  const auto* data = b.data();
  const int len = int(b.size());
  if (is_jpeg(b))
    if (const char* problem = jpeg_huffman_problem(b)) fail(path, problem);
  if (is_png(b))
    if (const char* problem = png_chunk_problem(b)) fail(path, problem);
  if (stbi_is_hdr_from_memory(data, len) && !hdr_runs_end(b))
    fail(path, "truncated or corrupt HDR (a run-length scanline that never ends)");
  if (!stbi_info_from_memory(data, len, &w, &h, &comp))
    fail(path, "unsupported or corrupt image (" + stb_reason() +
                   "); readable formats: PNG, JPEG, BMP, TGA, HDR, TIFF, PFM");
  check_size(path, w, h);
  if (comp < 1 || comp > 4) fail(path, "unsupported channel count " + std::to_string(comp));
  if (double(w) * double(h) > max_pixels_per_byte(b) * double(b.size()))
    fail(path, "truncated or corrupt: " + std::to_string(w) + "x" + std::to_string(h) +
                   " pixels cannot come from " + std::to_string(b.size()) + " bytes");
  if (is_jpeg(b) && jpeg_is_truncated(b))
    fail(path, "truncated JPEG (no end-of-image marker after the last scan)");
}

// JPEG pixels come from libjpeg-turbo: stb_image 2.27's Huffman decoder reads out of bounds on a
// corrupt scan (an index it never checks against its 256 symbols), which the fuzzer found;
// libjpeg-turbo checks every code. stb_image still reads the header.
std::vector<std::uint8_t> decode_jpeg(const std::string& path, const std::vector<std::uint8_t>& b,
                                      int w, int h, int comp) {
  if (comp != 1 && comp != 3) fail(path, "unsupported JPEG channel count " + std::to_string(comp));
  int rw = 0, rh = 0;
  if (const char* problem = jpeg_size(b.data(), b.size(), &rw, &rh))
    fail(path, std::string("corrupt JPEG (") + problem + ")");
  if (rw != w || rh != h) fail(path, "corrupt JPEG (its headers disagree on the size)");
  std::vector<std::uint8_t> px(std::size_t(w) * std::size_t(h) * std::size_t(comp));
  if (const char* problem = jpeg_decode(b.data(), b.size(), w, h, comp, px.data()))
    fail(path, std::string("corrupt JPEG (") + problem + ")");
  return px;
}

Image read_stb(const std::string& path, const std::vector<std::uint8_t>& b, int* bits) {
  int w = 0, h = 0, comp = 0;
  check_stb_header(path, b, w, h, comp);
  const auto* data = b.data();
  const int len = int(b.size());
  // The float image is allocated once the decoder has succeeded: a header that claims a huge
  // size over a few bytes of data costs nothing but the decoder's refusal.
  int rw = 0, rh = 0, rc = 0;
  auto convert = [&](const auto* px, auto to_float) {
    if (!px) fail(path, "cannot decode (" + stb_reason() + ")");
    if (rw != w || rh != h) fail(path, "decoded size differs from the header");
    Image img(w, h, comp);
    for (std::size_t i = 0; i < img.pixels.size(); ++i) img.pixels[i] = to_float(px[i]);
    return img;
  };
  if (bits)
    *bits = stbi_is_hdr_from_memory(data, len)                     ? 32
            : !is_jpeg(b) && stbi_is_16_bit_from_memory(data, len) ? 16
                                                                   : 8;
  if (stbi_is_hdr_from_memory(data, len)) {
    std::unique_ptr<float, void (*)(void*)> px(
        stbi_loadf_from_memory(data, len, &rw, &rh, &rc, comp), stbi_image_free);
    return convert(px.get(), [](float v) { return v; });
  }
  if (is_jpeg(b)) {
    const std::vector<std::uint8_t> px = decode_jpeg(path, b, w, h, comp);
    rw = w;
    rh = h;
    return convert(px.data(), [](std::uint8_t v) { return from_unorm8(v); });
  }
  if (stbi_is_16_bit_from_memory(data, len)) {
    std::unique_ptr<stbi_us, void (*)(void*)> px(
        stbi_load_16_from_memory(data, len, &rw, &rh, &rc, comp), stbi_image_free);
    return convert(px.get(), [](stbi_us v) { return from_unorm16(v); });
  }
  std::unique_ptr<stbi_uc, void (*)(void*)> px(
      stbi_load_from_memory(data, len, &rw, &rh, &rc, comp), stbi_image_free);
  return convert(px.get(), [](stbi_uc v) { return from_unorm8(v); });
}

std::vector<std::uint8_t> quantise(const Image& img) {
  std::vector<std::uint8_t> q(img.pixels.size());
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = to_unorm8(img.pixels[i]);
  return q;
}

// The output formats by extension, with the depths each stores.
struct OutputFormat {
  const char* ext;
  std::vector<int> depths;
};

const OutputFormat* output_format(const std::string& ext) {
  static const OutputFormat kFormats[] = {
      {".png", {8, 16}}, {".tif", {8, 16, 32}}, {".tiff", {8, 16, 32}},
      {".jpg", {8}},     {".jpeg", {8}},        {".bmp", {8}},
      {".tga", {8}},     {".hdr", {32}},        {".pfm", {32}}};
  for (const OutputFormat& f : kFormats)
    if (ext == f.ext) return &f;
  return nullptr;
}

std::string depth_list(const std::vector<int>& depths) {
  std::string s;
  for (std::size_t i = 0; i < depths.size(); ++i)
    s += (i == 0 ? "" : i + 1 == depths.size() ? " or " : ", ") + std::to_string(depths[i]);
  return s;
}

}  // namespace

std::uint16_t to_unorm16(float v) {
  float s = v * 65535.0f;
  s = s > 0.0f ? s : 0.0f;  // NaN lands here too
  s = s < 65535.0f ? s : 65535.0f;
  return std::uint16_t(std::lrintf(s));  // ties to even in the default rounding mode
}

std::vector<std::uint8_t> read_image_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory, not an image file");
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) fail(path, std::string("cannot open (") + std::strerror(errno) + ")");
  std::vector<std::uint8_t> bytes;
  std::uint8_t chunk[1 << 16];
  std::size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, f.get())) > 0)
    bytes.insert(bytes.end(), chunk, chunk + got);
  if (std::ferror(f.get())) fail(path, std::string("read error (") + std::strerror(errno) + ")");
  if (bytes.empty()) fail(path, "empty file");
  return bytes;
}

void check_finite(const std::string& path, const Image& img, const char* format) {
  std::size_t bad = 0, first_bad = 0;
  for (std::size_t at = img.pixels.size(); at-- > 0;)
    if (!std::isfinite(img.pixels[at])) {
      ++bad;
      first_bad = at;
    }
  if (!bad) return;
  const std::size_t row = std::size_t(img.width) * img.channels;
  const std::size_t x = (first_bad % row) / img.channels, y = first_bad / row,
                    c = first_bad % img.channels;
  fail(path, std::to_string(bad) + " NaN or infinite samples (the first at x=" + std::to_string(x) +
                 " y=" + std::to_string(y) + " channel " + std::to_string(c) +
                 "); refusing non-finite " + format + " data");
}

Image read_image(const std::string& path, int* bits) {
  return decode_image(read_image_file(path), path, bits);
}

Image decode_image(const std::vector<std::uint8_t>& bytes, const std::string& name, int* bits) {
  if (bytes.empty()) fail(name, "empty file");
  if (is_pfm(bytes)) {
    if (bits) *bits = 32;
    return read_pfm(name, bytes);
  }
  if (is_tiff(bytes)) return decode_tiff(bytes, name, bits);
  return read_stb(name, bytes, bits);
}

bool has_image_extension(const std::string& path) {
  static const char* const kExtensions[] = {".png", ".jpg", ".jpeg", ".bmp", ".tga",
                                            ".hdr", ".tif", ".tiff", ".pfm"};
  const std::string ext = lower_extension(path);
  return std::any_of(std::begin(kExtensions), std::end(kExtensions),
                     [&](const char* e) { return ext == e; });
}

std::vector<int> output_depths(const std::string& path) {
  const std::string ext = lower_extension(path);
  const OutputFormat* f = output_format(ext);
  if (!f)
    fail(path, "unsupported output format '" + ext +
                   "' (use .png, .tif, .jpg, .bmp, .tga, .hdr or .pfm)");
  return f->depths;
}

int output_depth(const std::string& path, int bits) {
  const std::vector<int> depths = output_depths(path);
  if (bits == 0) return depths.front();
  if (std::find(depths.begin(), depths.end(), bits) == depths.end())
    fail(path, std::to_string(bits) + "-bit output: " + lower_extension(path) + " stores " +
                   depth_list(depths) + " bits");
  return bits;
}

void write_image(const std::string& path, const Image& img, int bits) {
  if (img.width < 1 || img.height < 1 || img.channels < 1 || img.channels > 4 ||
      img.pixels.size() != std::size_t(img.width) * img.height * img.channels)
    fail(path, "nothing to write: the image is empty or malformed");
  bits = output_depth(path, bits);
  const std::string ext = lower_extension(path);
  if (ext == ".pfm" && img.channels == 2) fail(path, "PFM stores 1 or 3 channels, not 2");
  const bool tiff = ext == ".tif" || ext == ".tiff";
  const bool eight_bit = bits == 8 && !tiff;
  const std::vector<std::uint8_t> q = eight_bit ? quantise(img) : std::vector<std::uint8_t>();

  if (tiff) {
    write_atomically(path, [&](const std::string& temp) { write_tiff(temp, path, img, bits); });
    return;
  }
  write_atomically(path, [&](const std::string& temp) {
    errno = 0;
    File f(std::fopen(temp.c_str(), "wb"));
    if (!f) fail(path, std::string("cannot write (") + std::strerror(errno) + ")");
    if (ext == ".pfm") {
      write_pfm(f.get(), path, img);
    } else if (bits == 16) {
      write_png16(f.get(), path, img);
    } else {
      // stb_image_write ignores fwrite's result when it writes to a file by name, so a full disk
      // would pass unnoticed; through a callback every short write is seen.
      struct Sink {
        std::FILE* f;
        int err = 0;
      } sink{f.get()};
      const auto put = [](void* context, void* data, int size) {
        Sink* s = static_cast<Sink*>(context);
        if (!s->err && std::fwrite(data, 1, std::size_t(size), s->f) != std::size_t(size))
          s->err = errno ? errno : EIO;
      };
      const int w = img.width, h = img.height, c = img.channels;
      int ok = 0;
      if (ext == ".hdr")
        ok = stbi_write_hdr_to_func(put, &sink, w, h, c, img.pixels.data());
      else if (ext == ".png")
        ok = stbi_write_png_to_func(put, &sink, w, h, c, q.data(), w * c);
      else if (ext == ".bmp")
        ok = stbi_write_bmp_to_func(put, &sink, w, h, c, q.data());
      else if (ext == ".tga")
        ok = stbi_write_tga_to_func(put, &sink, w, h, c, q.data());
      else
        ok = stbi_write_jpg_to_func(put, &sink, w, h, c, q.data(), 95);
      if (sink.err || !ok) write_failed(path, sink.err);
    }
    if (std::fclose(f.release()) != 0) write_failed(path, errno);
  });
}

}  // namespace rf::io
