// Gaussian derivatives on the CPU backend: every algorithm against the double reference
// (derivatives.h); both references' sign and scale on a ramp; refusals.
#include "tests/filters/recursive/derivatives.h"

TEST_CASE("cpu: every derivative, measure, extension and algorithm is exact") {
  const auto engine = rf::make_cpu_engine();
  const rf::test::DerivativeOutcome o = rf::test::check_derivatives(*engine, rf::Backend::Cpu);
  CHECK(o.failed == 0);
  CHECK(o.passed > 0);
}

// What the sanitized build runs (the sweep above is left to the ordinary build): both measures
// and a partial of each order under every extension on one odd frame, alg5 and auto.
TEST_CASE("cpu derivative frames: every extension, both measures, against the reference") {
  const auto engine = rf::make_cpu_engine();
  const rf::Image in = rf::test::random_image(23, 17, 4, 5, 0.05f, 1.0f);
  for (rf::Extension ext : rf::kAllExtensions) {
    if (ext == rf::Extension::Ignore) continue;
    for (const char* text : {"gradient", "laplacian", "1,2"})
      for (rf::Algorithm algo : {rf::Algorithm::Auto, rf::Algorithm::Alg5}) {
        rf::FilterSpec spec;
        spec.sigma = 2.5;
        spec.ext = ext;
        spec.cval = 0.3;
        spec.derivative = *rf::parse_derivative(text);
        const std::vector<double> want = rf::ref::padded_reference(spec, in);
        spec.algo = algo;
        const rf::Image got = rf::filter_image(*engine, spec, in);
        double err = 0.0;
        for (std::size_t i = 0; i < want.size(); ++i)
          err = std::max(err, std::abs(double(got.pixels[i]) - want[i]));
        CAPTURE(rf::describe(spec));
        CHECK(err < 4e-6);
      }
  }
  // 8-bit frames cannot hold a signed derivative: refused when planned.
  rf::FilterSpec spec;
  spec.derivative.x = 1;
  CHECK_THROWS_AS(engine->plan(spec, 8, 8, rf::PixelFormat::RGBA8), rf::InvalidParameter);
}

// d/dx of a ramp is its slope, d2/dx2 zero, away from the border, for the sampled Gaussian
// derivative (the truth) and the differenced recursion (the reference) alike: the sign and the
// scale of both (a slope of 0.01 per pixel along x, 0.02 along y).
TEST_CASE("derivative references: a ramp's slope, in the interior") {
  rf::Image ramp(64, 48, 1);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) ramp.at(x, y, 0) = 0.01f * float(x) + 0.02f * float(y);
  rf::FilterSpec spec;
  spec.sigma = 3.0;
  spec.order = 5;
  for (auto [text, want] : {std::pair{"1,0", 0.01}, {"0,1", 0.02}, {"2,0", 0.0}, {"1,1", 0.0}}) {
    spec.derivative = *rf::parse_derivative(text);
    const std::vector<double> fir =
        rf::ref::fir_gaussian(ramp, 3.0, 3.0, spec.ext, 0.0, spec.derivative.x, spec.derivative.y);
    const std::vector<double> padded = rf::ref::filter_image_padded(
        rf::design_axes(spec), spec.ext, ramp, 0.0, spec.derivative.x, spec.derivative.y);
    CAPTURE(text);
    // The recursive design's response reaches the mirrored border 24 samples away (8 sigma)
    // more than the sampled Gaussian's does.
    CHECK(std::abs(fir[std::size_t(24 * 64 + 32)] - want) < 1e-6 * want + 1e-9);
    CHECK(std::abs(padded[std::size_t(24 * 64 + 32)] - want) < 1e-4 * want + 1e-8);
  }
}
