// The FIR method of the Gaussian (filters/fir/fir.h) on the CPU: against the independent double
// reference at scipy's radius, every extension, odd sizes, any channel count, a sigma per axis,
// one axis, float and double frames; auto's choice; what the method refuses.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/extension.h"
#include "filters/core/spec.h"
#include "filters/fir/fir.h"
#include "tests/filters/fir/fir_reference.h"
#include "tests/random_data.h"

namespace {

rf::FilterSpec fir_spec(double sigma, rf::Extension ext) {
  rf::FilterSpec s;
  s.sigma = sigma;
  s.ext = ext;
  s.cval = ext == rf::Extension::Constant ? 0.7 : 0.0;
  s.gaussian_method = rf::GaussianMethod::Fir;
  return s;
}

}  // namespace

TEST_CASE("fir: scipy.ndimage's radius, int(4 sigma + 0.5), and taps of unit sum") {
  CHECK(rf::gaussian_fir_radius(1.0) == 4);
  CHECK(rf::gaussian_fir_radius(2.5) == 10);
  CHECK(rf::gaussian_fir_radius(0.3) == 1);
  CHECK(rf::gaussian_fir_radius(0.1) == 0);
  const std::vector<double> t = rf::gaussian_fir_taps(1.7, rf::gaussian_fir_radius(1.7));
  double sum = 0.0;
  for (double v : t) sum += v;
  CHECK(sum == doctest::Approx(1.0).epsilon(1e-15));
  CHECK(t.front() == t.back());
}

TEST_CASE("cpu: the FIR method equals the double reference at every extension, size and axis") {
  struct Case {
    int w, h, channels;
    double sx, sy;
    rf::Axes axes;
  };
  const Case cases[] = {
      {37, 23, 1, 1.3, 1.3, rf::Axes::Both}, {29, 31, 3, 2.1, 0.6, rf::Axes::Both},
      {9, 1, 4, 1.5, 1.5, rf::Axes::Both},   {1, 11, 1, 0.8, 3.0, rf::Axes::Both},
      {17, 13, 4, 2.5, 2.5, rf::Axes::X},    {17, 13, 2, 1.0, 1.9, rf::Axes::Y},
      {6, 5, 1, 4.0, 4.0, rf::Axes::Both}};
  auto engine = rf::make_cpu_engine();
  int n = 0;
  for (const Case& c : cases)
    for (rf::Extension ext : rf::kAllExtensions) {
      rf::FilterSpec spec = fir_spec(c.sx, ext);
      if (c.sy != c.sx) spec.sigma_y = c.sy;
      spec.axes = c.axes;
      const rf::Image in = rf::test::random_image(c.w, c.h, c.channels, 100 + n++);
      const std::vector<double> want = rf::test::fir_image(in, spec);
      const rf::Image got = rf::filter_image(*engine, spec, in);
      INFO(rf::describe(spec), " on ", c.w, "x", c.h, "x", c.channels);
      CHECK(rf::test::worst_relative(got.pixels, want) < 1e-6);
      CHECK(engine->method().rfind("FIR radius", 0) == 0);
    }
}

TEST_CASE("cpu: float64 frames take the FIR in double, in place") {
  for (rf::Extension ext : {rf::Extension::Mirror, rf::Extension::Constant,
                            rf::Extension::Reflect101, rf::Extension::Repeat}) {
    rf::FilterSpec spec = fir_spec(1.6, ext);
    spec.sigma_y = 2.3;
    const int w = 21, h = 19;
    const rf::Image in = rf::test::random_image(w, h, 1, 7);
    const std::vector<double> want = rf::test::fir_image(in, spec);
    std::vector<double> data(in.pixels.begin(), in.pixels.end());
    auto engine = rf::make_cpu_engine();
    engine->plan(spec, w, h, rf::PixelFormat::R64F);
    rf::FrameView v{data.data(), 0, w, h, std::size_t(w) * sizeof(double), rf::PixelFormat::R64F};
    engine->run(v, v);
    double worst = 0.0;
    for (std::size_t i = 0; i < data.size(); ++i)
      worst = std::max(worst, std::abs(data[i] - want[i]));
    INFO(rf::describe(spec));
    CHECK(worst < 1e-13);
  }
}

TEST_CASE("auto method: the FIR at small sigma, the recursion beyond, derivatives recursive") {
  auto engine = rf::make_cpu_engine();
  rf::FilterSpec spec;
  spec.gaussian_method = rf::GaussianMethod::Auto;
  spec.order = 3;
  spec.sigma = 0.5;
  const rf::Image in = rf::test::random_image(16, 12, 1, 3);
  rf::filter_image(*engine, spec, in);
  CHECK(engine->method() == "FIR radius 2");
  // Below the least sigma of the order's design the FIR is the one method there is.
  spec.sigma = 0.3;
  rf::filter_image(*engine, spec, in);
  CHECK(engine->method() == "FIR radius 1");
  spec.gaussian_method = rf::GaussianMethod::Recursive;
  CHECK_THROWS_AS(rf::filter_image(*engine, spec, in), rf::InvalidParameter);
  spec.gaussian_method = rf::GaussianMethod::Auto;
  spec.sigma = 40.0;
  rf::filter_image(*engine, spec, in);
  CHECK(engine->method() == "recursive order 3");
  spec.sigma = 0.5;
  spec.derivative.x = 1;
  CHECK_FALSE(rf::runs_fir(spec, rf::Backend::Cpu, rf::PixelFormat::R32F, 64, 64));
  CHECK_FALSE(rf::runs_fir(spec, rf::Backend::Cuda, rf::PixelFormat::R32F, 64, 64));
  // Recursive, the default, never runs the FIR; other kinds have no method.
  spec = rf::FilterSpec();
  spec.sigma = 0.7;
  CHECK_FALSE(rf::runs_fir(spec, rf::Backend::Cpu, rf::PixelFormat::R32F, 64, 64));
  rf::filter_image(*engine, spec, in);
  CHECK(engine->method() == "recursive order 3");
}

TEST_CASE("auto method on CUDA: the FIR's crossover follows the frame's size and format") {
  // The measured crossovers (filters/fir/fir.cpp, the frame classes of runs_fir): the recursion's
  // fixed latency weighs less on larger frames, so the FIR stays ahead to a smaller sigma there.
  rf::FilterSpec spec;
  spec.gaussian_method = rf::GaussianMethod::Auto;
  const auto f32 = rf::PixelFormat::R32F, rgba8 = rf::PixelFormat::RGBA8;
  // The FIR up to `fir_to` and the recursion at `recursive_at`, for the order on such frames.
  const struct {
    int order;
    double fir_to, recursive_at;
    rf::PixelFormat format;
    int w, h;
  } cases[] = {{3, 12.0, 16.0, f32, 1920, 1080}, {2, 8.0, 10.0, f32, 1920, 1080},
               {3, 8.0, 10.0, f32, 2048, 2048},  {3, 8.0, 10.0, f32, 3840, 2160},
               {3, 5.0, 6.0, f32, 4096, 4096},   {2, 2.0, 3.0, rgba8, 1920, 1080},
               {3, 5.0, 6.0, rgba8, 3840, 2160}};
  for (const auto& c : cases) {
    INFO("order ", c.order, " ", rf::to_string(c.format), " ", c.w, "x", c.h);
    spec.order = c.order;
    spec.sigma = c.fir_to;
    CHECK(rf::runs_fir(spec, rf::Backend::Cuda, c.format, c.w, c.h));
    spec.sigma = c.recursive_at;
    CHECK_FALSE(rf::runs_fir(spec, rf::Backend::Cuda, c.format, c.w, c.h));
  }
  // The CPU has one crossover for every frame.
  spec.order = 3;
  spec.sigma = 0.75;
  CHECK(rf::runs_fir(spec, rf::Backend::Cpu, f32, 4096, 4096));
  spec.sigma = 1.0;
  CHECK_FALSE(rf::runs_fir(spec, rf::Backend::Cpu, f32, 64, 64));
}

TEST_CASE("gaussian method: names, aliases and refusals in one line") {
  rf::FilterArgs a;
  a.gaussian_method = "best";
  CHECK(rf::parse_spec(a).gaussian_method == rf::GaussianMethod::Auto);
  a.gaussian_method = "FIR";
  CHECK(rf::parse_spec(a).gaussian_method == rf::GaussianMethod::Fir);
  CHECK(rf::describe(rf::parse_spec(a)).find("method fir") != std::string::npos);
  CHECK(rf::to_args(rf::parse_spec(a)).gaussian_method == "fir");
  // The FIR takes sigmas the order-3 design does not.
  a.sigma = 0.3;
  CHECK_NOTHROW(rf::parse_spec(a));
  a.gaussian_method = "recursive";
  CHECK_THROWS_AS(rf::parse_spec(a), rf::InvalidParameter);
  a.sigma = 2.0;

  auto refused = [](rf::FilterArgs args) {
    try {
      rf::parse_spec(args);
    } catch (const rf::InvalidParameter& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  a.gaussian_method = "fast";
  CHECK(refused(a).find("--gaussian-method: unknown method 'fast' (recursive, fir, auto)") == 0);
  a.gaussian_method = "fir";
  a.derivative = "1,0";
  CHECK(refused(a).find("derivatives take the recursive filter") != std::string::npos);
  a.derivative = "none";
  a.algo = "alg5";
  CHECK(refused(a).find("the FIR runs no recursive algorithm") != std::string::npos);
  a.algo = "auto";
  a.sigma = 40.0;
  CHECK(refused(a).find("sigma 40: --gaussian-method fir takes sigma up to 32") == 0);
  a.gaussian_method = "auto";
  CHECK_NOTHROW(rf::parse_spec(a));
  a.gaussian_method = "fir";
  a.sigma = 2.0;
  a.filter = "bspline3";
  CHECK(refused(a).find("is a recursive design") != std::string::npos);
  // Changing the kind drops the method where the new kind has none.
  rf::FilterArgs b;
  b.gaussian_method = "fir";
  rf::change_filter(b, "deriche");
  CHECK(b.gaussian_method == "recursive");
  // Auto with a derivative runs the recursion: accepted.
  rf::FilterArgs c;
  c.gaussian_method = "auto";
  c.derivative = "gradient";
  CHECK_NOTHROW(rf::parse_spec(c));
}
