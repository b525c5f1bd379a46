// Image I/O: exact round trips, PFM orientation and byte order, and every kind of bad input.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
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

std::string le_floats(const std::vector<float>& v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), v.data(), s.size());  // the test machine is little-endian
  return s;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

const std::string kImages = std::string(RF_SOURCE_DIR) + "/../shared/images/";

std::string shared_image(const std::string& name) {
  // The test images live beside the repository in ../shared/images; assets/ has a copy of some.
  const std::string beside = kImages + name;
  if (fs::exists(beside)) return beside;
  return std::string(RF_SOURCE_DIR) + "/assets/" + name;
}

}  // namespace

TEST_CASE("image io: PFM round trips floats exactly, gray and RGB") {
  TempDir dir;
  for (int c : {1, 3}) {
    CAPTURE(c);
    Image img = rf::test::random_image(37, 23, c, 42, -1e3f, 1e3f);
    img.pixels[5] = std::numeric_limits<float>::denorm_min();
    img.pixels[6] = -0.0f;
    const std::string path = dir / ("round" + std::to_string(c) + ".pfm");
    io::write_image(path, img);
    const Image back = io::read_image(path);
    CHECK(back.width == 37);
    CHECK(back.height == 23);
    CHECK(back.channels == c);
    CHECK(std::memcmp(back.pixels.data(), img.pixels.data(), img.pixels.size() * 4) == 0);
  }
}

TEST_CASE("image io: PFM rows are stored bottom-up, in either byte order") {
  TempDir dir;
  // 2x2 gray; the file's first row is the image's bottom row.
  const std::vector<float> file_order = {1.0f, 2.0f, 3.0f, 4.0f};
  write_bytes(dir / "le.pfm", "Pf\n2 2\n-1.0\n" + le_floats(file_order));
  Image img = io::read_image(dir / "le.pfm");
  CHECK(img.at(0, 1) == 1.0f);
  CHECK(img.at(1, 1) == 2.0f);
  CHECK(img.at(0, 0) == 3.0f);
  CHECK(img.at(1, 0) == 4.0f);

  std::string be = le_floats(file_order);
  for (std::size_t i = 0; i < be.size(); i += 4)
    std::swap(be[i], be[i + 3]), std::swap(be[i + 1], be[i + 2]);
  write_bytes(dir / "be.pfm", "Pf\n2 2\n1.0\n" + be);
  const Image big = io::read_image(dir / "be.pfm");
  CHECK(big.pixels == img.pixels);

  // Written files put the top row last, little-endian.
  io::write_image(dir / "out.pfm", img);
  CHECK(read_bytes(dir / "out.pfm") == "Pf\n2 2\n-1.0\n" + le_floats(file_order));
}

TEST_CASE("image io: 8-bit formats keep channels and round trip on the 1/255 grid") {
  TempDir dir;
  for (int c : {1, 2, 3, 4})
    for (const char* ext : {".png", ".bmp", ".tga"}) {
      if (c == 2 && std::string(ext) == ".bmp") continue;  // BMP has no gray + alpha
      CAPTURE(c);
      const std::string ext_name = ext;
      CAPTURE(ext_name);
      const Image img = rf::test::random_image_8bit(19, 7, c, 3);
      const std::string path = dir / (std::string("q") + std::to_string(c) + ext);
      io::write_image(path, img);
      const Image back = io::read_image(path);
      REQUIRE(back.channels == (std::string(ext) == ".bmp" && c == 1 ? 3 : c));
      if (back.channels != c) continue;
      CHECK(back.pixels == img.pixels);
    }
}

TEST_CASE("image io: 8-bit output clamps and rounds") {
  TempDir dir;
  Image img(4, 1, 1);
  img.pixels = {-0.5f, 1.5f, 0.5f, std::nanf("")};
  io::write_image(dir / "clamp.png", img);
  const Image back = io::read_image(dir / "clamp.png");
  CHECK(back.pixels[0] == 0.0f);
  CHECK(back.pixels[1] == 1.0f);
  CHECK(back.pixels[2] == 128.0f / 255.0f);  // 0.5 * 255 = 127.5 rounds up
  CHECK(back.pixels[3] == 0.0f);
}

// The bit depth in a PNG's IHDR chunk, which must come first.
int png_depth(const std::string& path) {
  const std::string b = read_bytes(path);
  REQUIRE(b.size() > 24);
  REQUIRE(b.compare(12, 4, "IHDR") == 0);
  return static_cast<unsigned char>(b[24]);
}

TEST_CASE("image io: 16-bit PNG round trips exactly on the 1/65535 grid") {
  TempDir dir;
  for (int c : {1, 2, 3, 4}) {
    CAPTURE(c);
    Image img(23, 11, c);
    const std::vector<std::uint8_t> r = rf::test::random_bytes(img.pixels.size() * 2, 9 + c);
    for (std::size_t i = 0; i < img.pixels.size(); ++i)
      img.pixels[i] = io::from_unorm16(std::uint16_t(r[2 * i] | r[2 * i + 1] << 8));
    img.pixels[0] = 0.0f;
    img.pixels[1] = 1.0f;
    const std::string path = dir / ("p" + std::to_string(c) + ".png");
    io::write_image(path, img, 16);
    CHECK(png_depth(path) == 16);
    int bits = 0;
    const Image back = io::read_image(path, &bits);
    CHECK(bits == 16);
    REQUIRE(back.channels == c);
    CHECK(back.pixels == img.pixels);
  }
}

TEST_CASE("image io: 16-bit output clamps and rounds to the nearest 1/65535") {
  TempDir dir;
  Image img(6, 1, 1);
  img.pixels = {-0.5f, 1.5f, 0.5f, std::nanf(""), 0.25f, 0.49f / 65535.0f};
  io::write_image(dir / "clamp.png", img, 16);
  const Image back = io::read_image(dir / "clamp.png");
  CHECK(back.pixels[0] == 0.0f);
  CHECK(back.pixels[1] == 1.0f);
  CHECK(back.pixels[2] == 32768.0f / 65535.0f);  // 32767.5 rounds to even
  CHECK(back.pixels[3] == 0.0f);
  CHECK(back.pixels[4] == 16384.0f / 65535.0f);  // 16383.75
  CHECK(back.pixels[5] == 0.0f);
  for (float v : {0.3f, 0.123456f, 0.999f})
    CHECK(std::abs(io::from_unorm16(io::to_unorm16(v)) - v) <= 0.5f / 65535.0f);
}

TEST_CASE("image io: depths by format; PNG stays 8 bits unless 16 are asked for") {
  TempDir dir;
  CHECK(io::output_depths("a.png") == std::vector<int>{8, 16});
  CHECK(io::output_depths("a.TIF") == std::vector<int>{8, 16, 32});
  CHECK(io::output_depths("a.tiff") == std::vector<int>{8, 16, 32});
  CHECK(io::output_depths("a.jpeg") == std::vector<int>{8});
  CHECK(io::output_depths("a.pfm") == std::vector<int>{32});
  CHECK(io::output_depths("a.hdr") == std::vector<int>{32});
  CHECK_THROWS_WITH_AS(io::output_depths("a.webp"), doctest::Contains("unsupported output format"),
                       IoError);
  const Image img = rf::test::random_image_8bit(5, 3, 3, 2);
  io::write_image(dir / "eight.png", img);
  CHECK(png_depth(dir / "eight.png") == 8);
  int bits = 0;
  CHECK(io::read_image(dir / "eight.png", &bits).pixels == img.pixels);
  CHECK(bits == 8);
  CHECK_THROWS_WITH_AS(io::write_image(dir / "x.jpg", img, 16),
                       doctest::Contains("x.jpg: 16-bit output: .jpg stores 8 bits"), IoError);
  CHECK_THROWS_WITH_AS(io::write_image(dir / "x.png", img, 32),
                       doctest::Contains("32-bit output: .png stores 8 or 16 bits"), IoError);
  CHECK_THROWS_WITH_AS(io::write_image(dir / "x.pfm", img, 8),
                       doctest::Contains(".pfm stores 32 bits"), IoError);
  CHECK(dir.files() == 1);
  io::write_image(dir / "x.pfm", img, 32);
  CHECK(io::read_image(dir / "x.pfm", &bits).pixels == img.pixels);
  CHECK(bits == 32);
}

TEST_CASE("image io: JPEG and HDR write and read back closely") {
  TempDir dir;
  Image img(32, 24, 3);
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 32; ++x)
      for (int c = 0; c < 3; ++c) img.at(x, y, c) = 0.2f + 0.6f * float(x + y + c) / 60.0f;
  io::write_image(dir / "smooth.jpg", img);
  const Image jpg = io::read_image(dir / "smooth.jpg");
  REQUIRE(jpg.channels == 3);
  double err = 0.0;
  for (std::size_t i = 0; i < img.pixels.size(); ++i)
    err = std::max(err, double(std::abs(jpg.pixels[i] - img.pixels[i])));
  CHECK(err < 0.05);

  const Image hdr_in = rf::test::random_image(9, 5, 3, 5, 0.01f, 50.0f);
  io::write_image(dir / "x.hdr", hdr_in);
  const Image hdr = io::read_image(dir / "x.hdr");
  REQUIRE(hdr.channels == 3);
  // RGBE shares one 8-bit exponent per pixel: each channel is exact to 1/128 of the largest one.
  for (int i = 0; i < 9 * 5; ++i) {
    const float* p = &hdr_in.pixels[i * 3];
    const float peak = std::max({p[0], p[1], p[2]});
    for (int c = 0; c < 3; ++c) CHECK(std::abs(hdr.pixels[i * 3 + c] - p[c]) <= peak / 128.0f);
  }
}

TEST_CASE("image io: the shared test images load with their channel counts") {
  const Image astronaut = io::read_image(shared_image("astronaut.png"));
  CHECK(astronaut.width == 512);
  CHECK(astronaut.height == 512);
  CHECK(astronaut.channels == 3);
  if (fs::exists(kImages + "brick.png")) {
    const Image brick = io::read_image(kImages + "brick.png");
    CHECK(brick.channels == 1);
  }
  if (fs::exists(kImages + "rocket.jpg")) {
    const Image rocket = io::read_image(kImages + "rocket.jpg");
    CHECK(rocket.channels == 3);
    float lo = 1.0f, hi = 0.0f;
    for (float v : rocket.pixels) lo = std::min(lo, v), hi = std::max(hi, v);
    CHECK(lo >= 0.0f);
    CHECK(hi <= 1.0f);
    CHECK(hi > lo);
  }
}

TEST_CASE("image io: missing, unreadable, empty and unsupported files are refused") {
  TempDir dir;
  std::string e = read_error(dir / "missing.png");
  CHECK(starts_with(e, dir / "missing.png" + ": cannot open"));
  CHECK(e.find("No such file") != std::string::npos);

  e = read_error(dir.path());
  CHECK(e.find("is a directory") != std::string::npos);

  write_bytes(dir / "empty.png", "");
  CHECK(read_error(dir / "empty.png") == dir / "empty.png" + ": empty file");

  write_bytes(dir / "text.png", "this is not an image at all\n");
  e = read_error(dir / "text.png");
  CHECK(starts_with(e, dir / "text.png" + ": unsupported or corrupt image"));

  if (::geteuid() != 0) {  // root reads files whatever their mode
    write_bytes(dir / "locked.pfm", "Pf\n1 1\n-1.0\n" + le_floats({1.0f}));
    fs::permissions(dir / "locked.pfm", fs::perms::none);
    CHECK(read_error(dir / "locked.pfm").find("Permission denied") != std::string::npos);
  }

  Image img(2, 2, 1);
  img.pixels = {0.1f, 0.2f, 0.3f, 0.4f};
  CHECK_THROWS_WITH_AS(io::write_image(dir / "x.webp", img),
                       doctest::Contains("unsupported output format"), IoError);
  CHECK_THROWS_WITH_AS(io::write_image(dir / "no/such/dir/x.png", img),
                       doctest::Contains("cannot write"), IoError);
  CHECK_THROWS_WITH_AS(io::write_image(dir / "no/such/dir/x.pfm", img),
                       doctest::Contains("cannot write"), IoError);
}

TEST_CASE("image io: truncated files are refused, not decoded with grey fill") {
  TempDir dir;
  const std::string shared_truncated = kImages + "truncated.jpg";
  if (fs::exists(shared_truncated)) {
    const std::string e = read_error(shared_truncated);
    CHECK(starts_with(e, shared_truncated + ": "));
  }
  // A JPEG cut in the middle of its entropy-coded data decodes "successfully" in stb_image.
  if (fs::exists(kImages + "rocket.jpg")) {
    const std::string jpg = read_bytes(kImages + "rocket.jpg");
    write_bytes(dir / "cut.jpg", jpg.substr(0, jpg.size() * 6 / 10));
    CHECK(read_error(dir / "cut.jpg").find("truncated JPEG") != std::string::npos);
    write_bytes(dir / "whole.jpg", jpg);
    CHECK(read_error(dir / "whole.jpg").empty());
  }
  const std::string png = read_bytes(shared_image("astronaut.png"));
  write_bytes(dir / "cut.png", png.substr(0, png.size() / 2));
  CHECK(starts_with(read_error(dir / "cut.png"), dir / "cut.png" + ": "));
}

TEST_CASE("image io: zero and absurd sizes are refused from the header") {
  TempDir dir;
  // A PFM header that claims 40000 x 10 with no data: refused for its size, not its short data.
  write_bytes(dir / "wide.pfm", "Pf\n40000 10\n-1.0\n");
  CHECK(read_error(dir / "wide.pfm").find("exceeds the limit of 32768") != std::string::npos);
  write_bytes(dir / "huge.pfm", "PF\n99999999999 99999999999\n-1.0\n");
  CHECK(read_error(dir / "huge.pfm").find("exceeds the limit") != std::string::npos);
  write_bytes(dir / "zero.pfm", "Pf\n0 5\n-1.0\n");
  CHECK(read_error(dir / "zero.pfm").find("invalid image size 0x5") != std::string::npos);
  write_bytes(dir / "neg.pfm", "Pf\n4 -5\n-1.0\n");
  CHECK(read_error(dir / "neg.pfm").find("invalid image size") != std::string::npos);

  // A PNG whose IHDR claims 40000 x 16: the signature and IHDR are all stbi_info reads.
  std::string png("\x89PNG\r\n\x1a\n", 8);
  const unsigned char ihdr[] = {0, 0, 0,  13, 'I', 'H', 'D', 'R', 0, 0, 0x9c, 0x40, 0,
                                0, 0, 16, 8,  2,   0,   0,   0,   0, 0, 0,    0};
  png.append(reinterpret_cast<const char*>(ihdr), sizeof ihdr);
  write_bytes(dir / "wide.png", png);
  CHECK(read_error(dir / "wide.png").find("40000x16 exceeds the limit") != std::string::npos);
}

TEST_CASE("image io: malformed PFM headers and short data are refused") {
  TempDir dir;
  write_bytes(dir / "scale.pfm", "Pf\n1 1\n0\n" + le_floats({1.0f}));
  CHECK(read_error(dir / "scale.pfm").find("scale") != std::string::npos);
  write_bytes(dir / "word.pfm", "Pf\nwide 1\n-1\n" + le_floats({1.0f}));
  CHECK(read_error(dir / "word.pfm").find("width") != std::string::npos);
  write_bytes(dir / "header.pfm", "PF\n3");
  CHECK(read_error(dir / "header.pfm").find("PFM header") != std::string::npos);
  write_bytes(dir / "short.pfm", "PF\n2 2\n-1.0\n" + le_floats({1, 2, 3, 4, 5, 6, 7}));
  CHECK(read_error(dir / "short.pfm").find("PFM data is short: 28 bytes") != std::string::npos);
}

TEST_CASE("image io: PFM with NaN or infinite samples is refused with count and position") {
  TempDir dir;
  // 3x2 RGB, file order bottom row first. Non-finite: the bottom row's x=1 green and the top row's
  // x=2 blue; reading from the top, the first is at x=2 y=0 channel 2.
  std::vector<float> v(18, 0.5f);
  v[1 * 3 + 1] = std::numeric_limits<float>::quiet_NaN();
  v[9 + 2 * 3 + 2] = std::numeric_limits<float>::infinity();
  write_bytes(dir / "nan.pfm", "PF\n3 2\n-1.0\n" + le_floats(v));
  const std::string e = read_error(dir / "nan.pfm");
  CHECK(e.find("2 NaN or infinite samples") != std::string::npos);
  CHECK(e.find("x=2 y=0 channel 2") != std::string::npos);
}
