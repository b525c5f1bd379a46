// The edge-aware filter on CUDA against the CPU backend: Algorithms A, C and D equal the CPU's
// within float rounding, the exact variant equals Algorithm A, a constant image is unchanged, and
// the CUDA engine runs the same plan on device and host frames.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/edge_aware/edge_aware.h"
#include "filters/edge_aware/edge_aware_cuda.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/filters/edge_aware/edge_aware_test_util.h"

using namespace rf;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using rf::test::cartoon_image;
using rf::test::max_abs_diff;
using rf::test::run_cpu;

// Two iterations, as the CUDA tests run them.
FilterSpec edge_spec(double sigma, double sigma_r, Algorithm algo, double kappa = 1.0) {
  return rf::test::edge_spec(sigma, sigma_r, 2, algo, kappa);
}

double peak(const Image& a) {
  double m = 0.0;
  for (float v : a.pixels) m = std::max(m, double(std::abs(v)));
  return m;
}

struct Size {
  int w, h;
};
const Size kSizes[] = {{1, 1}, {31, 33}, {257, 131}, {70, 300}};

}  // namespace

TEST_CASE("edge-aware cuda: the exact variant equals the CPU's Algorithm A") {
  RF_REQUIRE_CUDA();
  double worst = 0.0;
  for (Size s : kSizes)
    for (int c : {1, 3, 4})
      for (double sigma_r : {0.05, 0.3, kInf}) {
        const Image in = cartoon_image(s.w, s.h, c, unsigned(s.w + 17 * s.h + c));
        const Image a = run_cpu(edge_spec(20.0, sigma_r, Algorithm::EdgeA), in);
        const Image x = cuda::edge_aware_filter(edge_spec(20.0, sigma_r, Algorithm::EdgeExact), in);
        const double err = max_abs_diff(a, x) / std::max(1e-30, peak(a));
        worst = std::max(worst, err);
        CAPTURE(s.w);
        CAPTURE(s.h);
        CAPTURE(c);
        CAPTURE(sigma_r);
        CHECK(err <= 1e-4);
      }
  MESSAGE("exact (CUDA) vs A (CPU), worst relative max error: " << worst);
}

TEST_CASE("edge-aware cuda: the exact variant equals Algorithm A on the device, wide sigma") {
  RF_REQUIRE_CUDA();
  double worst = 0.0;
  for (int c : {1, 4}) {
    const Image in = cartoon_image(257, 131, c, unsigned(5 + c));
    const Image a = cuda::edge_aware_filter(edge_spec(40.0, 0.2, Algorithm::EdgeA), in);
    const Image x = cuda::edge_aware_filter(edge_spec(40.0, 0.2, Algorithm::EdgeExact), in);
    const double err = max_abs_diff(a, x) / peak(a);
    worst = std::max(worst, err);
    CAPTURE(c);
    CHECK(err <= 1e-4);
  }
  MESSAGE("exact vs A (both CUDA), sigma 40, worst relative max error: " << worst);
}

// Lines longer than one CTA of the fused exact kernel holds take the three-kernel path; a very
// short other side keeps many lines per CTA on the fused one.
TEST_CASE("edge-aware cuda: the exact variant equals Algorithm A on long and on very short lines") {
  RF_REQUIRE_CUDA();
  double worst = 0.0;
  for (Size s : {Size{4500, 3}, Size{2, 4099}, Size{4096, 5}})
    for (int c : {1, 4}) {
      const Image in = cartoon_image(s.w, s.h, c, unsigned(s.w + s.h + c));
      const Image a = cuda::edge_aware_filter(edge_spec(30.0, 0.1, Algorithm::EdgeA), in);
      const Image x = cuda::edge_aware_filter(edge_spec(30.0, 0.1, Algorithm::EdgeExact), in);
      const double err = max_abs_diff(a, x) / peak(a);
      worst = std::max(worst, err);
      CAPTURE(s.w);
      CAPTURE(s.h);
      CAPTURE(c);
      CHECK(err <= 1e-4);
    }
  MESSAGE("exact vs A (both CUDA), long lines, worst relative max error: " << worst);
}

// Both backends round in float, in different orders (fused multiply-adds and elementary functions
// on the GPU, polynomial exp and sincos on the CPU); each is within 2e-4 of the double reference
// (tests/filters/edge_aware/test_edge_aware.cpp), so they agree within 2e-4 of the image's peak.
// The spacings of eq. (2) are identical bit for bit, so C and D start their warm-ups at the same
// samples.
TEST_CASE("edge-aware cuda: A, C and D equal the CPU backend's") {
  RF_REQUIRE_CUDA();
  for (Algorithm algo : {Algorithm::EdgeA, Algorithm::EdgeC, Algorithm::EdgeD}) {
    double worst = 0.0;
    for (Size s : kSizes)
      for (int c : {1, 3, 4})
        for (double kappa : {0.0, 1.0, 3.0}) {
          const FilterSpec spec = edge_spec(15.0, 0.1, algo, kappa);
          const Image in = cartoon_image(s.w, s.h, c, unsigned(3 * s.w + s.h + c));
          const Image want = run_cpu(spec, in);
          const Image got = cuda::edge_aware_filter(spec, in);
          const double err = max_abs_diff(want, got) / std::max(1e-30, peak(want));
          worst = std::max(worst, err);
          CAPTURE(to_string(algo));
          CAPTURE(s.w);
          CAPTURE(s.h);
          CAPTURE(c);
          CAPTURE(kappa);
          CHECK(err <= 2e-4);
        }
    MESSAGE(std::string(to_string(algo)) << " CUDA vs CPU, worst relative max error: " << worst);
  }
}

// RGB filters only its three colours on the device (stored as RGBA): they must equal the colours of
// the same image with an alpha channel of its own, which is filtered but never enters eq. (2).
TEST_CASE("edge-aware cuda: RGB equals the colours of RGBA, every algorithm") {
  RF_REQUIRE_CUDA();
  for (Algorithm algo :
       {Algorithm::EdgeA, Algorithm::EdgeC, Algorithm::EdgeD, Algorithm::EdgeExact})
    for (Size s : {Size{257, 131}, Size{33, 4500}}) {
      const Image rgba = cartoon_image(s.w, s.h, 4, unsigned(7 * s.w + s.h));
      Image rgb(s.w, s.h, 3);
      for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x)
          for (int k = 0; k < 3; ++k) rgb.at(x, y, k) = rgba.at(x, y, k);
      const FilterSpec spec = edge_spec(25.0, 0.15, algo, 2.0);
      const Image want = cuda::edge_aware_filter(spec, rgba);
      const Image got = cuda::edge_aware_filter(spec, rgb);
      double err = 0.0, top = 0.0;
      for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x)
          for (int k = 0; k < 3; ++k) {
            err = std::max(err, std::abs(double(got.at(x, y, k)) - double(want.at(x, y, k))));
            top = std::max(top, std::abs(double(want.at(x, y, k))));
          }
      CAPTURE(to_string(algo));
      CAPTURE(s.w);
      CAPTURE(s.h);
      CHECK(err <= 1e-6 * top);
    }
}

TEST_CASE("edge-aware cuda: a constant image is unchanged") {
  RF_REQUIRE_CUDA();
  for (Algorithm algo :
       {Algorithm::EdgeA, Algorithm::EdgeC, Algorithm::EdgeD, Algorithm::EdgeExact})
    for (int c : {1, 3, 4})
      for (Size s : kSizes) {
        Image in(s.w, s.h, c);
        for (int k = 0; k < c; ++k)
          for (int y = 0; y < s.h; ++y)
            for (int x = 0; x < s.w; ++x) in.at(x, y, k) = 0.25f + 0.2f * float(k);
        const Image out = cuda::edge_aware_filter(edge_spec(20.0, 0.2, algo, 0.0), in);
        CAPTURE(to_string(algo));
        CAPTURE(c);
        CAPTURE(s.w);
        CAPTURE(s.h);
        CHECK(max_abs_diff(out, in) < 2e-5);
      }
}

TEST_CASE("edge-aware cuda: the engine runs the plan on device and host frames, in place too") {
  RF_REQUIRE_CUDA();
  const FilterSpec spec = edge_spec(12.0, 0.15, Algorithm::EdgeExact);
  for (int c : {1, 4}) {
    Image in = cartoon_image(257, 131, c, unsigned(11 + c));
    const Image want = cuda::edge_aware_filter(spec, in);
    std::unique_ptr<Engine> engine = make_engine(Backend::Cuda);
    const PixelFormat format = c == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F;
    engine->plan(spec, in.width, in.height, format);
    Image out(in.width, in.height, c);
    engine->run(in.view(), out.view(), nullptr);
    CAPTURE(c);
    CHECK(max_abs_diff(out, want) == 0.0);
    Image same = in;
    engine->run(same.view(), same.view(), nullptr);
    CHECK(max_abs_diff(same, want) == 0.0);
    engine->set_timing(true);
    engine->run(in.view(), out.view(), nullptr);
    CHECK(max_abs_diff(out, want) == 0.0);
    CHECK(!engine->timings().empty());
  }
}

TEST_CASE("edge-aware cuda: bad parameters are refused") {
  RF_REQUIRE_CUDA();
  const Image in = cartoon_image(16, 16, 3, 1);
  CHECK_THROWS_AS(cuda::edge_aware_filter(edge_spec(-1.0, 0.2, Algorithm::EdgeA), in),
                  InvalidParameter);
  CHECK_THROWS_AS(cuda::edge_aware_filter(edge_spec(5.0, 0.2, Algorithm::Alg4), in),
                  InvalidParameter);
  CHECK_THROWS_AS(cuda::edge_aware_filter(edge_spec(5.0, 0.2, Algorithm::EdgeA), Image(4, 4, 2)),
                  InvalidParameter);
}
