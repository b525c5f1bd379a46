// Gaussian derivatives on the CUDA backend: every algorithm against the double reference
// (derivatives.h).
#include "tests/filters/core/cuda_test.h"
#include "tests/filters/recursive/derivatives.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "filters/core/derivative.h"

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

// Algorithms 5 and 6 take a partial's difference in their output stage (fully_overlapped.h,
// OutputDifference): the samples one past each block from its carries, along y the rows' carries
// differenced. Frames of several blocks each way, full and partial, against the double reference,
// with the allowance of derivatives.h; the stages show that the difference took no pass of its own
// under every extension (along y under clamp, zero and constant, on rows of the extension above and
// below the image, read from it).
TEST_CASE("cuda: derivatives in alg5's and alg6's output stage, across blocks, exact") {
  RF_REQUIRE_CUDA();
  const auto engine = rf::make_cuda_engine();
  engine->set_timing(true);
  struct Shape {
    int w, h, c;
  };
  // With the two rows of padding (clamp, zero, constant along y) 31 rows are a block and one row,
  // 30 one block exactly.
  const Shape shapes[] = {{97, 70, 1}, {64, 33, 4}, {33, 96, 1},
                          {70, 41, 4}, {45, 31, 1}, {40, 30, 4}};
  std::vector<rf::Derivative> derivatives;
  for (int x = 0; x <= 2; ++x)
    for (int y = 0; y <= 2; ++y) {
      if (x + y == 0) continue;
      rf::Derivative d;
      d.x = x;
      d.y = y;
      d.normalized = x == 1 && y == 1;
      derivatives.push_back(d);
    }
  rf::Derivative gradient;
  gradient.measure = rf::Derivative::Measure::GradientMagnitude;
  derivatives.push_back(gradient);
  rf::Derivative laplacian;
  laplacian.measure = rf::Derivative::Measure::Laplacian;
  derivatives.push_back(laplacian);
  struct Base {
    int order;
    double sx, sy;
  };
  int cases = 0, fused = 0;
  double worst = 0.0;
  std::uint64_t seed = 900;
  for (const Base& b : {Base{1, 2.0, 2.0}, Base{3, 5.0, 1.7}, Base{5, 40.0, 9.0}})
    for (rf::Extension ext : rf::kAllExtensions) {
      if (ext == rf::Extension::Ignore) continue;
      for (const rf::Derivative& d : derivatives) {
        const Shape& shape = shapes[seed % 6];
        rf::FilterSpec spec;
        spec.order = b.order;
        spec.sigma = b.sx;
        spec.sigma_y = b.sy;
        spec.ext = ext;
        spec.cval = ext == rf::Extension::Constant ? 0.4 : 0.0;
        spec.derivative = d;
        const rf::Image in = rf::test::random_image(shape.w, shape.h, shape.c, seed++, 0.05f, 1.0f);
        spec.algo = rf::Algorithm::Auto;
        const std::vector<double> want = rf::ref::padded_reference(spec, in);
        double peak = 0.0;
        for (double v : want) peak = std::max(peak, std::abs(v));
        double scale = 1.0;  // the input's scale: samples in [0.05, 1]
        if (d.normalized) scale *= b.sx * b.sy;
        if (d.x == 2 || d.y == 2 || d.measure == rf::Derivative::Measure::Laplacian) scale *= 4.0;
        if (d.x == 2 && d.y == 2) scale *= 4.0;
        if (b.order > 3) scale *= 10.0;
        const bool partial = d.measure == rf::Derivative::Measure::Partial;
        for (rf::Algorithm algo : {rf::Algorithm::Alg5, rf::Algorithm::Alg6}) {
          spec.algo = algo;
          const rf::Image out = rf::filter_image(*engine, spec, in);
          const double err = rf::test::derivative_error(out, want);
          const double allowed = 1e-5 * peak + 1e-6 * scale;
          worst = std::max(worst, err / allowed);
          bool output_stage = false;
          for (const rf::StageTime& t : engine->timings()) output_stage |= t.stage == "output";
          CAPTURE(rf::describe(spec));
          CAPTURE(shape.w);
          CAPTURE(shape.h);
          CAPTURE(shape.c);
          CAPTURE(err);
          CAPTURE(peak);
          CHECK(err <= allowed);
          CHECK(output_stage == partial);
          ++cases;
          fused += output_stage ? 1 : 0;
        }
      }
    }
  MESSAGE(cases << " cases (" << fused << " in the output stage), worst error over the allowed "
                << worst);
}
