// The edge-aware and Lee et al. filters run on float buffers; the engine must still accept the
// frames the GUI hands it: RGBA8 buffers and GL textures mapped as CUDA surfaces.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "filters/cuda/device_frame.h"
#include "filters/engine.h"
#include "tests/cuda/cuda_test.h"

using rf::FilterSpec;
using rf::MemorySpace;
using rf::PixelFormat;

TEST_CASE("cuda engine: edge-aware and one-way/two-way filters take RGBA8 frames and surfaces") {
  RF_REQUIRE_CUDA();
  const int w = 77, h = 45;
  std::vector<std::uint8_t> bytes(std::size_t(w) * h * 4);
  std::mt19937 rng(11);
  for (auto& b : bytes) b = std::uint8_t(rng() % 256);
  rf::Image as_float(w, h, 4);
  for (std::size_t i = 0; i < bytes.size(); ++i) as_float.pixels[i] = float(bytes[i]) / 255.f;

  std::vector<FilterSpec> specs(3);
  specs[0].kind = rf::FilterKind::EdgeAware;
  specs[0].sigma = 10.0;
  specs[0].sigma_r = 0.25;
  specs[0].algo = rf::Algorithm::EdgeExact;
  specs[1].kind = rf::FilterKind::Yvrg;
  specs[1].sigma = 3.0;
  specs[1].algo = rf::Algorithm::OneWay;
  specs[2] = specs[1];
  specs[2].algo = rf::Algorithm::TwoWay;

  for (const FilterSpec& spec : specs) {
    const rf::Image want = rf::filter_image(spec, as_float, rf::Backend::Cuda);
    for (MemorySpace space : {MemorySpace::Device, MemorySpace::CudaSurface}) {
      auto engine = rf::make_cuda_engine();
      engine->plan(spec, w, h, PixelFormat::RGBA8);
      rf::cuda::DeviceFrame src(w, h, PixelFormat::RGBA8, space);
      rf::cuda::DeviceFrame dst(w, h, PixelFormat::RGBA8, space);
      src.upload(bytes.data());
      dst.poison();
      engine->run(src.view(), dst.view());
      std::vector<std::uint8_t> out(bytes.size());
      dst.download(out.data());
      double worst = 0.0;
      for (std::size_t i = 0; i < out.size(); ++i) {
        const double expect = std::clamp(double(want.pixels[i]), 0.0, 1.0) * 255.0;
        worst = std::max(worst, std::fabs(double(out[i]) - expect));
      }
      INFO(rf::describe(spec), space == MemorySpace::Device ? " device" : " surface",
           ": worst difference in 8-bit steps ", worst);
      CHECK(worst <= 0.51);
    }
  }
}
