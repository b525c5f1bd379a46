// The edge-aware and Lee et al. filters and the FIR method run on float buffers (or RGBA8 ones);
// the engine must still accept the frames the GUI hands it: RGBA8 buffers and GL textures mapped
// as CUDA surfaces.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "filters/core/device_frame.h"
#include "filters/core/engine.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/filters/core/rgba8_frames.h"

using rf::FilterSpec;
using rf::MemorySpace;
using rf::PixelFormat;

TEST_CASE(
    "cuda engine: edge-aware, one-way/two-way and FIR filters take RGBA8 frames and surfaces") {
  RF_REQUIRE_CUDA();
  const rf::test::Rgba8Image in(77, 45, 11);

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
  // The Gaussian's FIR method: its tuned kernels read RGBA8 buffers, not surfaces.
  specs.push_back(FilterSpec());
  specs[3].sigma = 1.5;
  specs[3].gaussian_method = rf::GaussianMethod::Fir;

  for (const FilterSpec& spec : specs) {
    const rf::Image want = rf::filter_image(spec, in.as_float, rf::Backend::Cuda);
    for (MemorySpace space : {MemorySpace::Device, MemorySpace::CudaSurface}) {
      const double worst =
          rf::test::worst_8bit_steps(rf::test::run_rgba8(spec, in, space), want.pixels);
      INFO(rf::describe(spec), space == MemorySpace::Device ? " device" : " surface",
           ": worst difference in 8-bit steps ", worst);
      CHECK(worst <= 0.51);
    }
  }
}
