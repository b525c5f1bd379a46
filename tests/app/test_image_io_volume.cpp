// Volumes as multi-page TIFF (app/io/volume.h): exact round trips checked page by page against
// libtiff's own reading, 2-D files as volumes of depth 1, and the files a volume reader must
// refuse: unlike pages, stacks cut short, and headers that claim more pages or samples than memory
// holds.
#include <doctest/doctest.h>

#include <tiffio.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "app/io/image_io.h"
#include "app/io/tiff.h"
#include "app/io/volume.h"
#include "filters/core/errors.h"
#include "tests/app/file_bytes.h"
#include "tests/random_data.h"
#include "tests/temp_dir.h"

using namespace rf;
namespace fs = std::filesystem;

namespace {

using rf::test_util::read_bytes;
using rf::test_util::TempDir;
using rf::test_util::write_bytes;

// The message of the IoError read_volume(path) throws, or "" if none was thrown.
std::string volume_error(const std::string& path) {
  try {
    io::read_volume(path);
  } catch (const IoError& e) {
    return e.what();
  }
  return "";
}

// The message of the IoError write_volume(path, v, bits) throws, or "".
std::string write_error(const std::string& path, const io::Volume& v, int bits = 0) {
  try {
    io::write_volume(path, v, bits);
  } catch (const IoError& e) {
    return e.what();
  }
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// Seeded random voxels of `bits`: exact steps of 1/255 or 1/65535, or floats on [-1000, 1000].
io::Volume random_volume(int width, int height, int depth, int channels, int bits,
                         std::uint64_t seed) {
  io::Volume v{width, height, depth, channels, {}};
  const std::size_t n = std::size_t(width) * height * depth * channels;
  if (bits == 8) {
    v.voxels = rf::test::random_image_8bit(width, height * depth, channels, seed).pixels;
  } else if (bits == 16) {
    const std::vector<std::uint8_t> r = rf::test::random_bytes(n * 2, seed);
    for (std::size_t i = 0; i < n; ++i)
      v.voxels.push_back(io::from_unorm16(std::uint16_t(r[2 * i] | r[2 * i + 1] << 8)));
  } else {
    v.voxels = rf::test::random_image(width, height * depth, channels, seed, -1e3f, 1e3f).pixels;
  }
  return v;
}

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};

// Checks, through libtiff alone, that the file at `path` holds `v` as v.depth pages at `bits`,
// page z holding voxels ((z * height + y) * width + x) * channels + c.
void check_pages_as_libtiff_reads_them(const std::string& path, const io::Volume& v, int bits) {
  std::unique_ptr<TIFF, TiffCloser> t(TIFFOpen(path.c_str(), "r"));
  REQUIRE(t);
  CHECK(TIFFNumberOfDirectories(t.get()) == tdir_t(v.depth));
  const std::size_t row = std::size_t(v.width) * v.channels;
  std::vector<std::uint8_t> line(row * std::size_t(bits / 8));
  for (int z = 0; z < v.depth; ++z) {
    CAPTURE(z);
    REQUIRE(TIFFSetDirectory(t.get(), tdir_t(z)));
    std::uint32_t w = 0, h = 0;
    std::uint16_t spp = 0, bps = 0;
    TIFFGetField(t.get(), TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(t.get(), TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(t.get(), TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(t.get(), TIFFTAG_BITSPERSAMPLE, &bps);
    REQUIRE(w == std::uint32_t(v.width));
    REQUIRE(h == std::uint32_t(v.height));
    REQUIRE(spp == v.channels);
    REQUIRE(bps == bits);
    int wrong = 0;
    for (int y = 0; y < v.height; ++y) {
      REQUIRE(TIFFReadScanline(t.get(), line.data(), std::uint32_t(y), 0) == 1);
      const float* want = v.voxels.data() + (std::size_t(z) * v.height + y) * row;
      for (std::size_t i = 0; i < row; ++i) {
        if (bits == 8) {
          wrong += line[i] != to_unorm8(want[i]);
        } else if (bits == 16) {
          std::uint16_t u;
          std::memcpy(&u, &line[i * 2], 2);
          wrong += u != io::to_unorm16(want[i]);
        } else {
          wrong += std::memcmp(&line[i * 4], &want[i], 4) != 0;
        }
      }
    }
    CHECK(wrong == 0);
  }
}

// One page as libtiff writes it: gray or RGB, 8-bit, 16-bit or float, random samples; `reduced`
// marks it a reduced-resolution image (a thumbnail). Returns the page as read_volume must read it.
struct Page {
  std::uint32_t width = 7, height = 5;
  std::uint16_t spp = 1, bits = 8;
  bool reduced = false;
};

std::vector<std::vector<float>> write_pages(const std::string& path, const std::vector<Page>& pages,
                                            std::uint64_t seed) {
  std::unique_ptr<TIFF, TiffCloser> t(TIFFOpen(path.c_str(), "w"));
  REQUIRE(t);
  std::vector<std::vector<float>> decoded;
  for (const Page& p : pages) {
    const std::size_t row = std::size_t(p.width) * p.spp;
    const io::Volume v = random_volume(int(p.width), int(p.height), 1, p.spp, p.bits, seed++);
    if (p.reduced) TIFFSetField(t.get(), TIFFTAG_SUBFILETYPE, FILETYPE_REDUCEDIMAGE);
    TIFFSetField(t.get(), TIFFTAG_IMAGEWIDTH, p.width);
    TIFFSetField(t.get(), TIFFTAG_IMAGELENGTH, p.height);
    TIFFSetField(t.get(), TIFFTAG_SAMPLESPERPIXEL, p.spp);
    TIFFSetField(t.get(), TIFFTAG_BITSPERSAMPLE, p.bits);
    TIFFSetField(t.get(), TIFFTAG_SAMPLEFORMAT,
                 p.bits == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
    TIFFSetField(t.get(), TIFFTAG_PHOTOMETRIC,
                 p.spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t.get(), TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    if (p.spp == 2 || p.spp == 4) {
      const std::uint16_t alpha = EXTRASAMPLE_UNASSALPHA;
      TIFFSetField(t.get(), TIFFTAG_EXTRASAMPLES, std::uint16_t(1), &alpha);
    }
    TIFFSetField(t.get(), TIFFTAG_ROWSPERSTRIP, 2u);
    std::vector<std::uint8_t> line(row * (p.bits / 8));
    for (std::uint32_t y = 0; y < p.height; ++y) {
      for (std::size_t i = 0; i < row; ++i) {
        const float s = v.voxels[y * row + i];
        if (p.bits == 8) {
          line[i] = to_unorm8(s);
        } else if (p.bits == 16) {
          const std::uint16_t u = io::to_unorm16(s);
          std::memcpy(&line[i * 2], &u, 2);
        } else {
          std::memcpy(&line[i * 4], &s, 4);
        }
      }
      REQUIRE(TIFFWriteScanline(t.get(), line.data(), y, 0) == 1);
    }
    REQUIRE(TIFFWriteDirectory(t.get()));
    if (!p.reduced) decoded.push_back(v.voxels);
  }
  return decoded;
}

// A little-endian classic TIFF put together byte by byte, for the hostile files libtiff will not
// write: directories chained in the order they are added, data wherever it is added.
class RawTiff {
 public:
  // A directory entry: type 3 (SHORT) or 4 (LONG); `value` holds one value, or the offset of
  // `count` values.
  struct Entry {
    std::uint16_t tag, type;
    std::uint32_t count, value;
  };

  // Appends `data` (padded to an even offset) and returns its offset.
  std::uint32_t add(const std::string& data) {
    if (bytes_.size() % 2) bytes_ += '\0';
    const std::uint32_t at = std::uint32_t(bytes_.size());
    bytes_ += data;
    return at;
  }

  // Appends a directory of `entries`, in increasing tag order, after the last one.
  void add_directory(const std::vector<Entry>& entries) {
    std::string d;
    put(d, std::uint16_t(entries.size()), 2);
    for (const Entry& e : entries) {
      put(d, e.tag, 2);
      put(d, e.type, 2);
      put(d, e.count, 4);
      put(d, e.value, 4);
    }
    put(d, 0, 4);  // no next directory yet
    const std::uint32_t at = add(d);
    std::string link;
    put(link, at, 4);
    bytes_.replace(next_, 4, link);
    next_ = at + 2 + 12 * entries.size();
  }

  const std::string& bytes() const { return bytes_; }

  static void put(std::string& s, std::uint32_t v, int n) {
    for (int i = 0; i < n; ++i) s += char(v >> (8 * i));
  }

 private:
  std::string bytes_ = std::string("II*\0\0\0\0\0", 8);
  std::size_t next_ = 4;  // where the offset of the next directory goes
};

// A gray 8-bit page of one strip, or of `strips` strips of one row whose offsets and byte counts
// are the arrays at `offsets` and `counts` (LONGs).
std::vector<RawTiff::Entry> gray_page(std::uint32_t width, std::uint32_t height,
                                      std::uint16_t compression, std::uint32_t strip,
                                      std::uint32_t strip_bytes, std::uint32_t strips = 1) {
  return {{256, 4, 1, width},
          {257, 4, 1, height},
          {258, 3, 1, 8},
          {259, 3, 1, compression},
          {262, 3, 1, PHOTOMETRIC_MINISBLACK},
          {273, 4, strips, strip},
          {277, 3, 1, 1},
          {278, 4, 1, strips == 1 ? height : 1},
          {279, 4, strips, strip_bytes}};
}

}  // namespace

TEST_CASE("Volume: a hand-made stack reads page-major, z outermost") {
  TempDir dir;
  // Two 2x1 gray pages: page 1 holds 10, 20, page 2 holds 30, 40 (of 255).
  RawTiff raw;
  const std::uint32_t first = raw.add(std::string("\x0A\x14", 2));
  const std::uint32_t second = raw.add(std::string("\x1E\x28", 2));
  raw.add_directory(gray_page(2, 1, COMPRESSION_NONE, first, 2));
  raw.add_directory(gray_page(2, 1, COMPRESSION_NONE, second, 2));
  write_bytes(dir / "two.tif", raw.bytes());
  int bits = 0;
  const io::Volume v = io::read_volume(dir / "two.tif", &bits);
  CHECK(bits == 8);
  CHECK(v.width == 2);
  CHECK(v.height == 1);
  CHECK(v.depth == 2);
  CHECK(v.channels == 1);
  const std::vector<float> want = {from_unorm8(10), from_unorm8(20), from_unorm8(30),
                                   from_unorm8(40)};
  CHECK(v.voxels == want);
}

TEST_CASE("Volume: write_volume and read_volume round trip 8, 16 and 32 bits exactly") {
  TempDir dir;
  int seed = 1;
  for (int bits : {8, 16, 32})
    for (int channels : {1, 2, 3, 4})
      for (int depth : {2, 3}) {
        CAPTURE(bits);
        CAPTURE(channels);
        CAPTURE(depth);
        const io::Volume v = random_volume(7, 5, depth, channels, bits, std::uint64_t(seed++));
        const std::string path = dir / ("v" + std::to_string(seed) + ".tif");
        io::write_volume(path, v, bits);
        check_pages_as_libtiff_reads_them(path, v, bits);
        int got_bits = 0;
        const io::Volume back = io::read_volume(path, &got_bits);
        CHECK(got_bits == bits);
        REQUIRE(back.width == 7);
        REQUIRE(back.height == 5);
        REQUIRE(back.depth == depth);
        REQUIRE(back.channels == channels);
        REQUIRE(back.voxels.size() == v.voxels.size());
        CHECK(std::memcmp(back.voxels.data(), v.voxels.data(), v.voxels.size() * 4) == 0);
      }
  // An odd, larger stack; .TIFF in capitals; the default depth is 8 bits.
  const io::Volume v = random_volume(33, 17, 9, 3, 8, 99);
  io::write_volume(dir / "big.TIFF", v);
  int bits = 0;
  const io::Volume back = io::read_volume(dir / "big.TIFF", &bits);
  CHECK(bits == 8);
  CHECK(back.depth == 9);
  CHECK(back.voxels == v.voxels);
}

TEST_CASE("Volume: a caller's cap on the samples refuses a larger stack, not one page") {
  TempDir dir;
  const io::Volume v = random_volume(7, 5, 3, 1, 8, 5);  // 105 samples
  io::write_volume(dir / "s.tif", v, 8);
  CHECK(io::read_volume(dir / "s.tif", nullptr, 105).depth == 3);
  try {
    io::read_volume(dir / "s.tif", nullptr, 104);
    FAIL("a stack over the cap was read");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find("3 pages of 7x5: 105 samples, more than the 104") !=
          std::string::npos);
  }
  io::Volume one = v;
  one.depth = 1;
  one.voxels.resize(35);
  io::write_volume(dir / "one.tif", one, 8);
  CHECK(io::read_volume(dir / "one.tif", nullptr, 10).depth == 1);
}

TEST_CASE("Volume: a single-page TIFF, a PNG and a PFM read as volumes of depth 1") {
  TempDir dir;
  const Image img = rf::test::random_image_8bit(7, 5, 3, 3);
  for (const char* name : {"one.tif", "one.png"}) {
    CAPTURE(name);
    io::write_image(dir / name, img, 8);
    int bits = 0;
    const io::Volume v = io::read_volume(dir / name, &bits);
    CHECK(bits == 8);
    CHECK(v.width == 7);
    CHECK(v.height == 5);
    CHECK(v.depth == 1);
    CHECK(v.channels == 3);
    CHECK(v.voxels == img.pixels);
  }
  const Image f = rf::test::random_image(6, 4, 1, 4, -5.0f, 5.0f);
  io::write_image(dir / "one.pfm", f);
  int bits = 0;
  const io::Volume v = io::read_volume(dir / "one.pfm", &bits);
  CHECK(bits == 32);
  CHECK(v.depth == 1);
  CHECK(v.voxels == f.pixels);
  // Missing files and 2-D files read_image refuses are refused alike.
  CHECK(starts_with(volume_error(dir / "none.png"), dir / "none.png: cannot open"));
  write_bytes(dir / "junk.png", "not an image");
  CHECK(starts_with(volume_error(dir / "junk.png"), dir / "junk.png: unsupported or corrupt"));
}

TEST_CASE("Volume: a volume of depth 1 is the file write_image writes") {
  TempDir dir;
  const io::Volume v = random_volume(7, 5, 1, 4, 16, 5);
  Image img(7, 5, 4);
  img.pixels = v.voxels;
  for (const char* ext : {".tif", ".png"}) {
    CAPTURE(ext);
    io::write_volume(dir / (std::string("volume") + ext), v, 16);
    io::write_image(dir / (std::string("image") + ext), img, 16);
    CHECK(read_bytes(dir / (std::string("volume") + ext)) ==
          read_bytes(dir / (std::string("image") + ext)));
  }
}

TEST_CASE("Volume: read_image refuses a volume and says what reads it") {
  TempDir dir;
  io::write_volume(dir / "v.tif", random_volume(7, 5, 4, 1, 16, 6), 16);
  CHECK(rf::test_util::read_error(dir / "v.tif") ==
        dir / "v.tif" + ": multi-page TIFF (4 pages): a 3-D volume, filtered with rfcli's --axes");
}

TEST_CASE("Volume: thumbnails between the pages are skipped") {
  TempDir dir;
  const std::vector<std::vector<float>> pages =
      write_pages(dir / "thumbs.tif",
                  {Page{}, Page{3, 2, 1, 8, true}, Page{}, Page{}, Page{2, 2, 1, 8, true}}, 7);
  REQUIRE(pages.size() == 3);
  const io::Volume v = io::read_volume(dir / "thumbs.tif");
  REQUIRE(v.depth == 3);
  std::vector<float> want;
  for (const std::vector<float>& p : pages) want.insert(want.end(), p.begin(), p.end());
  CHECK(v.voxels == want);
  // read_image counts pages, not thumbnails.
  CHECK(rf::test_util::read_error(dir / "thumbs.tif").find("multi-page TIFF (3 pages)") !=
        std::string::npos);
}

TEST_CASE("Volume: pages that differ are refused, naming the first mismatch") {
  TempDir dir;
  const std::string path = dir / "mixed.tif";
  write_pages(path, {Page{}, Page{}, Page{9, 4, 3, 8}, Page{7, 5, 1, 16}}, 8);
  CHECK(volume_error(path) ==
        path + ": page 3 is 9x4 RGB, page 1 7x5 gray: the pages of a volume must be alike");
  write_pages(path, {Page{}, Page{7, 5, 1, 16}}, 9);
  CHECK(volume_error(path) == path +
                                  ": page 2 is 7x5 gray 16-bit, page 1 7x5 gray 8-bit: the pages "
                                  "of a volume must be alike");
  write_pages(path, {Page{7, 5, 4, 32}, Page{7, 5, 2, 32}}, 10);
  CHECK(volume_error(path) ==
        path +
            ": page 2 is 7x5 gray + alpha, page 1 7x5 RGBA: the pages of a volume must be alike");
  // A problem of one page names it.
  io::Volume v = random_volume(7, 5, 2, 1, 32, 11);
  v.voxels[std::size_t(7 * 5 + 2 * 7 + 3)] = std::numeric_limits<float>::quiet_NaN();  // z=1
  io::write_volume(path, v, 32);
  CHECK(starts_with(volume_error(path), path + ": page 2: 1 NaN or infinite samples (the first at "
                                               "x=3 y=2 channel 0)"));
}

TEST_CASE("Volume: a stack cut short is refused at every length, in one line") {
  TempDir dir;
  for (int bits : {8, 32}) {
    CAPTURE(bits);
    io::write_volume(dir / "whole.tif", random_volume(7, 5, 3, 3, bits, 12), bits);
    const std::string bytes = read_bytes(dir / "whole.tif");
    const std::string cut = dir / "cut.tif";
    for (std::size_t size = 0; size < bytes.size(); ++size) {
      CAPTURE(size);
      write_bytes(cut, bytes.substr(0, size));
      const std::string e = volume_error(cut);
      REQUIRE(!e.empty());
      CHECK(starts_with(e, cut + ": "));
      CHECK(e.find('\n') == std::string::npos);
    }
  }
  // A chain whose next directory lies past the end is not a shorter stack.
  RawTiff raw;
  const std::uint32_t data = raw.add(std::string("\x0A\x14", 2));
  raw.add_directory(gray_page(2, 1, COMPRESSION_NONE, data, 2));
  raw.add_directory(gray_page(2, 1, COMPRESSION_NONE, data, 2));
  std::string bytes = raw.bytes();
  const std::string far = std::string("\x00\x00\x00\x7F", 4);
  bytes.replace(bytes.size() - 4, 4, far);  // the second directory's link to a third
  write_bytes(dir / "chain.tif", bytes);
  CHECK(starts_with(volume_error(dir / "chain.tif"),
                    dir / "chain.tif" + ": truncated or corrupt TIFF (the directory after page 2"));
}

TEST_CASE("Volume: writing refuses what it cannot write, and leaves nothing behind") {
  TempDir dir;
  const io::Volume v = random_volume(7, 5, 3, 3, 8, 13);
  CHECK(write_error(dir / "v.png", v) ==
        dir / "v.png" +
            ": a volume of 3 pages needs .tif or .tiff (one page per z): other formats hold one "
            "image");
  CHECK(!fs::exists(dir / "v.png"));
  CHECK(starts_with(write_error(dir / "v.tif", v, 12), dir / "v.tif: 12-bit output: .tif stores"));
  io::Volume bad = v;
  bad.voxels.pop_back();
  CHECK(write_error(dir / "v.tif", bad) ==
        dir / "v.tif: nothing to write: the volume is empty or malformed");
  CHECK(dir.files() == 0);
}

TEST_CASE("Volume: headers claiming too many pages or samples are refused before allocating") {
  TempDir dir;
  // kMaxPages pages of one pixel are read; one more is refused.
  for (int extra : {0, 1}) {
    CAPTURE(extra);
    RawTiff raw;
    const std::uint32_t data = raw.add("\x2A");
    for (int z = 0; z < io::kMaxPages + extra; ++z)
      raw.add_directory(gray_page(1, 1, COMPRESSION_NONE, data, 1));
    write_bytes(dir / "pages.tif", raw.bytes());
    if (extra == 0) {
      const io::Volume v = io::read_volume(dir / "pages.tif");
      CHECK(v.depth == io::kMaxPages);
      CHECK(v.voxels.back() == from_unorm8(0x2A));
    } else {
      CHECK(volume_error(dir / "pages.tif") ==
            dir / "pages.tif: TIFF of more than 65536 pages (the limit)");
    }
  }
  // Pages of 32768x32768 gray, each a 1-byte Deflate strip. Four are 2^32 samples, within the
  // limit: refused only when the first page's data cannot hold its pixels. Five exceed it, and
  // 4096 (2^42 samples, 4 TiB of floats) would fail to allocate if anything were allocated first.
  for (int pages : {4, 5, 4096}) {
    CAPTURE(pages);
    RawTiff raw;
    const std::uint32_t data = raw.add("\x2A");
    for (int z = 0; z < pages; ++z)
      raw.add_directory(gray_page(32768, 32768, COMPRESSION_ADOBE_DEFLATE, data, 1));
    write_bytes(dir / "samples.tif", raw.bytes());
    const std::string e = volume_error(dir / "samples.tif");
    if (pages == 4) {
      CHECK(starts_with(e, dir / "samples.tif: page 1: truncated or corrupt TIFF"));
    } else {
      CHECK(e == dir / "samples.tif: TIFF of " + std::to_string(pages) +
                     " pages of 32768x32768 gray: " + std::to_string(std::uint64_t(pages) << 30) +
                     " samples exceed the limit of 4294967296");
    }
  }
}

TEST_CASE("Volume: directories that share their strip tables are refused past the file's size") {
  TempDir dir;
  // Pages of 1x8192 gray in 8192 strips of one row, all pointing at one pair of 32 KiB tables.
  constexpr std::uint32_t kRows = 8192;
  for (int pages : {2, 400}) {
    CAPTURE(pages);
    RawTiff raw;
    const std::string rows = std::string(kRows, '\x2A');
    const std::uint32_t data = raw.add(rows);
    std::string offsets, counts;
    for (std::uint32_t y = 0; y < kRows; ++y) {
      RawTiff::put(offsets, data + y, 4);
      RawTiff::put(counts, 1, 4);
    }
    const std::uint32_t offsets_at = raw.add(offsets), counts_at = raw.add(counts);
    for (int z = 0; z < pages; ++z)
      raw.add_directory(gray_page(1, kRows, COMPRESSION_NONE, offsets_at, counts_at, kRows));
    write_bytes(dir / "shared.tif", raw.bytes());
    if (pages == 2) {
      // Within the file's size: two pages read, both the same.
      const io::Volume v = io::read_volume(dir / "shared.tif");
      CHECK(v.depth == 2);
      CHECK(v.voxels == std::vector<float>(2 * kRows, from_unorm8(0x2A)));
    } else {
      CHECK(starts_with(volume_error(dir / "shared.tif"),
                        dir / "shared.tif: corrupt TIFF (its directories describe "));
    }
  }
}
