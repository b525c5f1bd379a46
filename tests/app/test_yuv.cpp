// Camera formats: the BT.601 conversions the CPU paths use against yuv.h's formulas (which the
// GPU kernels use), NV12 with odd sizes and padded rows, RGBA to YUYV and NV12 and back, and the
// patterns delivered like a camera.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "app/sources/pattern.h"
#include "app/sources/source.h"
#include "app/sources/yuv.h"
#include "tests/random_data.h"

using namespace rf;
using namespace rf::app;

TEST_CASE("the YUYV lookup tables compute yuv.h's formula for every Y, Cb and Cr") {
  // Row u * 256 + v holds 256 pixels with Y = x; every (Y, Cb, Cr) appears once.
  const int width = 256, height = 65536;
  std::vector<std::uint8_t> yuyv(std::size_t(width) * 2 * height);
  for (int row = 0; row < height; ++row)
    for (int x = 0; x < width; x += 2) {
      std::uint8_t* g = &yuyv[(std::size_t(row) * width + x) * 2];
      g[0] = std::uint8_t(x);
      g[1] = std::uint8_t(row >> 8);
      g[2] = std::uint8_t(x + 1);
      g[3] = std::uint8_t(row & 255);
    }
  std::vector<std::uint8_t> rgba(std::size_t(width) * height * 4);
  yuyv_to_rgba(yuyv.data(), width, height, rgba.data());
  std::size_t wrong = 0;
  for (int row = 0; row < height; ++row)
    for (int x = 0; x < width; ++x) {
      std::uint8_t r, g, b;
      yuv_to_rgb8(x, row >> 8, row & 255, &r, &g, &b);
      const std::uint8_t* p = &rgba[(std::size_t(row) * width + x) * 4];
      wrong += p[0] != r || p[1] != g || p[2] != b || p[3] != 255;
    }
  CHECK(wrong == 0);
  // Spot values by hand: nominal black and white, and saturated red (Cr 240).
  std::uint8_t r, g, b;
  yuv_to_rgb8(16, 128, 128, &r, &g, &b);
  CHECK((r == 0 && g == 0 && b == 0));
  yuv_to_rgb8(235, 128, 128, &r, &g, &b);
  CHECK((r == 255 && g == 255 && b == 255));
  yuv_to_rgb8(81, 90, 240, &r, &g, &b);
  CHECK((r >= 253 && g <= 2 && b <= 2));
}

TEST_CASE("NV12 converts pixel by pixel with shared chroma, odd sizes and padded rows") {
  for (auto [w, h, pad] : {std::tuple{1, 1, 0}, std::tuple{7, 5, 3}, std::tuple{64, 31, 16}}) {
    CAPTURE(w);
    CAPTURE(h);
    const std::size_t stride = yuv_min_stride(Encoding::Nv12, w) + std::size_t(pad);
    const std::vector<std::uint8_t> nv12 =
        rf::test::random_bytes(yuv_frame_bytes(Encoding::Nv12, h, stride), 20161);
    std::vector<std::uint8_t> rgba(std::size_t(w) * h * 4);
    nv12_to_rgba(nv12.data(), w, h, stride, rgba.data());
    int wrong = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const std::uint8_t* uv = &nv12[stride * (std::size_t(h) + y / 2) + (x & ~1)];
        std::uint8_t r, g, b;
        yuv_to_rgb8(nv12[stride * y + x], uv[0], uv[1], &r, &g, &b);
        const std::uint8_t* p = &rgba[(std::size_t(y) * w + x) * 4];
        wrong += p[0] != r || p[1] != g || p[2] != b;
      }
    CHECK(wrong == 0);
  }
}

TEST_CASE("RGBA to YUYV and NV12 and back stays within a few levels on smooth images") {
  const int w = 33, h = 17;
  std::vector<std::uint8_t> rgba(std::size_t(w) * h * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::uint8_t* p = &rgba[(std::size_t(y) * w + x) * 4];
      p[0] = std::uint8_t(40 + 5 * x);
      p[1] = std::uint8_t(200 - 6 * y);
      p[2] = std::uint8_t(90 + 2 * x + 3 * y);
      p[3] = 255;
    }
  for (Encoding e : {Encoding::Yuyv, Encoding::Nv12}) {
    const std::string format = to_string(e);
    CAPTURE(format);
    const std::size_t stride = yuv_min_stride(e, w) + 4;
    std::vector<std::uint8_t> coded(yuv_frame_bytes(e, h, stride));
    std::vector<std::uint8_t> back(rgba.size());
    if (e == Encoding::Yuyv) {
      rgba_to_yuyv(rgba.data(), w, h, coded.data(), stride);
      yuyv_to_rgba(coded.data(), w, h, stride, back.data());
    } else {
      rgba_to_nv12(rgba.data(), w, h, coded.data(), stride);
      nv12_to_rgba(coded.data(), w, h, stride, back.data());
    }
    int worst = 0;
    for (std::size_t i = 0; i < rgba.size(); ++i)
      worst = std::max(worst, std::abs(int(back[i]) - int(rgba[i])));
    // Chroma shared by neighbours and 8-bit limited range cost a few levels on gradients.
    CHECK(worst <= 8);
  }
  // Gray stays gray, within the rounding of the limited range.
  std::vector<std::uint8_t> gray = {77, 77, 77, 255, 200, 200, 200, 255};
  std::vector<std::uint8_t> coded(4), back(8);
  rgba_to_yuyv(gray.data(), 2, 1, coded.data(), 4);
  CHECK(coded[1] == 128);
  CHECK(coded[3] == 128);
  yuyv_to_rgba(coded.data(), 2, 1, back.data());
  CHECK(std::abs(int(back[0]) - 77) <= 1);
  CHECK(std::abs(int(back[4]) - 200) <= 1);
}

TEST_CASE("patterns delivered as YUYV or NV12 are the RGBA pattern encoded") {
  for (Encoding e : {Encoding::Yuyv, Encoding::Nv12})
    for (const std::string name : {"moving-bar", "checkerboard"}) {
      const std::string format = to_string(e);
      CAPTURE(name);
      CAPTURE(format);
      const Frame rgba = render_pattern(name, 41, 23, 7);
      const Frame coded = render_pattern(name, 41, 23, 7, e);
      CHECK(coded.encoding == e);
      CHECK(coded.stride == yuv_min_stride(e, 41));
      CHECK(coded.bytes == encode_frame(rgba, e).bytes);
    }
  auto source = open_pattern("moving-bar", 64, 48, Encoding::Yuyv);
  CHECK(source->description() == "pattern: moving-bar 64x48 YUYV");
  Frame f;
  REQUIRE(source->poll(f));
  CHECK(f.encoding == Encoding::Yuyv);
  CHECK(f.bytes.size() == 64 * 2 * 48);
}
