// Gaussian derivatives on the CUDA backend: every algorithm against the double reference
// (derivatives.h).
#include "tests/filters/core/cuda_test.h"
#include "tests/filters/recursive/derivatives.h"

#include <algorithm>
#include <cmath>

TEST_CASE("cuda: every derivative, measure, extension and algorithm is exact") {
  RF_REQUIRE_CUDA();
  const auto engine = rf::make_cuda_engine();
  const rf::test::DerivativeOutcome o = rf::test::check_derivatives(*engine, rf::Backend::Cuda);
  CHECK(o.failed == 0);
  CHECK(o.passed > 0);
}

// The derivative's kernels (padding, differences, measures) on a frame small enough for
// compute-sanitizer: each extension, both measures of two terms, against the CPU engine.
TEST_CASE("cuda derivative frames: gradient and Laplacian under every extension, 8-bit refused") {
  RF_REQUIRE_CUDA();
  const auto gpu = rf::make_cuda_engine();
  const auto cpu = rf::make_cpu_engine();
  for (rf::Extension ext : rf::kAllExtensions) {
    if (ext == rf::Extension::Ignore) continue;
    for (auto measure :
         {rf::Derivative::Measure::GradientMagnitude, rf::Derivative::Measure::Laplacian}) {
      rf::FilterSpec spec;
      spec.sigma = 2.5;
      spec.ext = ext;
      spec.cval = 0.3;
      spec.derivative.measure = measure;
      spec.algo = rf::Algorithm::Alg5;
      const rf::Image in = rf::test::random_image(29, 17, 4, 7, 0.05f, 1.0f);
      const rf::Image want = rf::filter_image(*cpu, spec, in);
      const rf::Image got = rf::filter_image(*gpu, spec, in);
      double err = 0.0;
      for (std::size_t i = 0; i < want.pixels.size(); ++i)
        err = std::max(err, double(std::abs(got.pixels[i] - want.pixels[i])));
      CAPTURE(rf::describe(spec));
      CHECK(err < 1e-5);
    }
  }
  // An 8-bit frame cannot hold a signed derivative: refused in one line.
  rf::FilterSpec spec;
  spec.derivative.x = 1;
  CHECK_THROWS_AS(gpu->plan(spec, 8, 8, rf::PixelFormat::RGBA8), rf::InvalidParameter);
}
