// Camera pixel conversions (YUYV, MJPEG with and without Huffman tables), patterns, utilities.
#include <doctest/doctest.h>
#include <turbojpeg.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "app/sources/pattern.h"
#include "app/sources/source.h"
#include "app/sources/source_detail.h"
#include "filters/core/errors.h"
#include "sources_test_util.h"
#include "tests/random_data.h"

using namespace rf;
using namespace rf::app;

namespace {

std::array<int, 4> yuyv_pixel(int y, int u, int v) {
  // Two identical pixels: Y0 U Y1 V.
  const std::uint8_t in[4] = {std::uint8_t(y), std::uint8_t(u), std::uint8_t(y), std::uint8_t(v)};
  std::uint8_t out[8];
  yuyv_to_rgba(in, 2, 1, out);
  CHECK(std::equal(out, out + 4, out + 4));
  return {out[0], out[1], out[2], out[3]};
}

bool near(const std::array<int, 4>& a, const std::array<int, 4>& b) {
  for (int k = 0; k < 4; ++k)
    if (std::abs(a[k] - b[k]) > 1) return false;
  return true;
}

// BT.601 limited range in double precision: the reference for the fixed-point conversion.
std::array<double, 3> bt601(int y, int u, int v) {
  const double c = 255.0 / 219.0 * (y - 16), d = u - 128.0, e = v - 128.0;
  const double kr = 0.299, kb = 0.114, kg = 1.0 - kr - kb;
  const double s = 255.0 / 224.0;
  const double r = c + s * 2.0 * (1.0 - kr) * e;
  const double b = c + s * 2.0 * (1.0 - kb) * d;
  const double g = c - s * (2.0 * kb * (1.0 - kb) / kg * d + 2.0 * kr * (1.0 - kr) / kg * e);
  auto clip = [](double x) { return std::clamp(x, 0.0, 255.0); };
  return {clip(r), clip(g), clip(b)};
}

std::vector<std::uint8_t> encode_jpeg(const std::vector<std::uint8_t>& rgba, int w, int h,
                                      int subsampling) {
  tjhandle tj = tjInitCompress();
  REQUIRE(tj != nullptr);
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  const int rc = tjCompress2(tj, rgba.data(), w, 0, h, TJPF_RGBA, &jpeg, &size, subsampling, 90, 0);
  INFO(tjGetErrorStr2(tj));
  REQUIRE(rc == 0);
  std::vector<std::uint8_t> out(jpeg, jpeg + size);
  tjFree(jpeg);
  tjDestroy(tj);
  return out;
}

// Removes every DHT (0xFFC4) segment before the scan, the way many webcams send MJPEG frames.
// Returns how many segments it removed.
int strip_dht(std::vector<std::uint8_t>& jpeg) {
  std::vector<std::uint8_t> out(jpeg.begin(), jpeg.begin() + 2);  // SOI
  std::size_t i = 2;
  int removed = 0;
  while (i + 4 <= jpeg.size()) {
    REQUIRE(jpeg[i] == 0xFF);
    const std::uint8_t marker = jpeg[i + 1];
    const std::size_t length = (std::size_t(jpeg[i + 2]) << 8) | jpeg[i + 3];
    if (marker == 0xDA) break;  // SOS: the entropy-coded data follows; copy the rest as is
    if (marker == 0xC4) {
      ++removed;
    } else {
      out.insert(out.end(), jpeg.begin() + i, jpeg.begin() + i + 2 + length);
    }
    i += 2 + length;
  }
  out.insert(out.end(), jpeg.begin() + i, jpeg.end());
  jpeg = out;
  return removed;
}

// A smooth colourful picture with seeded noise of +-8 levels: compresses like a camera frame.
std::vector<std::uint8_t> test_picture(int w, int h, unsigned seed) {
  const Image noise = rf::test::random_image(w, h, 3, seed, -8.5f, 8.5f);
  auto level = [&](int x, int y, int c, int base) {
    return std::uint8_t(std::clamp(base + int(std::lround(noise.at(x, y, c))), 0, 255));
  };
  std::vector<std::uint8_t> rgba(std::size_t(w) * h * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::uint8_t* p = &rgba[(std::size_t(y) * w + x) * 4];
      p[0] = level(x, y, 0, 40 + 170 * x / w);
      p[1] = level(x, y, 1, 200 - 150 * y / h);
      p[2] = level(x, y, 2, 60 + 120 * ((x + y) % 16) / 16);
      p[3] = 255;
    }
  return rgba;
}

std::array<int, 4> pixel(const Frame& f, int x, int y) {
  const std::uint8_t* p = f.bytes.data() + (std::size_t(y) * f.width + x) * 4;
  return {p[0], p[1], p[2], p[3]};
}

}  // namespace

TEST_CASE("yuyv_to_rgba: black, white, gray and saturated colours (BT.601 limited range)") {
  CHECK(yuyv_pixel(16, 128, 128) == std::array<int, 4>{0, 0, 0, 255});
  CHECK(yuyv_pixel(235, 128, 128) == std::array<int, 4>{255, 255, 255, 255});
  CHECK(yuyv_pixel(126, 128, 128) == std::array<int, 4>{128, 128, 128, 255});
  // Pure red, green and blue as BT.601 encodes them (100% colour bars); Y, Cb and Cr are
  // rounded to integers, so the way back may be off by one.
  CHECK(near(yuyv_pixel(81, 90, 240), {255, 0, 0, 255}));
  CHECK(near(yuyv_pixel(145, 54, 34), {0, 255, 0, 255}));
  CHECK(near(yuyv_pixel(41, 240, 110), {0, 0, 255, 255}));
  // Out of the nominal range: saturates, never wraps.
  CHECK(yuyv_pixel(0, 128, 128) == std::array<int, 4>{0, 0, 0, 255});
  CHECK(yuyv_pixel(255, 128, 128) == std::array<int, 4>{255, 255, 255, 255});
  CHECK(yuyv_pixel(255, 255, 255)[0] == 255);
  CHECK(yuyv_pixel(0, 0, 0)[1] > 100);  // G = -0.39 (U-128) - 0.81 (V-128) > 0
}

TEST_CASE("yuyv_to_rgba matches the double-precision BT.601 formula on random data") {
  const int w = 33, h = 7;  // odd width: the last group's Y1 is not shown
  const std::size_t stride = std::size_t((w + 1) / 2) * 4;
  const std::vector<std::uint8_t> yuyv = rf::test::random_bytes(stride * h, 601);
  std::vector<std::uint8_t> rgba(std::size_t(w) * h * 4 + 16, 0xAB);  // 16 guard bytes
  yuyv_to_rgba(yuyv.data(), w, h, rgba.data());
  double worst = 0.0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::uint8_t* g = &yuyv[y * stride + (x / 2) * 4];
      const auto ref = bt601(g[(x % 2) * 2], g[1], g[3]);
      const std::uint8_t* p = &rgba[(std::size_t(y) * w + x) * 4];
      for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(p[c] - ref[c]));
      CHECK(p[3] == 255);
    }
  CHECK(worst <= 1.0);
  CHECK(std::all_of(rgba.end() - 16, rgba.end(), [](std::uint8_t b) { return b == 0xAB; }));
}

TEST_CASE("yuyv_to_rgba with padded rows equals the packed conversion") {
  for (int w : {1, 2, 3, 31, 64}) {
    const int h = 5;
    const std::size_t packed = std::size_t((w + 1) / 2) * 4, padded = packed + 12;
    const std::vector<std::uint8_t> b = rf::test::random_bytes(padded * h, 7);
    std::vector<std::uint8_t> a(packed * h);
    for (int y = 0; y < h; ++y) std::copy_n(&b[y * padded], packed, &a[y * packed]);
    std::vector<std::uint8_t> ra(std::size_t(w) * h * 4), rb(ra.size());
    yuyv_to_rgba(a.data(), w, h, ra.data());
    yuyv_to_rgba(b.data(), w, h, padded, rb.data());
    CHECK_MESSAGE(ra == rb, "width " << w);
  }
}

TEST_CASE("decode_mjpeg decodes a JPEG with and without its Huffman tables (DHT)") {
  for (const auto& [w, h, subsampling] :
       {std::tuple{37, 29, int(TJSAMP_422)}, std::tuple{64, 48, int(TJSAMP_420)},
        std::tuple{1, 1, int(TJSAMP_444)}}) {
    CAPTURE(w);
    CAPTURE(h);
    const auto original = test_picture(w, h, unsigned(w * 131 + h));
    auto jpeg = encode_jpeg(original, w, h, subsampling);
    Frame full;
    decode_mjpeg(jpeg.data(), jpeg.size(), full);
    REQUIRE(full.width == w);
    REQUIRE(full.height == h);
    CHECK(full.format == PixelFormat::RGBA8);
    REQUIRE(full.bytes.size() == original.size());
    double sum = 0.0;
    for (std::size_t i = 0; i < original.size(); ++i) sum += std::abs(full.bytes[i] - original[i]);
    CHECK(sum / double(original.size()) < 6.0);  // quality 90 on noisy gradients

    // libjpeg-turbo's encoder writes the standard tables of T.81 annex K.3, so decoding with
    // the tables it assumes must give exactly the same picture.
    const std::size_t size_with = jpeg.size();
    CHECK(strip_dht(jpeg) >= 1);
    CHECK(jpeg.size() < size_with);
    Frame stripped;
    decode_mjpeg(jpeg.data(), jpeg.size(), stripped);
    CHECK(stripped.width == w);
    CHECK(stripped.height == h);
    CHECK(stripped.bytes == full.bytes);
  }
}

TEST_CASE("decode_mjpeg rejects data that is not a JPEG") {
  std::vector<std::uint8_t> junk = rf::test::random_bytes(500, 3);
  junk[0] = 0x12;  // certainly no SOI marker
  Frame f;
  CHECK_THROWS_AS(decode_mjpeg(junk.data(), junk.size(), f), IoError);
  CHECK_THROWS_AS(decode_mjpeg(junk.data(), 0, f), IoError);
  // A real JPEG cut in its header is no picture either.
  auto jpeg = encode_jpeg(test_picture(16, 16, 1), 16, 16, TJSAMP_422);
  CHECK_THROWS_AS(decode_mjpeg(jpeg.data(), 40, f), IoError);
}

TEST_CASE("natural order sorts numbers by value") {
  std::vector<std::string> names = {"frame10.png",  "frame2.png", "Frame3.png",   "frame1.png",
                                    "frame002.png", "a.png",      "frame20b.png", "frame20a.png"};
  std::sort(names.begin(), names.end(), detail::natural_less);
  const std::vector<std::string> expected = {"a.png",        "frame1.png",  "frame002.png",
                                             "frame2.png",   "Frame3.png",  "frame10.png",
                                             "frame20a.png", "frame20b.png"};
  CHECK(names == expected);
  CHECK_FALSE(detail::natural_less("x", "x"));
  CHECK(detail::natural_less("x9", "x10"));
  CHECK_FALSE(detail::natural_less("x10", "x9"));
  CHECK(detail::natural_less("x99999999999999999999998", "x99999999999999999999999"));
}

TEST_CASE("patterns: every name at odd sizes is RGBA8 with opaque alpha") {
  for (const std::string& name : pattern_names())
    for (auto [w, h] : {std::pair{1, 1}, std::pair{33, 17}, std::pair{257, 131}}) {
      CAPTURE(name);
      CAPTURE(w);
      const Frame f = render_pattern(name, w, h);
      CHECK(f.width == w);
      CHECK(f.height == h);
      CHECK(f.format == PixelFormat::RGBA8);
      REQUIRE(f.bytes.size() == std::size_t(w) * h * 4);
      bool opaque = true;
      for (std::size_t i = 3; i < f.bytes.size(); i += 4) opaque = opaque && f.bytes[i] == 255;
      CHECK(opaque);
    }
  CHECK_THROWS_AS(render_pattern("plaid", 8, 8), InvalidParameter);
  CHECK_THROWS_AS(render_pattern("noise", 0, 8), InvalidParameter);
  CHECK_THROWS_AS(open_pattern("noise", 8, kMaxPatternSize + 1), InvalidParameter);
}

TEST_CASE("patterns are deterministic") {
  for (const std::string& name : pattern_names()) {
    CAPTURE(name);
    CHECK(render_pattern(name, 97, 61, 5).bytes == render_pattern(name, 97, 61, 5).bytes);
  }
  // Noise: fixed seed, but not constant and roughly uniform.
  const Frame n = render_pattern("noise", 128, 128);
  double mean = 0.0;
  std::set<int> values;
  for (std::size_t i = 0; i < n.bytes.size(); i += 4) {
    mean += n.bytes[i];
    values.insert(n.bytes[i]);
  }
  mean /= 128.0 * 128.0;
  CHECK(mean == doctest::Approx(127.5).epsilon(0.02));
  CHECK(values.size() > 250);
}

TEST_CASE("impulses sit on the documented grid") {
  for (auto [w, h] : {std::pair{512, 512}, std::pair{257, 131}, std::pair{33, 17}}) {
    CAPTURE(w);
    CAPTURE(h);
    const int s = pattern_cell_size(w, h);
    const Frame f = render_pattern("impulses", w, h);
    int count = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const auto p = pixel(f, x, y);
        const bool on_grid = x % s == s / 2 && y % s == s / 2;
        if (on_grid) ++count;
        CHECK(p == (on_grid ? std::array<int, 4>{255, 255, 255, 255}
                            : std::array<int, 4>{0, 0, 0, 255}));
      }
    CHECK(count == ((w - s / 2 + s - 1) / s) * ((h - s / 2 + s - 1) / s));
  }
  CHECK(pattern_cell_size(512, 512) == 64);
  CHECK(render_pattern("impulses", 512, 512).bytes[(32 * 512 + 32) * 4] == 255);
}

TEST_CASE("the periodic pattern is continuous across opposite edges") {
  for (auto [w, h] : {std::pair{257, 131}, std::pair{64, 64}, std::pair{512, 300}}) {
    CAPTURE(w);
    const Frame f = render_pattern("periodic", w, h);
    // The jump across an edge is no larger than the largest jump between neighbours inside.
    int inner_x = 0, inner_y = 0, wrap_x = 0, wrap_y = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 3; ++c) {
          const int v = pixel(f, x, y)[c];
          const int right = pixel(f, (x + 1) % w, y)[c];
          const int down = pixel(f, x, (y + 1) % h)[c];
          if (x + 1 < w)
            inner_x = std::max(inner_x, std::abs(right - v));
          else
            wrap_x = std::max(wrap_x, std::abs(right - v));
          if (y + 1 < h)
            inner_y = std::max(inner_y, std::abs(down - v));
          else
            wrap_y = std::max(wrap_y, std::abs(down - v));
        }
    CHECK(inner_x > 0);
    CHECK(inner_y > 0);
    CHECK(wrap_x <= inner_x + 1);
    CHECK(wrap_y <= inner_y + 1);
  }
  // The steps pattern is not periodic: its edges meet the borders.
  const Frame s = render_pattern("steps", 64, 64);
  CHECK(pixel(s, 0, 0) != pixel(s, 63, 0));
  CHECK(pixel(s, 0, 0) != pixel(s, 0, 63));
}

TEST_CASE("steps and checkerboard have their edges where documented") {
  const int w = 101, h = 67;
  const Frame s = render_pattern("steps", w, h);
  // Each quadrant is flat, and all four differ.
  std::set<std::array<int, 4>> quadrants;
  for (auto [x0, y0] :
       {std::pair{0, 0}, std::pair{w / 2, 0}, std::pair{0, h / 2}, std::pair{w / 2, h / 2}}) {
    const auto v = pixel(s, x0, y0);
    quadrants.insert(v);
    const int x1 = x0 == 0 ? w / 2 : w, y1 = y0 == 0 ? h / 2 : h;
    bool flat = true;
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) flat = flat && pixel(s, x, y) == v;
    CHECK(flat);
    CHECK(v[0] + v[1] + v[2] > 0);  // no quadrant is black
  }
  CHECK(quadrants.size() == 4);
  const Frame c = render_pattern("checkerboard", w, h);
  const int cell = pattern_cell_size(w, h);
  CHECK(pixel(c, 0, 0) != pixel(c, cell, 0));
  CHECK(pixel(c, 0, 0) == pixel(c, cell, cell));
  CHECK(pixel(c, cell - 1, cell - 1) == pixel(c, 0, 0));
}

TEST_CASE("the moving bar moves, wraps around and steps while paused") {
  const int w = 256, h = 20;
  const int bar = w / 16, speed = w / 128;
  auto white_columns = [&](const Frame& f) {
    std::vector<int> cols;
    for (int x = 0; x < w; ++x)
      if (pixel(f, x, h / 2)[0] == 255) cols.push_back(x);
    return cols;
  };
  const auto c0 = white_columns(render_pattern("moving-bar", w, h, 0));
  REQUIRE(c0.size() == std::size_t(bar));
  CHECK(c0.front() == 0);
  const auto c3 = white_columns(render_pattern("moving-bar", w, h, 3));
  CHECK(c3.front() == 3 * speed);
  // Straddling the right border: part of the bar shows at the left.
  const std::int64_t straddle = (w - bar / 2) / speed;
  const auto cw = white_columns(render_pattern("moving-bar", w, h, straddle));
  CHECK(cw.size() == std::size_t(bar));
  CHECK(cw.front() == 0);
  CHECK(cw.back() == w - 1);

  auto source = open_pattern("moving-bar", w, h);
  CHECK(source->animated());
  source->set_paused(true);
  Frame f;
  REQUIRE(source->poll(f));
  const auto before = white_columns(f);
  CHECK_FALSE(source->poll(f));  // paused: nothing new
  source->step();
  REQUIRE(source->poll(f));
  const auto after = white_columns(f);
  CHECK(after.front() == (before.front() + speed) % w);
}

TEST_CASE("a still pattern delivers its frame once") {
  auto source = open_pattern("checkerboard", 40, 30);
  CHECK_FALSE(source->animated());
  CHECK(source->description().find("checkerboard") != std::string::npos);
  CHECK(source->status().empty());
  Frame f;
  REQUIRE(source->poll(f));
  CHECK(f.index > 0);
  CHECK_FALSE(source->poll(f));
  // A frame kept from an older source never hides this one: indices only grow.
  auto newer = open_pattern("impulses", 40, 30);
  CHECK(newer->poll(f));
}

TEST_CASE("the frame clock counts frames while playing and stands still while paused") {
  using clock = detail::FrameClock::clock;
  using ms = std::chrono::milliseconds;
  detail::FrameClock c(25.0);
  const clock::time_point t0 = clock::now();
  c.seek(0, t0);
  CHECK(c.frame(t0) == 0);
  CHECK(c.frame(t0 + ms(39)) == 0);
  CHECK(c.frame(t0 + ms(41)) == 1);
  CHECK(c.frame(t0 + ms(1001)) == 25);
  CHECK(c.due(3) - t0 == std::chrono::duration_cast<clock::duration>(ms(120)));
  c.set_paused(true, t0 + ms(130));
  CHECK(c.paused());
  CHECK(c.frame(t0 + ms(5000)) == 3);
  c.seek(7, t0 + ms(5000));  // a step while paused
  CHECK(c.frame(t0 + ms(9000)) == 7);
  c.set_paused(false, t0 + ms(9000));
  CHECK(c.frame(t0 + ms(9000)) == 7);
  CHECK(c.frame(t0 + ms(9041)) == 8);
  CHECK_THROWS_AS(detail::FrameClock(0.0), InvalidParameter);
  CHECK_THROWS_AS(detail::FrameClock(-5.0), InvalidParameter);
}
