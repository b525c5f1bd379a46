// 16-bit frames on CUDA: R16U and R16F read and written by the kernels themselves (io.cuh), or
// converted through float buffers for the filters that read float only; the same checks as the
// CPU engine's (sample16_frames.h), and device frames bit for bit against the host conversion.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "filters/core/device_frame.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/image.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/filters/core/sample16_frames.h"

TEST_CASE("cuda: 16-bit frames filter as their decoded samples, every algorithm and extension") {
  RF_REQUIRE_CUDA();
  auto engine = rf::make_cuda_engine();
  for (rf::PixelFormat f : {rf::PixelFormat::R16U, rf::PixelFormat::R16F}) {
    CHECK(rf::test::check_identity16(*engine, rf::Backend::Cuda, f) > 0);
    CHECK(rf::test::check_filters16(*engine, rf::Backend::Cuda, f) > 0);
    CHECK(rf::test::check_against_float16(*engine, rf::test::converted_specs16(rf::Backend::Cuda),
                                          f) > 0);
  }
}

TEST_CASE("cuda: 16-bit device frames come out as the host converts the float result") {
  RF_REQUIRE_CUDA();
  auto engine = rf::make_cuda_engine();
  const int w = 301, h = 77;
  for (rf::PixelFormat f : {rf::PixelFormat::R16U, rf::PixelFormat::R16F}) {
    rf::test::Frame16 in = rf::test::random_frame16(w, h, f, 7);
    rf::Image floats = rf::test::decoded(in);
    std::vector<std::uint16_t> packed(std::size_t(w) * h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) packed[std::size_t(y) * w + x] = in.at(x, y);
    // Auto: lines in shared memory at this order and size, the columns' result in float between
    // the two passes; down the columns alone, 16-bit samples in and out, four lines a thread.
    for (auto [algo, axes] : {std::pair{rf::Algorithm::Alg5, rf::Axes::Both},
                              {rf::Algorithm::Alg6, rf::Axes::Both},
                              {rf::Algorithm::RT, rf::Axes::Both},
                              {rf::Algorithm::Auto, rf::Axes::Both},
                              {rf::Algorithm::Auto, rf::Axes::Y}}) {
      rf::FilterSpec spec;
      spec.sigma = 4.0;
      spec.order = 3;
      spec.algo = algo;
      spec.axes = axes;
      // The float result of the same plan, converted on the host.
      rf::Image want = floats;
      engine->plan(spec, w, h, rf::PixelFormat::R32F);
      engine->run(want.view(), want.view());
      rf::cuda::DeviceFrame src(w, h, f, rf::MemorySpace::Device);
      rf::cuda::DeviceFrame dst(w, h, f, rf::MemorySpace::Device);
      src.upload(packed.data());
      dst.poison();
      engine->plan(spec, w, h, f);
      engine->run(src.view(), dst.view());
      std::vector<std::uint16_t> got(packed.size());
      dst.download(got.data());
      // The kernels compute the same floats from the same samples; a step apart at most where
      // the float result lies within an ulp of a rounding boundary.
      int off = 0, far = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        const float v = want.pixels[i];
        const std::uint16_t expect =
            f == rf::PixelFormat::R16U ? rf::to_unorm16(v) : rf::to_half(v);
        off += got[i] != expect;
        far += got[i] + 1 < expect || got[i] > expect + 1;
      }
      INFO(std::string(rf::to_string(f))
           << ", " << rf::describe(spec) << ": " << off << " of " << got.size() << " a step off");
      CHECK(far == 0);
      CHECK(off * 1000 <= int(got.size()));
    }
    // Surfaces hold no 16-bit frames: refused in one line.
    CHECK_THROWS_AS(rf::cuda::DeviceFrame(8, 8, f, rf::MemorySpace::CudaSurface),
                    rf::InvalidParameter);
  }
}
