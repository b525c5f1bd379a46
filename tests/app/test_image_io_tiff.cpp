// TIFF reading and writing (app/io/tiff.h): round trips of every depth and channel count, the
// layouts other writers produce (made here with libtiff itself), and hostile files.
#include <doctest/doctest.h>

#include <tiffio.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "app/io/image_io.h"
#include "filters/core/errors.h"
#include "tests/app/file_bytes.h"
#include "tests/random_data.h"
#include "tests/temp_dir.h"

using namespace rf;
namespace fs = std::filesystem;

namespace {

using rf::test_util::read_bytes;
using rf::test_util::read_error;
using rf::test_util::TempDir;
using rf::test_util::write_bytes;

// What stderr received while this lives (libtiff must never write there).
class StderrCapture {
 public:
  explicit StderrCapture(const std::string& path) : path_(path) {
    std::fflush(stderr);
    saved_ = ::dup(2);
    std::FILE* f = std::fopen(path.c_str(), "w");
    ::dup2(::fileno(f), 2);
    std::fclose(f);
  }
  ~StderrCapture() { restore(); }
  std::string text() {
    restore();
    return read_bytes(path_);
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }
  std::string path_;
  int saved_ = -1;
};

// A TIFF as other programs write it, made with libtiff: `samples` holds the pixels interleaved,
// in the sample type of `bits` and `format`.
struct TiffFile {
  std::uint32_t width = 37, height = 23;
  std::uint16_t spp = 1, bits = 16, format = SAMPLEFORMAT_UINT;
  std::uint16_t photometric = PHOTOMETRIC_MINISBLACK, planar = PLANARCONFIG_CONTIG;
  std::uint16_t compression = COMPRESSION_NONE;
  std::uint32_t rows_per_strip = 5, tile = 0;  // tile > 0: square tiles of that side
  bool big_endian = false;
  std::vector<std::uint8_t> samples;

  std::size_t sample_bytes() const { return bits / 8; }

  // The bytes of plane p (all samples for interleaved data) of rows [y0, y0 + rows), columns
  // [x0, x0 + cols), padded with zeros to `pad_cols` columns.
  std::vector<std::uint8_t> block(int p, std::uint32_t x0, std::uint32_t y0, std::uint32_t cols,
                                  std::uint32_t rows, std::uint32_t pad_cols) const {
    const std::size_t per = planar == PLANARCONFIG_SEPARATE ? 1 : spp, sb = sample_bytes();
    std::vector<std::uint8_t> out(std::size_t(pad_cols) * rows * per * sb, 0);
    for (std::uint32_t r = 0; r < rows && y0 + r < height; ++r)
      for (std::uint32_t c = 0; c < cols && x0 + c < width; ++c)
        for (std::size_t s = 0; s < per; ++s) {
          const std::size_t sample = planar == PLANARCONFIG_SEPARATE ? std::size_t(p) : s;
          const std::size_t from = ((std::size_t(y0 + r) * width + x0 + c) * spp + sample) * sb;
          std::memcpy(&out[((std::size_t(r) * pad_cols + c) * per + s) * sb], &samples[from], sb);
        }
    return out;
  }

  void write(const std::string& path, int pages = 1, bool reduced_second = false) const {
    TIFF* t = TIFFOpen(path.c_str(), big_endian ? "wb" : "wl");
    REQUIRE(t);
    for (int page = 0; page < pages; ++page) {
      if (page == 1 && reduced_second) TIFFSetField(t, TIFFTAG_SUBFILETYPE, FILETYPE_REDUCEDIMAGE);
      write_page(t);
      REQUIRE(TIFFWriteDirectory(t));
    }
    TIFFClose(t);
  }

  void write_page(TIFF* t) const {
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, width);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, height);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, spp);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bits);
    TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, format);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, photometric);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, planar);
    TIFFSetField(t, TIFFTAG_COMPRESSION, compression);
    if ((photometric == PHOTOMETRIC_MINISBLACK && spp == 2) || spp == 4) {
      const std::uint16_t alpha = EXTRASAMPLE_UNASSALPHA;
      TIFFSetField(t, TIFFTAG_EXTRASAMPLES, std::uint16_t(1), &alpha);
    }
    const int planes = planar == PLANARCONFIG_SEPARATE ? spp : 1;
    if (tile) {
      TIFFSetField(t, TIFFTAG_TILEWIDTH, tile);
      TIFFSetField(t, TIFFTAG_TILELENGTH, tile);
      for (int p = 0; p < planes; ++p)
        for (std::uint32_t y = 0; y < height; y += tile)
          for (std::uint32_t x = 0; x < width; x += tile) {
            std::vector<std::uint8_t> b = block(p, x, y, tile, tile, tile);
            REQUIRE(TIFFWriteEncodedTile(t, TIFFComputeTile(t, x, y, 0, std::uint16_t(p)), b.data(),
                                         tmsize_t(b.size())) >= 0);
          }
    } else {
      TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
      for (int p = 0; p < planes; ++p)
        for (std::uint32_t y = 0; y < height; y += rows_per_strip) {
          std::vector<std::uint8_t> b = block(p, 0, y, width, rows_per_strip, width);
          b.resize(std::size_t(std::min(rows_per_strip, height - y)) * width *
                   (planar == PLANARCONFIG_SEPARATE ? 1 : spp) * sample_bytes());
          REQUIRE(TIFFWriteEncodedStrip(t, TIFFComputeStrip(t, y, std::uint16_t(p)), b.data(),
                                        tmsize_t(b.size())) >= 0);
        }
    }
  }

  // The image read_image() must return.
  Image expected() const {
    Image img(int(width), int(height), spp);
    for (std::size_t i = 0; i < img.pixels.size(); ++i) {
      const bool invert = photometric == PHOTOMETRIC_MINISWHITE && i % spp == 0;  // gray only
      float v;
      if (bits == 8) {
        v = from_unorm8(std::uint8_t(invert ? 255 - samples[i] : samples[i]));
      } else if (bits == 16) {
        std::uint16_t u;
        std::memcpy(&u, &samples[i * 2], 2);
        v = io::from_unorm16(std::uint16_t(invert ? 65535 - u : u));
      } else {
        std::memcpy(&v, &samples[i * 4], 4);
      }
      img.pixels[i] = v;
    }
    return img;
  }
};

// Random samples of the file's type: 8 or 16-bit unsigned, or floats on [-2, 3].
TiffFile random_tiff(std::uint16_t spp, std::uint16_t bits, std::uint64_t seed) {
  TiffFile f;
  f.spp = spp;
  f.bits = bits;
  f.format = bits == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT;
  f.photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
  const std::size_t n = std::size_t(f.width) * f.height * spp;
  if (bits == 32) {
    const Image img = rf::test::random_image(int(f.width), int(f.height), spp, seed, -2.0f, 3.0f);
    f.samples.resize(n * 4);
    std::memcpy(f.samples.data(), img.pixels.data(), n * 4);
  } else {
    f.samples = rf::test::random_bytes(n * (bits / 8), seed);
  }
  return f;
}

void check_reads_as(const std::string& path, const TiffFile& f) {
  int bits = 0;
  const Image got = io::read_image(path, &bits);
  CHECK(bits == f.bits);
  REQUIRE(got.width == int(f.width));
  REQUIRE(got.height == int(f.height));
  REQUIRE(got.channels == f.spp);
  const Image want = f.expected();
  CHECK(std::memcmp(got.pixels.data(), want.pixels.data(), want.pixels.size() * 4) == 0);
}

}  // namespace

TEST_CASE("TIFF: write_image and read_image round trip every depth and channel count exactly") {
  TempDir dir;
  for (int bits : {8, 16, 32})
    for (int c = 1; c <= 4; ++c) {
      CAPTURE(bits);
      CAPTURE(c);
      Image img;
      if (bits == 8) {
        img = rf::test::random_image_8bit(41, 19, c, 5);
      } else if (bits == 16) {
        img = Image(41, 19, c);
        const std::vector<std::uint8_t> r = rf::test::random_bytes(img.pixels.size() * 2, 6);
        for (std::size_t i = 0; i < img.pixels.size(); ++i)
          img.pixels[i] = io::from_unorm16(std::uint16_t(r[2 * i] | r[2 * i + 1] << 8));
      } else {
        img = rf::test::random_image(41, 19, c, 7, -1e3f, 1e3f);
        img.pixels[3] = std::numeric_limits<float>::denorm_min();
      }
      const std::string path = dir / ("t" + std::to_string(bits) + std::to_string(c) + ".tif");
      io::write_image(path, img, bits);
      int got_bits = 0;
      const Image back = io::read_image(path, &got_bits);
      CHECK(got_bits == bits);
      REQUIRE(back.width == 41);
      REQUIRE(back.height == 19);
      REQUIRE(back.channels == c);
      CHECK(std::memcmp(back.pixels.data(), img.pixels.data(), img.pixels.size() * 4) == 0);
    }
  // .tiff is the same format; the default depth is 8 bits.
  const Image img = rf::test::random_image_8bit(5, 4, 3, 8);
  io::write_image(dir / "default.TIFF", img);
  int bits = 0;
  CHECK(io::read_image(dir / "default.TIFF", &bits).pixels == img.pixels);
  CHECK(bits == 8);
}

TEST_CASE("TIFF: strips, tiles, separate planes, byte orders, compressions, min-is-white") {
  TempDir dir;
  int n = 0;
  for (std::uint16_t bits : {8, 16, 32})
    for (std::uint16_t spp : {1, 2, 3, 4})
      for (int variant = 0; variant < 6; ++variant) {
        TiffFile f = random_tiff(spp, bits, 100 + n);
        if (variant == 1) f.tile = 16;  // 37x23 in 16x16 tiles: partial tiles on both edges
        if (variant == 2) f.planar = PLANARCONFIG_SEPARATE;
        if (variant == 3) f.planar = PLANARCONFIG_SEPARATE, f.tile = 32;
        if (variant == 4) f.big_endian = true, f.compression = COMPRESSION_LZW;
        if (variant == 5) f.compression = COMPRESSION_ADOBE_DEFLATE, f.rows_per_strip = 23;
        CAPTURE(bits);
        CAPTURE(spp);
        CAPTURE(variant);
        const std::string path = dir / ("v" + std::to_string(n++) + ".tif");
        f.write(path);
        check_reads_as(path, f);
      }
  // Min-is-white gray: 0 is white.
  for (std::uint16_t bits : {8, 16}) {
    TiffFile f = random_tiff(1, bits, 9);
    f.photometric = PHOTOMETRIC_MINISWHITE;
    f.write(dir / "white.tif");
    check_reads_as(dir / "white.tif", f);
  }
}

TEST_CASE("TIFF: palette and bilevel files are read through libtiff's RGBA conversion") {
  TempDir dir;
  {
    TiffFile f;
    f.width = 4;
    f.height = 1;
    f.bits = 8;
    f.photometric = PHOTOMETRIC_PALETTE;
    f.samples = {0, 1, 2, 255};
    TIFF* t = TIFFOpen((dir / "palette.tif").c_str(), "w");
    REQUIRE(t);
    std::vector<std::uint16_t> r(256, 0), g(256, 0), b(256, 0);
    r[1] = 0xFFFF;                              // red
    g[2] = 0x8080;                              // half green
    b[255] = 0xFFFF;                            // blue
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);  // the colormap's size follows it
    TIFFSetField(t, TIFFTAG_COLORMAP, r.data(), g.data(), b.data());
    f.write_page(t);
    REQUIRE(TIFFWriteDirectory(t));
    TIFFClose(t);
    int bits = 0;
    const Image img = io::read_image(dir / "palette.tif", &bits);
    CHECK(bits == 8);
    REQUIRE(img.channels == 3);
    const std::vector<float> want = {0, 0, 0, 1, 0, 0, 0, from_unorm8(0x80), 0, 0, 0, 1};
    std::string got;
    for (float v : img.pixels) got += std::to_string(v) + " ";
    CAPTURE(got);
    CHECK(img.pixels == want);
  }
  {
    TiffFile f;
    f.width = 8;
    f.height = 2;
    f.bits = 1;
    f.samples = {0xA5, 0x0F};  // 1 bit a pixel, the first pixel in the high bit
    TIFF* t = TIFFOpen((dir / "bilevel.tif").c_str(), "w");
    REQUIRE(t);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, f.width);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, f.height);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 1);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 2);
    REQUIRE(TIFFWriteEncodedStrip(t, 0, f.samples.data(), 2) == 2);
    REQUIRE(TIFFWriteDirectory(t));
    TIFFClose(t);
    const Image img = io::read_image(dir / "bilevel.tif");
    REQUIRE(img.channels == 1);
    const std::vector<float> want = {1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1};
    CHECK(img.pixels == want);
  }
}

TEST_CASE("TIFF: a stack of pages is refused; a reduced-resolution page is not a page") {
  TempDir dir;
  const TiffFile f = random_tiff(1, 16, 11);
  f.write(dir / "stack.tif", 3);
  const std::string e = read_error(dir / "stack.tif");
  CHECK(e == dir / "stack.tif" +
                 ": multi-page TIFF (3 pages): a 3-D volume, filtered with rfcli's --axes");
  CHECK(e.find('\n') == std::string::npos);
  f.write(dir / "thumb.tif", 2, true);
  check_reads_as(dir / "thumb.tif", f);
}

TEST_CASE("TIFF: unsupported sample types are refused in one line naming them") {
  TempDir dir;
  TiffFile f = random_tiff(1, 16, 12);
  f.format = SAMPLEFORMAT_INT;
  f.write(dir / "signed.tif");
  std::string e = read_error(dir / "signed.tif");
  CHECK(e.rfind(dir / "signed.tif" + ": unsupported TIFF (16-bit signed", 0) == 0);

  TiffFile d = random_tiff(1, 32, 13);
  d.bits = 64;
  d.samples.resize(d.samples.size() * 2);
  d.write(dir / "double.tif");
  e = read_error(dir / "double.tif");
  CHECK(e.rfind(dir / "double.tif" + ": unsupported TIFF (64-bit float", 0) == 0);

  TiffFile five = random_tiff(1, 8, 14);
  five.spp = 5;
  five.samples.resize(five.samples.size() * 5);
  five.write(dir / "five.tif");
  CHECK(read_error(dir / "five.tif").find("5 samples per pixel (1 to 4") != std::string::npos);
}

TEST_CASE("TIFF: NaN or infinite float samples are refused as in PFM") {
  TempDir dir;
  Image img = rf::test::random_image(6, 5, 1, 15);
  img.at(4, 2) = std::numeric_limits<float>::infinity();
  io::write_image(dir / "inf.tif", img, 32);
  const std::string e = read_error(dir / "inf.tif");
  CHECK(e.find("1 NaN or infinite samples (the first at x=4 y=2") != std::string::npos);
  CHECK(e.find("float TIFF") != std::string::npos);
}

TEST_CASE("TIFF: truncated, garbage and lying files are one-line errors, silent on stderr") {
  TempDir dir;
  StderrCapture capture(dir / "stderr.txt");
  std::vector<std::string> files;
  for (int variant = 0; variant < 3; ++variant) {
    TiffFile f = random_tiff(3, 16, 20 + variant);
    if (variant == 1) f.tile = 16, f.compression = COMPRESSION_ADOBE_DEFLATE;
    if (variant == 2) f.compression = COMPRESSION_LZW, f.planar = PLANARCONFIG_SEPARATE;
    const std::string path = dir / ("whole" + std::to_string(variant) + ".tif");
    f.write(path);
    files.push_back(read_bytes(path));
  }
  auto check_error = [&](const std::string& path, const std::string& e) {
    CAPTURE(e);
    CHECK(e.rfind(path + ": ", 0) == 0);
    CHECK(e.find('\n') == std::string::npos);
  };
  const std::string cut = dir / "cut.tif";
  for (const std::string& bytes : files)
    for (std::size_t size = 0; size < bytes.size(); size += 1 + size / 16) {
      CAPTURE(size);
      write_bytes(cut, bytes.substr(0, size));
      const std::string e = read_error(cut);
      REQUIRE(!e.empty());  // every cut loses the directory or image data
      check_error(cut, e);
    }
  // Random bytes behind a TIFF signature, and valid files with bytes overwritten at random:
  // an error or an image, never a crash, a hang or a message of libtiff's own.
  std::mt19937 rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    std::string bytes = files[trial % files.size()];
    if (trial < 60) bytes = std::string("II*\0", 4) + std::string(size_t(rng() % 400), '\0');
    for (int k = 0, n = int(rng() % 20); k < n || trial < 60; ++k) {
      if (trial < 60 && k >= int(bytes.size()) - 4) break;
      const std::size_t at = trial < 60 ? 4 + std::size_t(k) : rng() % bytes.size();
      bytes[at] = char(rng());
    }
    write_bytes(dir / "bad.tif", bytes);
    const std::string e = read_error(dir / "bad.tif");
    if (!e.empty()) check_error(dir / "bad.tif", e);
  }
  CHECK(capture.text().empty());
}

TEST_CASE("TIFF: a header that claims more pixels than its data can hold is refused early") {
  TempDir dir;
  // 30000 x 30000 RGBA float in one Deflate strip of 10 bytes: 14 GB of samples from nothing.
  TIFF* t = TIFFOpen((dir / "claims.tif").c_str(), "w");
  REQUIRE(t);
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 30000u);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, 30000u);
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 4);
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
  TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
  TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 30000u);
  char ten[10] = {};
  REQUIRE(TIFFWriteRawStrip(t, 0, ten, 10) == 10);
  REQUIRE(TIFFWriteDirectory(t));
  TIFFClose(t);
  CHECK(read_error(dir / "claims.tif").find("cannot come from 10 bytes") != std::string::npos);

  // An uncompressed strip whose offset points past the end of the file.
  TiffFile f = random_tiff(1, 8, 30);
  f.rows_per_strip = f.height;  // one strip: its offset is stored in the directory entry itself
  f.write(dir / "offset.tif");
  std::string bytes = read_bytes(dir / "offset.tif");
  std::uint32_t ifd;
  std::memcpy(&ifd, &bytes[4], 4);
  std::uint16_t entries;
  std::memcpy(&entries, &bytes[ifd], 2);
  bool patched = false;
  for (int i = 0; i < entries; ++i) {
    const std::size_t at = ifd + 2 + 12 * std::size_t(i);
    std::uint16_t tag;
    std::memcpy(&tag, &bytes[at], 2);
    if (tag != TIFFTAG_STRIPOFFSETS) continue;
    const std::uint32_t far = 0x7FFFFF00u;
    std::memcpy(&bytes[at + 8], &far, 4);
    patched = true;
  }
  REQUIRE(patched);
  write_bytes(dir / "offset.tif", bytes);
  CHECK(read_error(dir / "offset.tif").find("truncated TIFF (strip 0 lies past the end") !=
        std::string::npos);
}

TEST_CASE("TIFF: decode_image reads TIFF bytes from memory") {
  TempDir dir;
  const TiffFile f = random_tiff(4, 8, 40);
  f.write(dir / "m.tif");
  const std::string s = read_bytes(dir / "m.tif");
  int bits = 0;
  const Image img =
      io::decode_image(std::vector<std::uint8_t>(s.begin(), s.end()), "memory", &bits);
  CHECK(bits == 8);
  CHECK(img.pixels == f.expected().pixels);
}
