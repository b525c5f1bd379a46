// The GPU ground truth (the FIR Gaussian in double, filters/fir/fir_direct_cuda.cuh) equals the
// CPU's double reference for every extension, channel count and odd size.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "filters/core/errors.h"
#include "filters/recursive/reference.h"
#include "filters/truth/truth.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/random_data.h"

namespace {

double max_relative(const std::vector<float>& got, const std::vector<float>& want) {
  double err = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(double(got[i]) - double(want[i]));
    err = std::isnan(got[i]) ? INFINITY : std::max(err, d);
    scale = std::max(scale, std::fabs(double(want[i])));
  }
  return err / scale;
}

}  // namespace

TEST_CASE("cuda ground truth equals the double reference for every extension") {
  RF_REQUIRE_CUDA();
  const int sizes[][2] = {{1, 1}, {2, 3}, {31, 33}, {77, 53}};
  for (const auto& size : sizes)
    for (int c : {1, 4})
      for (rf::Extension ext : rf::kAllExtensions)
        for (double sigma : {0.4, 3.0}) {
          const rf::Image in =
              rf::test::random_image(size[0], size[1], c, unsigned(c * 10 + int(ext)), 0.05f, 1.0f);
          rf::FilterSpec spec;
          spec.sigma = sigma;
          spec.order = 1;  // the design that takes sigma below 0.5; the truth is the FIR either way
          spec.ext = ext;
          if (ext == rf::Extension::Constant) spec.cval = 0.3;
          // The CPU's double reference: Auto would take the GPU here as well.
          const rf::Image want = rf::ground_truth(spec, in, rf::Backend::Cpu);
          const rf::Image got = rf::ground_truth(spec, in, rf::Backend::Cuda);
          const double err = max_relative(got.pixels, want.pixels);
          INFO(size[0], "x", size[1], " ", rf::to_string(ext), " channels ", c, " sigma ", sigma,
               ": ", err);
          CHECK(err <= 1e-12);
        }
}

TEST_CASE("cuda ground truth: every Gaussian kind, and Auto takes the GPU") {
  RF_REQUIRE_CUDA();
  const rf::Image in = rf::test::random_image(64, 40, 4, 77u, 0.05f, 1.0f);
  for (rf::FilterKind kind :
       {rf::FilterKind::Gaussian, rf::FilterKind::Deriche, rf::FilterKind::Yvrg}) {
    rf::FilterSpec spec;
    spec.kind = kind;
    spec.order = kind == rf::FilterKind::Deriche ? 2 : 3;
    spec.sigma = 5.0;
    spec.ext = rf::Extension::Clamp;
    const rf::Image want = rf::ground_truth(spec, in, rf::Backend::Cpu);
    CAPTURE(rf::to_string(kind));
    CHECK(max_relative(rf::ground_truth(spec, in, rf::Backend::Cuda).pixels, want.pixels) <= 1e-12);
    CHECK(max_relative(rf::ground_truth(spec, in, rf::Backend::Auto).pixels, want.pixels) <= 1e-12);
  }
}
