// The CPU backend (cpu::ImagePlan and the CPU Engine) against double-precision references.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/edge_aware/edge_aware.h"
#include "filters/recursive/reference.h"
#include "filters/recursive/rt_cpu.h"
#include "tests/random_data.h"

using namespace rf;

namespace {

// A random stable filter of order r: real poles or conjugate pairs of radius 0.3..0.85, b0 chosen
// for unit gain at DC so that values stay on the scale of the input.
Recursive random_filter(int r, std::mt19937& rng) {
  std::uniform_real_distribution<double> radius(0.3, 0.85), angle(0.2, 2.9), sign(-1.0, 1.0);
  std::vector<std::complex<double>> poles;
  while (int(poles.size()) < r) {
    if (r - int(poles.size()) >= 2 && sign(rng) > 0) {
      const auto p = std::polar(radius(rng), angle(rng));
      poles.push_back(p);
      poles.push_back(std::conj(p));
    } else {
      poles.push_back(radius(rng) * (sign(rng) > -0.3 ? 1.0 : -1.0));
    }
  }
  // prod_k (1 - p_k z^-1) = 1 + a_1 z^-1 + ... + a_r z^-r
  std::vector<std::complex<double>> poly{1.0};
  for (const auto& p : poles) {
    std::vector<std::complex<double>> next(poly.size() + 1, 0.0);
    for (std::size_t i = 0; i < poly.size(); ++i) {
      next[i] += poly[i];
      next[i + 1] -= p * poly[i];
    }
    poly = next;
  }
  Recursive f;
  double dc = 1.0;
  for (int k = 1; k <= r; ++k) {
    f.a.push_back(poly[k].real());
    dc += poly[k].real();
  }
  f.b0 = dc;
  return f;
}

// Zero initial feedback, written out here so that Ignore does not depend on the references.
std::vector<double> filter_line_ignore(const Recursive& f, const std::vector<double>& x) {
  const int n = int(x.size()), r = f.order();
  std::vector<double> y(n), z(n);
  for (int i = 0; i < n; ++i) {
    double v = f.b0 * x[i];
    for (int k = 1; k <= r && i - k >= 0; ++k) v -= f.a[k - 1] * y[i - k];
    y[i] = v;
  }
  if (f.causal_only) return y;
  for (int i = n - 1; i >= 0; --i) {
    double v = f.b0 * y[i];
    for (int k = 1; k <= r && i + k < n; ++k) v -= f.a[k - 1] * z[i + k];
    z[i] = v;
  }
  return z;
}

std::vector<double> reference_line(const Recursive& f, Extension ext,
                                   const std::vector<double>& x) {
  return ext == Extension::Ignore ? filter_line_ignore(f, x) : ref::filter_line_padded(f, ext, x);
}

// Columns (down, up) then rows (right, left), each channel independently, in double.
std::vector<double> reference_2d(const Recursive& f, Extension ext, const std::vector<float>& img,
                                 int w, int h, int c) {
  std::vector<double> out(img.begin(), img.end());
  std::vector<double> line;
  for (int x = 0; x < w; ++x)
    for (int ch = 0; ch < c; ++ch) {
      line.resize(h);
      for (int y = 0; y < h; ++y) line[y] = out[(std::size_t(y) * w + x) * c + ch];
      line = reference_line(f, ext, line);
      for (int y = 0; y < h; ++y) out[(std::size_t(y) * w + x) * c + ch] = line[y];
    }
  for (int y = 0; y < h; ++y)
    for (int ch = 0; ch < c; ++ch) {
      line.resize(w);
      for (int x = 0; x < w; ++x) line[x] = out[(std::size_t(y) * w + x) * c + ch];
      line = reference_line(f, ext, line);
      for (int x = 0; x < w; ++x) out[(std::size_t(y) * w + x) * c + ch] = line[x];
    }
  return out;
}

// max |a - b| / max |b|
double max_relative_error(const std::vector<float>& a, const std::vector<double>& b) {
  double err = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    err = std::max(err, std::abs(double(a[i]) - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return err / std::max(scale, 1e-300);
}

// Float storage of the image bounds the error near 1e-7 for every order: measured at most 1.2e-7
// (order 5, sigma 200; order 4, sigma 1000) with the autocorrelation form of the boundary maps.
// The CPU line filter runs its recursions in double and rounds to float between the passes and at
// the output, so one bound holds for every order and sigma of these tests: a few float ulps.
constexpr double kTolerance = 1e-6;

struct Size {
  int w, h;
};

}  // namespace

TEST_CASE("cpu backend: a first-order filter on a 1x3 image, computed by hand") {
  // b0 = 0.5, a1 = -0.5, zero initial feedback. Column x = (1, 2, 3):
  //   causal     y = (0.5, 1.25, 2.125)
  //   anticausal z = (0.828125, 1.15625, 1.0625)
  // and each one-sample row is scaled by 0.5 * 0.5.
  Recursive f;
  f.b0 = 0.5;
  f.a = {-0.5};
  std::vector<float> img = {1.0f, 2.0f, 3.0f};
  cpu::ImagePlan(f, Extension::Ignore, 1, 3, 1).run(img.data());
  CHECK(img[0] == doctest::Approx(0.20703125).epsilon(1e-7));
  CHECK(img[1] == doctest::Approx(0.2890625).epsilon(1e-7));
  CHECK(img[2] == doctest::Approx(0.265625).epsilon(1e-7));
}

TEST_CASE("cpu backend: every order, extension, odd size and channel count vs double reference") {
  std::mt19937 rng(20260521);
  const Size sizes[] = {{1, 1}, {2, 3}, {31, 33}, {257, 131}};
  for (int order = 1; order <= 5; ++order) {
    const Recursive f = random_filter(order, rng);
    for (Extension ext : kAllExtensions)
      for (const Size& s : sizes)
        for (int channels : {1, 4}) {
          CAPTURE(order);
          const std::string ext_name = to_string(ext);
          CAPTURE(ext_name);
          CAPTURE(s.w);
          CAPTURE(s.h);
          CAPTURE(channels);
          std::vector<float> img =
              test::random_image(s.w, s.h, channels, rng(), 0.05f, 1.0f).pixels;
          const std::vector<double> want = reference_2d(f, ext, img, s.w, s.h, channels);
          cpu::ImagePlan(f, ext, s.w, s.h, channels).run(img.data());
          CHECK(max_relative_error(img, want) <= kTolerance);
        }
  }
}

TEST_CASE("cpu engine: the shipped Gaussian designs, every order and extension, vs reference") {
  std::mt19937 rng(4242);
  const Size sizes[] = {{31, 33}, {257, 131}};
  for (int order = 1; order <= 5; ++order)
    for (double sigma : {1.5, 9.0})
      for (Extension ext : kAllExtensions)
        for (const Size& s : sizes)
          for (int channels : {1, 4}) {
            FilterSpec spec;
            spec.kind = FilterKind::Gaussian;
            spec.order = order;
            spec.sigma = sigma;
            spec.ext = ext;
            const std::string ext_name = to_string(ext);
            CAPTURE(order);
            CAPTURE(sigma);
            CAPTURE(ext_name);
            CAPTURE(s.w);
            CAPTURE(channels);
            Image img(s.w, s.h, channels);
            img.pixels = test::random_image(s.w, s.h, channels, rng(), 0.05f, 1.0f).pixels;
            const std::vector<double> want =
                reference_2d(design(spec), ext, img.pixels, s.w, s.h, channels);
            auto engine = make_cpu_engine();
            engine->plan(spec, s.w, s.h, channels == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F);
            FrameView v = img.view();
            engine->run(v, v);
            CHECK(max_relative_error(img.pixels, want) <= kTolerance);
          }
}

// The direct forms of wide Gaussians have poles within 1e-2 of z = 1: in float arithmetic order 3
// at sigma 100 is off by 2 % and order 5 at sigma 20 diverges. The backend's double recursions
// must hold the same tolerance as everywhere else.
TEST_CASE("cpu backend: wide Gaussians keep their accuracy") {
  std::mt19937 rng(200);
  struct Wide {
    int order;
    double sigma;
  };
  for (const Wide& g : {Wide{3, 50.0}, Wide{3, 200.0}, Wide{4, 20.0}, Wide{5, 20.0}})
    for (Extension ext : kAllExtensions) {
      FilterSpec spec;
      spec.order = g.order;
      spec.sigma = g.sigma;
      spec.ext = ext;
      const std::string ext_name = to_string(ext);
      CAPTURE(g.order);
      CAPTURE(g.sigma);
      CAPTURE(ext_name);
      const int w = 97, h = 301;
      std::vector<float> img = test::random_image(w, h, 1, rng(), 0.05f, 1.0f).pixels;
      const Recursive f = design(spec);
      const std::vector<double> want = reference_2d(f, ext, img, w, h, 1);
      cpu::ImagePlan(f, ext, w, h, 1).run(img.data());
      CHECK(max_relative_error(img, want) <= kTolerance);
    }
}

TEST_CASE("cpu backend: a plan runs repeatedly with the same result") {
  std::mt19937 rng(7);
  const Recursive f = random_filter(3, rng);
  const std::vector<float> src = test::random_image(45, 29, 4, rng(), 0.05f, 1.0f).pixels;
  const cpu::ImagePlan plan(f, Extension::Mirror, 45, 29, 4);
  std::vector<float> a = src, b = src;
  plan.run(a.data());
  plan.run_columns(b.data());
  plan.run_rows(b.data());
  CHECK(a == b);
  b = src;
  plan.run(b.data());
  CHECK(a == b);
}

TEST_CASE("cpu backend: summed-area table is causal only") {
  std::mt19937 rng(11);
  Recursive sat;
  sat.b0 = 1.0;
  sat.a = {-1.0};
  sat.causal_only = true;
  const int w = 37, h = 23;
  for (Extension ext : {Extension::Ignore, Extension::Zero}) {
    const std::string ext_name = to_string(ext);
    CAPTURE(ext_name);
    std::vector<float> img = test::random_image(w, h, 1, rng(), 0.05f, 1.0f).pixels;
    std::vector<double> want(img.size());
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        double v = img[y * w + x];
        if (x > 0) v += want[y * w + x - 1];
        if (y > 0) v += want[(y - 1) * w + x];
        if (x > 0 && y > 0) v -= want[(y - 1) * w + x - 1];
        want[y * w + x] = v;
      }
    cpu::ImagePlan(sat, ext, w, h, 1).run(img.data());
    CHECK(max_relative_error(img, want) <= 1e-6);
  }
  // Over a clamp, repeat or mirror extension the sums diverge.
  for (Extension ext : {Extension::Clamp, Extension::Repeat, Extension::Mirror})
    CHECK_THROWS_AS(cpu::ImagePlan(sat, ext, w, h, 1), InvalidParameter);
}

TEST_CASE("cpu backend: invalid plans are refused") {
  Recursive none;
  CHECK_THROWS_AS(cpu::ImagePlan(none, Extension::Mirror, 4, 4, 1), InvalidParameter);
  Recursive f;
  f.a = {-0.5};
  CHECK_THROWS_AS(cpu::ImagePlan(f, Extension::Mirror, 0, 4, 1), InvalidParameter);
}

TEST_CASE("cpu engine: Gaussian order 3 on 1920x1080 RGBA, mirror, vs double reference") {
  std::mt19937 rng(1080);
  FilterSpec spec;
  spec.kind = FilterKind::Gaussian;
  spec.order = 3;
  spec.sigma = 6.5;
  spec.ext = Extension::Mirror;
  const int w = 1920, h = 1080;
  Image img(w, h, 4);
  img.pixels = test::random_image(w, h, 4, rng(), 0.05f, 1.0f).pixels;
  const std::vector<double> want = reference_2d(design(spec), spec.ext, img.pixels, w, h, 4);
  auto engine = make_cpu_engine();
  engine->plan(spec, w, h, PixelFormat::RGBA32F);
  engine->set_timing(true);
  FrameView v = img.view();
  engine->run(v, v);
  CHECK(max_relative_error(img.pixels, want) <= 1e-5);
  const auto t = engine->timings();
  REQUIRE(t.size() == 4);
  CHECK(t[1].stage == "columns");
  CHECK(t[2].stage == "rows");
}

TEST_CASE("cpu engine: algorithm overlapped runs the block-parallel plan on every channel") {
  std::mt19937 rng(32);
  for (Extension ext : kAllExtensions)
    for (int channels : {1, 4}) {
      FilterSpec spec;
      spec.order = 3;
      spec.sigma = 3.0;
      spec.ext = ext;
      spec.algo = Algorithm::Alg5;
      const std::string ext_name = to_string(ext);
      CAPTURE(ext_name);
      CAPTURE(channels);
      const int w = 75, h = 41;  // partial 32x32 blocks on both sides
      Image img(w, h, channels);
      img.pixels = test::random_image(w, h, channels, rng(), 0.05f, 1.0f).pixels;
      const std::vector<double> want = reference_2d(design(spec), ext, img.pixels, w, h, channels);
      auto engine = make_cpu_engine();
      engine->plan(spec, w, h, channels == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F);
      engine->set_timing(true);
      FrameView v = img.view();
      engine->run(v, v);
      CHECK(max_relative_error(img.pixels, want) <= 1e-5);
      CHECK(engine->timings()[1].stage == "alg5");
    }
}

TEST_CASE("cpu engine: R32F with pitched rows, separate and aliased buffers") {
  std::mt19937 rng(3);
  FilterSpec spec;
  spec.kind = FilterKind::Exponential;
  spec.pole = 0.6;
  spec.ext = Extension::Clamp;
  const int w = 33, h = 19, pitch_floats = 40;
  const std::vector<float> packed = test::random_image(w, h, 1, rng(), 0.05f, 1.0f).pixels;
  std::vector<float> want = packed;
  cpu::ImagePlan(design(spec), spec.ext, w, h, 1).run(want.data());

  std::vector<float> in(std::size_t(pitch_floats) * h, -7.0f), out(in.size(), -9.0f);
  for (int y = 0; y < h; ++y) std::copy_n(&packed[y * w], w, &in[std::size_t(y) * pitch_floats]);
  FrameView vin{in.data(),        0, w, h, pitch_floats * sizeof(float), PixelFormat::R32F,
                MemorySpace::Host};
  FrameView vout = vin;
  vout.data = out.data();
  auto engine = make_cpu_engine();
  engine->plan(spec, w, h, PixelFormat::R32F);
  engine->run(vin, vout);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) CHECK(out[y * pitch_floats + x] == want[y * w + x]);
    CHECK(out[y * pitch_floats + w] == -9.0f);             // padding untouched
    CHECK(in[y * pitch_floats + 3] == packed[y * w + 3]);  // input untouched
  }
  engine->run(vin, vin);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) CHECK(in[y * pitch_floats + x] == want[y * w + x]);
}

TEST_CASE("cpu engine: RGBA8 is filtered on [0, 1] and rounded back") {
  std::mt19937 rng(8);
  std::uniform_int_distribution<int> byte(0, 255);
  FilterSpec spec;
  spec.kind = FilterKind::BSpline3;  // a prefilter overshoots, so clamping is exercised
  spec.ext = Extension::Repeat;
  const int w = 29, h = 17;
  std::vector<std::uint8_t> px(std::size_t(w) * h * 4);
  for (auto& b : px) b = std::uint8_t(byte(rng));
  std::vector<float> f(px.size());
  for (std::size_t i = 0; i < px.size(); ++i) f[i] = px[i] / 255.0f;
  const std::vector<double> want = reference_2d(design(spec), spec.ext, f, w, h, 4);

  FrameView v{px.data(), 0, w, h, std::size_t(w) * 4, PixelFormat::RGBA8, MemorySpace::Host};
  auto engine = make_cpu_engine();
  engine->plan(spec, w, h, PixelFormat::RGBA8);
  engine->run(v, v);
  int clamped = 0;
  for (std::size_t i = 0; i < px.size(); ++i) {
    const double expect = std::clamp(std::round(want[i] * 255.0), 0.0, 255.0);
    clamped += want[i] < 0.0 || want[i] > 1.0;
    CHECK(std::abs(px[i] - expect) <= 1.0);
  }
  CHECK(clamped > 0);
}

TEST_CASE("cpu engine: frames that do not match the plan are refused") {
  auto engine = make_cpu_engine();
  Image img(8, 8, 4);
  FrameView v = img.view();
  CHECK_THROWS(engine->run(v, v));
  FilterSpec spec;
  engine->plan(spec, 8, 8, PixelFormat::R32F);
  CHECK_THROWS_AS(engine->run(v, v), InvalidParameter);
  FrameView dev = v;
  dev.space = MemorySpace::Device;
  engine->plan(spec, 8, 8, PixelFormat::RGBA32F);
  CHECK_THROWS_AS(engine->run(dev, dev), InvalidParameter);
  spec.sigma = -1.0;
  CHECK_THROWS_AS(engine->plan(spec, 8, 8, PixelFormat::RGBA32F), InvalidParameter);
}

TEST_CASE("cpu engine: edge-aware specs go to cpu::EdgeAwarePlan") {
  std::mt19937 rng(5);
  FilterSpec spec;
  spec.kind = FilterKind::EdgeAware;
  spec.sigma = 5.0;
  spec.sigma_r = 0.3;
  spec.iterations = 2;
  const int w = 41, h = 27;
  Image img(w, h, 4);
  img.pixels = test::random_image(w, h, 4, rng(), 0.05f, 1.0f).pixels;
  Image want(w, h, 4);
  cpu::EdgeAwarePlan(spec, w, h, 4).run(img.pixels.data(), want.pixels.data());
  auto engine = make_cpu_engine();
  engine->plan(spec, w, h, PixelFormat::RGBA32F);
  FrameView v = img.view();
  engine->run(v, v);
  CHECK(img.pixels == want.pixels);
}

// What the CPU engine runs (Engine::algorithm), as the timing panel, rfcli's summary line and the
// bench rows show it.
TEST_CASE("cpu engine: the algorithm auto runs, named") {
  auto engine = make_cpu_engine();
  CHECK(engine->algorithm().empty());
  CHECK(method_line(*engine).empty());
  FilterSpec spec;
  spec.sigma = 4.0;
  for (auto [algo, ran] : {std::pair{Algorithm::Auto, "rt"},
                           {Algorithm::RT, "rt"},
                           {Algorithm::Alg5, "alg5"},
                           {Algorithm::Alg6, "alg6"}}) {
    spec.algo = algo;
    engine->plan(spec, 37, 29, PixelFormat::R32F);
    CHECK(engine->algorithm() == ran);
    CHECK(method_line(*engine) == std::string("recursive order 3 by ") + ran);
  }
  spec.algo = Algorithm::Auto;
  spec.derivative = *parse_derivative("gradient");
  engine->plan(spec, 37, 29, PixelFormat::R32F);
  CHECK(engine->algorithm() == "rt");
  spec.derivative = Derivative{};
  spec.sigma = 0.3;  // below the order-3 design's least sigma
  spec.gaussian_method = GaussianMethod::Auto;
  engine->plan(spec, 37, 29, PixelFormat::R32F);
  CHECK(engine->algorithm() == "fir");
  CHECK(method_line(*engine) == "FIR radius 1");
  FilterSpec edge;
  edge.kind = FilterKind::EdgeAware;
  edge.sigma = 5.0;
  edge.sigma_r = 0.3;
  engine->plan(edge, 37, 29, PixelFormat::RGBA32F);
  CHECK(engine->algorithm() == "exact");
  edge.algo = Algorithm::EdgeC;
  engine->plan(edge, 37, 29, PixelFormat::RGBA32F);
  CHECK(engine->algorithm() == "c");
  FilterSpec lee;
  lee.kind = FilterKind::Yvrg;
  lee.algo = Algorithm::TwoWay;
  engine->plan(lee, 37, 29, PixelFormat::R32F);
  CHECK(engine->algorithm() == "two-way");
}

TEST_CASE("engine selection: auto falls back to the CPU and says why") {
  std::string why;
  const bool cuda = cuda_available(&why);
  std::string note;
  auto engine = make_engine(Backend::Auto, &note);
  REQUIRE(engine);
  if (cuda) {
    CHECK(engine->backend() == Backend::Cuda);
  } else {
    CHECK(engine->backend() == Backend::Cpu);
    CHECK(note.find("CPU") != std::string::npos);
    CHECK_FALSE(why.empty());
    CHECK_THROWS_AS(make_engine(Backend::Cuda), BackendUnavailable);
  }
  auto cpu = make_engine(Backend::Cpu);
  CHECK(cpu->backend() == Backend::Cpu);
  CHECK(cpu->description().rfind("CPU, OpenMP ", 0) == 0);
}

TEST_CASE("filter_image: three channels match three one-channel runs") {
  std::mt19937 rng(9);
  FilterSpec spec;
  spec.kind = FilterKind::Exponential;
  spec.pole = -0.4;
  spec.ext = Extension::Mirror;
  const int w = 23, h = 14;
  Image rgb(w, h, 3);
  rgb.pixels = test::random_image(w, h, 3, rng(), 0.05f, 1.0f).pixels;
  const Image out = filter_image(spec, rgb, Backend::Cpu);
  REQUIRE(out.channels == 3);
  for (int c = 0; c < 3; ++c) {
    Image gray(w, h, 1);
    for (int i = 0; i < w * h; ++i) gray.pixels[i] = rgb.pixels[i * 3 + c];
    const Image g = filter_image(spec, gray, Backend::Cpu);
    for (int i = 0; i < w * h; ++i) CHECK(out.pixels[i * 3 + c] == g.pixels[i]);
  }
}
