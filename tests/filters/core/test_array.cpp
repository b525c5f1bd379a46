// N-D arrays on the CPU backend (arrays.h): every axis, extension, derivative and measure against
// the double reference; the sample types in and out; the refusals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "filters/core/engine.h"
#include "tests/filters/core/arrays.h"

TEST_CASE("arrays: every axis, extension, derivative and measure is exact on the CPU") {
  const rf::test::ArrayOutcome o = rf::test::check_arrays(
      rf::Backend::Cpu, {rf::Algorithm::Auto, rf::Algorithm::RT, rf::Algorithm::Alg5});
  MESSAGE("passed " << o.passed << ", refused " << o.refused << ", worst " << o.worst
                    << " of the allowed");
  CHECK(o.failed == 0);
  CHECK(o.passed > 250);
  CHECK(o.refused > 0);  // alg5 on a volume's third axis
}

TEST_CASE("arrays: one axis alone leaves the others untouched, and a 2-D array equals the image") {
  // Along y alone, every column is filtered and no two columns mix.
  const rf::test::Shape shape{12, 9};
  const std::vector<double> a = rf::test::random_array(shape, 7);
  std::vector<float> x(a.begin(), a.end());
  rf::ArraySpec spec;
  spec.passes.push_back({0, 3.0, 0, rf::Extension::Clamp});
  rf::ArrayFilter(spec, shape, rf::Backend::Cpu).run(x.data(), x.data());
  std::vector<float> col(12);
  for (int c = 0; c < 9; ++c) {
    rf::ArraySpec one = spec;
    std::vector<float> line(12);
    for (int r = 0; r < 12; ++r) line[std::size_t(r)] = float(a[std::size_t(r * 9 + c)]);
    rf::ArrayFilter(one, {12}, rf::Backend::Cpu).run(line.data(), line.data());
    for (int r = 0; r < 12; ++r)
      CHECK(x[std::size_t(r * 9 + c)] == doctest::Approx(line[std::size_t(r)]).epsilon(1e-6));
  }
  // Both axes of a 2-D array: the engine's image filter, bit for bit.
  rf::ArraySpec both;
  both.filter.sigma = 2.5;
  both.passes = {{0, 2.5, 0, rf::Extension::Mirror}, {1, 2.5, 0, rf::Extension::Mirror}};
  std::vector<float> y(a.begin(), a.end());
  rf::ArrayFilter(both, shape, rf::Backend::Cpu).run(y.data(), y.data());
  rf::Image img(9, 12, 1);
  for (std::size_t i = 0; i < a.size(); ++i) img.pixels[i] = float(a[i]);
  rf::FilterSpec s;
  s.sigma = 2.5;
  const rf::Image want = rf::filter_image(s, img, rf::Backend::Cpu);
  CHECK(std::memcmp(want.pixels.data(), y.data(), y.size() * sizeof(float)) == 0);
}

TEST_CASE("arrays: uint8, uint16, float16 and float64 in and out") {
  const rf::test::Shape shape{6, 7, 3};
  const std::vector<double> a = rf::test::random_array(shape, 11);
  rf::ArraySpec spec;
  spec.passes = {{0, 2.0, 0, rf::Extension::Mirror}, {1, 2.0, 0, rf::Extension::Mirror}};
  std::vector<float> want(a.begin(), a.end());
  rf::ArrayFilter(spec, shape, rf::Backend::Cpu).run(want.data(), want.data());
  const std::size_t n = a.size();
  // float64 in and out: in double (the float64 sweep below holds it to 1e-12).
  std::vector<double> d(a);
  rf::filter_array(spec, shape, d.data(), rf::DType::F64, d.data(), rf::DType::F64,
                   rf::Backend::Cpu);
  const std::vector<double> exact = rf::test::reference_array(spec, shape, a);
  for (std::size_t i = 0; i < n; ++i) CHECK(std::abs(d[i] - exact[i]) < 1e-12);
  // float64 in, float32 out: through float32.
  std::vector<float> narrow(n);
  rf::filter_array(spec, shape, a.data(), rf::DType::F64, narrow.data(), rf::DType::F32,
                   rf::Backend::Cpu);
  CHECK(narrow == want);
  // uint16 values (not normalised): 60000 x the array, rounded back to the nearest integer.
  std::vector<std::uint16_t> u16(n);
  for (std::size_t i = 0; i < n; ++i) u16[i] = std::uint16_t(std::lround(a[i] * 60000.0));
  std::vector<float> f16(n);
  for (std::size_t i = 0; i < n; ++i) f16[i] = float(u16[i]);
  rf::ArrayFilter(spec, shape, rf::Backend::Cpu).run(f16.data(), f16.data());
  std::vector<std::uint16_t> got16(n);
  rf::filter_array(spec, shape, u16.data(), rf::DType::U16, got16.data(), rf::DType::U16,
                   rf::Backend::Cpu);
  for (std::size_t i = 0; i < n; ++i) CHECK(got16[i] == std::uint16_t(std::lrint(f16[i])));
  // uint8 in, float32 out: the values themselves, filtered.
  std::vector<std::uint8_t> u8(n);
  for (std::size_t i = 0; i < n; ++i) u8[i] = std::uint8_t(std::lround(a[i] * 250.0));
  std::vector<float> got(n), ref8(n);
  for (std::size_t i = 0; i < n; ++i) ref8[i] = u8[i];
  rf::ArrayFilter(spec, shape, rf::Backend::Cpu).run(ref8.data(), ref8.data());
  rf::filter_array(spec, shape, u8.data(), rf::DType::U8, got.data(), rf::DType::F32,
                   rf::Backend::Cpu);
  CHECK(std::memcmp(got.data(), ref8.data(), n * sizeof(float)) == 0);
  // Saturation: a constant outside of 300 brightens a uint8 border beyond 255.
  rf::ArraySpec bright = spec;
  bright.filter.cval = 1000.0;
  for (auto& p : bright.passes) p.ext = rf::Extension::Constant;
  std::vector<std::uint8_t> sat(n);
  rf::filter_array(bright, shape, u8.data(), rf::DType::U8, sat.data(), rf::DType::U8,
                   rf::Backend::Cpu);
  CHECK(sat[0] == 255);
  // float16: the filtered float32 rounded to binary16.
  std::vector<std::uint16_t> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = rf::to_half(float(a[i]));
  std::vector<float> hf(n);
  for (std::size_t i = 0; i < n; ++i) hf[i] = rf::from_half(h[i]);
  rf::ArrayFilter(spec, shape, rf::Backend::Cpu).run(hf.data(), hf.data());
  std::vector<std::uint16_t> goth(n);
  rf::filter_array(spec, shape, h.data(), rf::DType::F16, goth.data(), rf::DType::F16,
                   rf::Backend::Cpu);
  for (std::size_t i = 0; i < n; ++i) CHECK(goth[i] == rf::to_half(hf[i]));
}

// A random float64 array of `shape` filtered in place by filter_array in double: the largest
// difference from the double reference.
static double float64_error(const rf::ArraySpec& spec, const rf::test::Shape& shape,
                            std::uint64_t seed) {
  REQUIRE(rf::filters_in_double(spec, rf::Backend::Cpu));
  const std::vector<double> a = rf::test::random_array(shape, seed);
  std::vector<double> x(a);
  rf::filter_array(spec, shape, x.data(), rf::DType::F64, x.data(), rf::DType::F64,
                   rf::Backend::Cpu);
  const std::vector<double> want = rf::test::reference_array(spec, shape, a);
  double err = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) err = std::max(err, std::abs(x[i] - want[i]));
  return err;
}

TEST_CASE("arrays: float64 is filtered in double throughout, within 1e-12 of the reference") {
  // Every shape, extension and algorithm of the line filter; the derivatives and measures in
  // the next case.
  double worst = 0.0;
  int cases = 0;
  std::uint64_t seed = 900;
  for (const rf::test::ArrayCase& c : rf::test::array_cases())
    for (rf::Extension ext :
         {rf::Extension::Mirror, rf::Extension::Reflect101, rf::Extension::Clamp,
          rf::Extension::Repeat, rf::Extension::Zero, rf::Extension::Constant})
      for (rf::Algorithm algo : {rf::Algorithm::Auto, rf::Algorithm::RT})
        for (int order : {1, 3, 5}) {
          rf::ArraySpec spec;
          spec.filter.order = order;
          spec.filter.cval = 0.7;
          spec.filter.algo = algo;
          for (std::size_t i = 0; i < c.axes.size(); ++i)
            spec.passes.push_back({c.axes[i], c.sigmas[i], 0, ext});
          const double err = float64_error(spec, c.shape, ++seed);
          CAPTURE(rf::to_string(ext));
          CAPTURE(order);
          CAPTURE(seed);
          CHECK(err < 1e-12);
          worst = std::max(worst, err);
          ++cases;
        }
  MESSAGE(cases << " float64 cases, worst " << worst);
  // The float32 paths' own: alg5, the edge-aware filter.
  rf::ArraySpec d;
  d.passes = {{0, 2.0, 0, rf::Extension::Mirror}};
  d.filter.algo = rf::Algorithm::Alg5;
  CHECK(!rf::filters_in_double(d, rf::Backend::Cpu));
  CHECK_THROWS_AS(
      rf::ArrayFilter(d, {4, 4}, rf::Backend::Cpu, rf::MemorySpace::Host, rf::DType::F64),
      rf::InvalidParameter);
}

TEST_CASE("arrays: float64 derivatives and measures in double, within 1e-12 of the reference") {
  // Each case's shape with a first derivative along its first axis and a second along its last,
  // then the gradient magnitude and the Laplacian over its axes, under every extension.
  double worst = 0.0;
  int cases = 0;
  std::uint64_t seed = 1900;
  using Measure = rf::Derivative::Measure;
  for (const rf::test::ArrayCase& c : rf::test::array_cases())
    for (rf::Extension ext :
         {rf::Extension::Mirror, rf::Extension::Reflect101, rf::Extension::Clamp,
          rf::Extension::Repeat, rf::Extension::Zero, rf::Extension::Constant})
      for (Measure measure : {Measure::Partial, Measure::GradientMagnitude, Measure::Laplacian}) {
        rf::ArraySpec spec;
        spec.filter.order = 3;
        spec.filter.cval = 0.7;
        spec.filter.derivative.measure = measure;
        for (std::size_t i = 0; i < c.axes.size(); ++i) {
          int derivative = 0;
          if (measure == Measure::Partial) derivative = i == 0 ? 1 : i + 1 == c.axes.size() ? 2 : 0;
          spec.passes.push_back({c.axes[i], std::max(c.sigmas[i], 1.5), derivative, ext});
        }
        const double err = float64_error(spec, c.shape, ++seed);
        CAPTURE(rf::to_string(ext));
        CAPTURE(int(measure));
        CAPTURE(seed);
        CHECK(err < 1e-12);
        worst = std::max(worst, err);
        ++cases;
      }
  MESSAGE(cases << " float64 derivative cases, worst " << worst);
}

TEST_CASE("arrays: binary16 conversions round to nearest even") {
  // Every half round-trips through float (NaNs stay NaN).
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float f = rf::from_half(std::uint16_t(h));
    if (std::isnan(f)) {
      CHECK(rf::to_half(f) >= 0x7c01);
      continue;
    }
    REQUIRE(rf::to_half(f) == h);
  }
  CHECK(rf::from_half(0x3c00) == 1.0f);
  CHECK(rf::from_half(0x0001) == std::ldexp(1.0f, -24));
  CHECK(rf::to_half(65504.0f) == 0x7bff);
  CHECK(rf::to_half(65519.0f) == 0x7bff);
  CHECK(rf::to_half(65520.0f) == 0x7c00);                      // the tie goes to the even: infinity
  CHECK(rf::to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);  // tie to even, down
  CHECK(rf::to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);  // tie to even, up
  CHECK(rf::to_half(std::ldexp(1.0f, -25)) == 0x0000);  // half of the least subnormal: even
  CHECK(rf::to_half(-std::numeric_limits<float>::infinity()) == 0xfc00);
}

TEST_CASE("arrays: mistakes are refused in one line naming them") {
  auto refused = [](const rf::ArraySpec& spec, const rf::test::Shape& shape,
                    const std::string& words) {
    try {
      rf::ArrayFilter(spec, shape, rf::Backend::Cpu);
    } catch (const rf::InvalidParameter& e) {
      CAPTURE(e.what());
      CHECK(std::string(e.what()).find(words) != std::string::npos);
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
      return;
    }
    FAIL("not refused: " << words);
  };
  rf::ArraySpec spec;
  spec.passes = {{3, 2.0, 0, rf::Extension::Mirror}};
  refused(spec, {4, 4}, "axis 3 is outside an array of 2 axes");
  spec.passes = {{0, 2.0, 0, rf::Extension::Mirror}, {0, 3.0, 0, rf::Extension::Mirror}};
  refused(spec, {4, 4}, "axis 0 is given twice");
  spec.passes = {{0, 2.0, 3, rf::Extension::Mirror}};
  refused(spec, {4, 4}, "derivative order must be 0, 1 or 2");
  spec.passes = {{0, 2.0, 0, rf::Extension::Mirror}};
  refused(spec, {4, 0}, "axis 1 is empty");
  spec.passes = {{1, -2.0, 0, rf::Extension::Mirror}};
  refused(spec, {4, 4}, "axis 1: sigma");
  spec.passes = {{0, 2.0, 0, rf::Extension::Constant}};
  spec.filter.cval = std::numeric_limits<double>::quiet_NaN();
  refused(spec, {4, 4}, "cval must be a finite number");
  spec.filter.cval = 0.0;
  spec.filter.derivative.measure = rf::Derivative::Measure::Laplacian;
  spec.passes = {};
  refused(spec, {4, 4}, "needs an axis");
  spec.filter.derivative.measure = rf::Derivative::Measure::Partial;
  spec.filter.kind = rf::FilterKind::EdgeAware;
  spec.passes = {{0, 2.0, 0, rf::Extension::Clamp}};
  refused(spec, {4, 4}, "filters both axes of an image");
  // Both axes of an image: the edge-aware filter itself.
  spec.passes = {{0, 2.0, 0, rf::Extension::Clamp}, {1, 2.0, 0, rf::Extension::Clamp}};
  const rf::test::Shape image{6, 5};
  std::vector<float> x(30, 0.5f);
  x[7] = 1.0f;
  rf::ArrayFilter(spec, image, rf::Backend::Cpu).run(x.data(), x.data());
  rf::Image img(5, 6, 1);
  img.pixels.assign(30, 0.5f);
  img.pixels[7] = 1.0f;
  spec.filter.sigma = 2.0;  // the passes' sigma
  CHECK(rf::filter_image(spec.filter, img, rf::Backend::Cpu).pixels == x);
}
