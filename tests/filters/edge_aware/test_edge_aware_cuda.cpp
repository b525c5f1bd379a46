// The edge-aware filter on CUDA against the CPU backend and the double reference: Algorithms A, C
// and D equal the CPU's within float rounding, the exact variant equals Algorithm A, on every
// layout the plan reads (gray, RGB, RGBA float, RGBA8), on lines one CTA holds whole and on longer
// ones; a constant image is unchanged, and the CUDA engine runs the same plan on device and host
// frames.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
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

// Lines of 1 to 4096 samples (one CTA of the exact variant's row kernel holds them whole: one
// thread's samples, part of a warp, several warps, the most a CTA takes) and longer ones.
const Size kLineSizes[] = {{1, 1},    {2, 9},     {9, 2},    {31, 33}, {257, 131},
                           {70, 300}, {1000, 37}, {4096, 3}, {3, 4100}};

// A std::string: doctest's messages print a const char* as its address.
std::string name(Algorithm a) {
  return to_string(a);
}

}  // namespace

TEST_CASE("edge-aware cuda: every algorithm equals the CPU backend on lines of every length") {
  RF_REQUIRE_CUDA();
  struct Case {
    Algorithm algo;
    double kappa;
  };
  const Case cases[] = {{Algorithm::EdgeA, 1.0}, {Algorithm::EdgeExact, 1.0},
                        {Algorithm::EdgeC, 0.0}, {Algorithm::EdgeC, 0.5},
                        {Algorithm::EdgeC, 2.0}, {Algorithm::EdgeD, 0.0},
                        {Algorithm::EdgeD, 1.0}, {Algorithm::EdgeD, 3.0}};
  for (const Case& k : cases) {
    double worst = 0.0;
    for (Size s : kLineSizes)
      for (int c : {1, 3, 4}) {
        const FilterSpec spec = edge_spec(25.0, 0.1, k.algo, k.kappa);
        const Image in = cartoon_image(s.w, s.h, c, unsigned(5 * s.w + s.h + c));
        // The exact variant against Algorithm A, the others against themselves.
        const Image want = run_cpu(
            k.algo == Algorithm::EdgeExact ? edge_spec(25.0, 0.1, Algorithm::EdgeA) : spec, in);
        const Image got = cuda::edge_aware_filter(spec, in);
        const double err = max_abs_diff(want, got) / std::max(1e-30, peak(want));
        worst = std::max(worst, err);
        CAPTURE(name(k.algo));
        CAPTURE(k.kappa);
        CAPTURE(s.w);
        CAPTURE(s.h);
        CAPTURE(c);
        CHECK(err <= (k.algo == Algorithm::EdgeExact ? 1e-6 : 2e-6));
      }
    MESSAGE(name(k.algo) << " kappa " << k.kappa
                         << " CUDA vs CPU, worst relative max error: " << worst);
  }
}

// The paper's case on a photograph-sized image: sigma 50, sigma_r 50/255, kappa 2.
TEST_CASE("edge-aware cuda: A and the exact variant against the double reference") {
  RF_REQUIRE_CUDA();
  for (int c : {1, 3}) {
    const Image in = cartoon_image(311, 257, c, unsigned(40 + c));
    const Image ref = edge_aware_reference(edge_spec(50.0, 50.0 / 255.0, Algorithm::EdgeA), in);
    for (Algorithm a : {Algorithm::EdgeA, Algorithm::EdgeExact}) {
      const Image got = cuda::edge_aware_filter(edge_spec(50.0, 50.0 / 255.0, a, 2.0), in);
      const Image cpu = run_cpu(edge_spec(50.0, 50.0 / 255.0, a, 2.0), in);
      const double err = max_abs_diff(ref, got) / peak(ref);
      const double cpu_err = max_abs_diff(ref, cpu) / peak(ref);
      CAPTURE(name(a));
      CAPTURE(c);
      CAPTURE(cpu_err);
      CHECK(err <= 1e-5);
      MESSAGE(name(a) << ", " << c << " channels: CUDA vs double reference " << err
                      << " (CPU backend " << cpu_err << ")");
    }
  }
}

// Every device layout a plan of 3 or 4 channels reads and writes: RGB, RGBA float and RGBA8 (whose
// input the CPU backend sees quantised the same way, and whose output is within one 8-bit step).
TEST_CASE("edge-aware cuda: every image layout, every algorithm") {
  RF_REQUIRE_CUDA();
  struct Layout {
    int channels;
    cuda::EdgeFormat format;
  };
  const Layout layouts[] = {{3, cuda::EdgeFormat::Rgb32F}, {3, cuda::EdgeFormat::Rgba32F},
                            {3, cuda::EdgeFormat::Rgba8},  {4, cuda::EdgeFormat::Rgba32F},
                            {4, cuda::EdgeFormat::Rgba8},  {1, cuda::EdgeFormat::Gray32F}};
  for (Algorithm a : {Algorithm::EdgeA, Algorithm::EdgeC, Algorithm::EdgeD, Algorithm::EdgeExact})
    for (const Layout& lay : layouts)
      for (Size s : {Size{129, 67}, Size{33, 257}}) {
        const bool bytes = lay.format == cuda::EdgeFormat::Rgba8;
        Image in = cartoon_image(s.w, s.h, lay.channels, unsigned(s.w + lay.channels));
        if (bytes)
          for (float& v : in.pixels)
            v = float(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)) / 255.0f;
        const FilterSpec spec = edge_spec(22.0, 0.12, a, 1.0);
        const Image want = run_cpu(spec, in);
        const Image got = cuda::edge_aware_filter(spec, in, lay.format);
        CAPTURE(name(a));
        CAPTURE(lay.channels);
        CAPTURE(int(lay.format));
        CAPTURE(s.w);
        CAPTURE(s.h);
        if (bytes) {
          double worst = 0.0;
          for (std::size_t i = 0; i < want.pixels.size(); ++i)
            worst = std::max(worst, std::abs(double(std::clamp(want.pixels[i], 0.0f, 1.0f)) -
                                             double(got.pixels[i])));
          CHECK(worst <= 1.0 / 255.0 + 1e-6);
        } else {
          CHECK(max_abs_diff(want, got) <= 2e-6 * peak(want));
        }
      }
}

// RGBA8 frames go into the plan as they are (the engine uploads a host frame to a device buffer
// of the same layout and hands that to the plan): the result equals the CPU engine's on the same
// frame within one 8-bit step (both read c / 255 and round the float result to a step).
TEST_CASE("edge-aware cuda: RGBA8 frames are filtered directly, every algorithm") {
  RF_REQUIRE_CUDA();
  const int w = 203, h = 117;
  const Image picture = cartoon_image(w, h, 4, 23);
  std::vector<std::uint8_t> bytes(std::size_t(w) * h * 4);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = std::uint8_t(std::lround(std::clamp(picture.pixels[i], 0.0f, 1.0f) * 255.0f));
  auto view = [&](std::uint8_t* data) {
    FrameView v;
    v.data = data;
    v.width = w;
    v.height = h;
    v.pitch = std::size_t(w) * 4;
    v.format = PixelFormat::RGBA8;
    v.space = MemorySpace::Host;
    return v;
  };
  for (Algorithm a : {Algorithm::EdgeA, Algorithm::EdgeC, Algorithm::EdgeD, Algorithm::EdgeExact}) {
    const FilterSpec spec = edge_spec(18.0, 0.2, a, 1.0);
    std::vector<std::uint8_t> want(bytes.size()), got(bytes.size());
    std::unique_ptr<Engine> cpu_engine = make_engine(Backend::Cpu);
    cpu_engine->plan(spec, w, h, PixelFormat::RGBA8);
    cpu_engine->run(view(bytes.data()), view(want.data()));
    std::unique_ptr<Engine> engine = make_engine(Backend::Cuda);
    engine->plan(spec, w, h, PixelFormat::RGBA8);
    engine->run(view(bytes.data()), view(got.data()));
    int worst = 0, moved = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      worst = std::max(worst, std::abs(int(got[i]) - int(want[i])));
      moved = std::max(moved, std::abs(int(got[i]) - int(bytes[i])));
    }
    CAPTURE(name(a));
    CHECK(worst <= 1);
    CHECK(moved > 8);  // the filter did something
  }
}

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

// Lines longer than 4096 samples run as clusters of CTAs, a chunk of the line each, where the
// device has clusters (sm_90): 2, 3, 4 and 8 chunks, chunks of unequal length, rows and columns,
// against the double reference.
TEST_CASE("edge-aware cuda: the exact variant on lines split over a cluster of CTAs") {
  RF_REQUIRE_CUDA();
  double worst = 0.0;
  for (Size s : {Size{4097, 3}, Size{3, 6000}, Size{8193, 2}, Size{2, 12289}, Size{32768, 2}})
    for (int c : {1, 3, 4}) {
      const Image in = cartoon_image(s.w, s.h, c, unsigned(s.w + 3 * s.h + c));
      const FilterSpec spec = edge_spec(50.0, 0.2, Algorithm::EdgeExact);
      const Image ref = edge_aware_reference(edge_spec(50.0, 0.2, Algorithm::EdgeA), in);
      const double err = max_abs_diff(ref, cuda::edge_aware_filter(spec, in)) / peak(ref);
      worst = std::max(worst, err);
      CAPTURE(s.w);
      CAPTURE(s.h);
      CAPTURE(c);
      CHECK(err <= 5e-7);
    }
  MESSAGE(
      "exact (CUDA) vs the double reference, lines over clusters, worst relative error: " << worst);
}

// Lines longer than a cluster holds (and, on devices without clusters, than one CTA holds) take
// the three-kernel path; a very short other side keeps many lines per CTA on the fused one.
TEST_CASE("edge-aware cuda: the exact variant equals Algorithm A on long and on very short lines") {
  RF_REQUIRE_CUDA();
  double worst = 0.0;
  for (Size s : {Size{4500, 3}, Size{2, 4099}, Size{4096, 5}, Size{32769, 2}, Size{3, 32800}})
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

// The kernels' limits of shared memory belong to the functions, not to a plan: a plan of short
// lines made after one of long lines must not lower the limit that the first one launches with.
TEST_CASE("edge-aware cuda: plans of long and short lines run side by side") {
  RF_REQUIRE_CUDA();
  for (Algorithm a : {Algorithm::EdgeExact, Algorithm::EdgeC}) {
    const FilterSpec spec = edge_spec(20.0, 0.2, a, 1.0);
    Image wide = cartoon_image(2048, 24, 4, 7u);
    Image narrow = cartoon_image(96, 40, 4, 8u);
    const PixelFormat format = PixelFormat::RGBA32F;
    std::unique_ptr<Engine> big = make_engine(Backend::Cuda);
    big->plan(spec, wide.width, wide.height, format);
    std::unique_ptr<Engine> small = make_engine(Backend::Cuda);
    small->plan(spec, narrow.width, narrow.height, format);
    Image first(wide.width, wide.height, 4), little(narrow.width, narrow.height, 4);
    big->run(wide.view(), first.view(), nullptr);
    small->run(narrow.view(), little.view(), nullptr);
    CAPTURE(name(a));
    CHECK(max_abs_diff(first, cuda::edge_aware_filter(spec, wide)) == 0.0);
    CHECK(max_abs_diff(little, cuda::edge_aware_filter(spec, narrow)) == 0.0);
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
