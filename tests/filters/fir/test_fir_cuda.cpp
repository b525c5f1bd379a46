// The FIR method of the Gaussian on the CUDA engine: the tuned kernels (both axes, fused and
// two-pass; one float channel, four channels in float and 8-bit buffers) and the direct kernel
// (one axis) against the independent double reference.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "filters/core/engine.h"
#include "filters/core/extension.h"
#include "filters/core/spec.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/filters/fir/fir_reference.h"
#include "tests/random_data.h"

TEST_CASE("cuda: the FIR method equals the double reference at every extension, size and axis") {
  RF_REQUIRE_CUDA();
  struct Case {
    int w, h, channels;
    double sx, sy;
    rf::Axes axes;
  };
  const Case cases[] = {
      {37, 23, 1, 1.3, 1.3, rf::Axes::Both},      // fused
      {133, 71, 1, 2.1, 0.6, rf::Axes::Both},     // fused, a sigma per axis
      {301, 77, 1, 5.0, 5.0, rf::Axes::Both},     // two-pass (radius 20)
      {45, 300, 1, 1.0, 7.0, rf::Axes::Both},     // two-pass (radius 28 down the columns)
      {61, 35, 1, 32.0, 32.0, rf::Axes::Both},    // radius 128, wider than the frame
      {29, 31, 4, 2.1, 0.9, rf::Axes::Both},      // four channels: tuned, two-pass
      {301, 47, 4, 3.3, 1.2, rf::Axes::Both},     // several row tiles
      {70, 40, 4, 30.0, 30.0, rf::Axes::Both},    // radius 120
      {17, 13, 4, 2.5, 2.5, rf::Axes::X},        {17, 13, 1, 1.0, 1.9, rf::Axes::Y},
      {9, 1, 1, 1.5, 1.5, rf::Axes::Both},       {1, 11, 4, 0.8, 3.0, rf::Axes::Both}};
  auto engine = rf::make_cuda_engine();
  int n = 0;
  for (const Case& c : cases)
    for (rf::Extension ext : rf::kAllExtensions) {
      rf::FilterSpec spec;
      spec.gaussian_method = rf::GaussianMethod::Fir;
      spec.sigma = c.sx;
      if (c.sy != c.sx) spec.sigma_y = c.sy;
      spec.ext = ext;
      spec.cval = ext == rf::Extension::Constant ? 0.7 : 0.0;
      spec.axes = c.axes;
      const rf::Image in = rf::test::random_image(c.w, c.h, c.channels, 200 + n++);
      const std::vector<double> want = rf::test::fir_image(in, spec);
      const rf::Image got = rf::filter_image(*engine, spec, in);
      INFO(rf::describe(spec), " on ", c.w, "x", c.h, "x", c.channels);
      CHECK(rf::test::worst_relative(got.pixels, want) < 1e-5);
      CHECK(engine->method().rfind("FIR radius", 0) == 0);
    }
}

TEST_CASE("cuda: the FIR method in place, and on RGBA8 frames") {
  RF_REQUIRE_CUDA();
  auto engine = rf::make_cuda_engine();
  rf::FilterSpec spec;
  spec.gaussian_method = rf::GaussianMethod::Fir;
  spec.sigma = 1.4;
  spec.ext = rf::Extension::Reflect101;
  // filter_image runs one-channel images in place: the fused kernel goes through its scratch.
  const rf::Image gray = rf::test::random_image(70, 66, 1, 5);
  const std::vector<double> want_gray = rf::test::fir_image(gray, spec);
  CHECK(rf::test::worst_relative(rf::filter_image(*engine, spec, gray).pixels, want_gray) < 2e-6);

  // RGBA8 in and out, in place too: the tuned kernels read and write 8-bit samples themselves,
  // fused (radius 6) and in two passes (radius 16).
  const int w = 53, h = 41;
  const rf::Image f = rf::test::random_image(w, h, 4, 6);
  std::vector<std::uint8_t> bytes(f.pixels.size());
  rf::Image as_float(w, h, 4);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = std::uint8_t(std::lround(f.pixels[i] * 255.0f));
    as_float.pixels[i] = bytes[i] / 255.0f;
  }
  const rf::FrameView in{bytes.data(), 0, w, h, std::size_t(w) * 4, rf::PixelFormat::RGBA8};
  for (double sigma : {1.4, 4.0}) {
    spec.sigma = sigma;
    const std::vector<double> want = rf::test::fir_image(as_float, spec);
    std::vector<std::uint8_t> out(bytes.size()), same = bytes;
    engine->plan(spec, w, h, rf::PixelFormat::RGBA8);
    engine->run(in, rf::FrameView{out.data(), 0, w, h, std::size_t(w) * 4, rf::PixelFormat::RGBA8});
    const rf::FrameView both{same.data(), 0, w, h, std::size_t(w) * 4, rf::PixelFormat::RGBA8};
    engine->run(both, both);
    double worst = 0.0;
    for (std::size_t i = 0; i < out.size(); ++i)
      worst = std::max(worst, std::abs(out[i] - want[i] * 255.0));
    INFO("sigma ", sigma);
    CHECK(worst <= 0.51);
    CHECK(same == out);
  }
}

TEST_CASE("cuda: auto method takes the FIR at small sigma and the recursion beyond") {
  RF_REQUIRE_CUDA();
  auto engine = rf::make_cuda_engine();
  rf::FilterSpec spec;
  spec.gaussian_method = rf::GaussianMethod::Auto;
  spec.order = 3;
  spec.sigma = 0.7;
  const rf::Image in = rf::test::random_image(64, 48, 1, 9);
  rf::filter_image(*engine, spec, in);
  CHECK(engine->method() == "FIR radius 3");
  spec.sigma = 40.0;
  rf::filter_image(*engine, spec, in);
  CHECK(engine->method() == "recursive order 3");
}
