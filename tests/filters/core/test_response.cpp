// The frequency response against the coefficients (by hand, and as the spectrum of the impulse
// response measured on a line) and against the Gaussian it approximates.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/errors.h"
#include "filters/core/response.h"

using namespace rf;

namespace {

const double kPi = std::acos(-1.0);

FilterSpec make_spec(FilterKind kind, int order, double sigma) {
  FilterSpec s;
  s.kind = kind;
  s.order = order;
  s.sigma = sigma;
  if (kind == FilterKind::Sat) s.ext = Extension::Zero;  // the only extension it takes
  return s;
}

// A unit impulse in the middle of a line of 2 * half + 1 samples through the causal pass and, for
// a pair, the anticausal pass, both started from zero: written here from the public convention
// of design.h, independently of the library's own impulse responses.
std::vector<double> impulse_response(const Recursive& f, int half) {
  const int n = 2 * half + 1, r = f.order();
  std::vector<double> y(n, 0.0), z(n, 0.0);
  for (int i = 0; i < n; ++i) {
    double acc = i == half ? f.b0 : 0.0;
    for (int k = 1; k <= r && i - k >= 0; ++k) acc -= f.a[k - 1] * y[i - k];
    y[i] = acc;
  }
  if (f.causal_only) return y;
  for (int i = n - 1; i >= 0; --i) {
    double acc = f.b0 * y[i];
    for (int k = 1; k <= r && i + k < n; ++k) acc -= f.a[k - 1] * z[i + k];
    z[i] = acc;
  }
  return z;
}

// |sum_n h[n] e^{-i omega n}|: the spectrum of the measured impulse response.
double spectrum(const std::vector<double>& h, int half, double omega) {
  double re = 0.0, im = 0.0;
  for (int i = 0; i < int(h.size()); ++i) {
    re += h[i] * std::cos(omega * (i - half));
    im -= h[i] * std::sin(omega * (i - half));
  }
  return std::hypot(re, im);
}

}  // namespace

TEST_CASE("response: gains computed by hand") {
  // Exponential smoother, pole p: each pass (1 - p) / (1 - p e^{-i omega}); the pair at pi is
  // ((1 - p) / (1 + p))^2, at 0 it is 1.
  for (double p : {-0.6, 0.3, 0.8}) {
    CAPTURE(p);
    FilterSpec s = make_spec(FilterKind::Exponential, 1, 1.0);
    s.pole = p;
    const Recursive f = design(s);
    CHECK(response_gain(f, 0.0) == doctest::Approx(1.0).epsilon(1e-14));
    const double at_pi = (1 - p) / (1 + p);
    CHECK(response_gain(f, kPi) == doctest::Approx(at_pi * at_pi).epsilon(1e-14));
    const double w = 1.1;
    const double one_pass = (1 - p) / std::sqrt(1 - 2 * p * std::cos(w) + p * p);
    CHECK(response_gain(f, w) == doctest::Approx(one_pass * one_pass).epsilon(1e-13));
  }
  // B-spline prefilters invert the sampled kernel: at pi the kernel of degree 3 is
  // 4/6 - 2/6 = 1/3, of degree 5 (66 - 52 + 2) / 120, of degree 7 (2416 - 2382 + 240 - 2) / 5040.
  CHECK(response_gain(design(make_spec(FilterKind::BSpline3, 1, 1)), kPi) ==
        doctest::Approx(3.0).epsilon(1e-12));
  CHECK(response_gain(design(make_spec(FilterKind::BSpline5, 2, 1)), kPi) ==
        doctest::Approx(120.0 / 16.0).epsilon(1e-12));
  CHECK(response_gain(design(make_spec(FilterKind::BSpline7, 3, 1)), kPi) ==
        doctest::Approx(5040.0 / 272.0).epsilon(1e-12));
  // The summed-area table is causal only: |1 / (1 - e^{-i omega})| = 1 / (2 sin(omega / 2)),
  // infinite at 0 (its pole sits on the unit circle).
  const Recursive sat = design(make_spec(FilterKind::Sat, 1, 1));
  CHECK(response_gain(sat, kPi) == doctest::Approx(0.5).epsilon(1e-14));
  CHECK(response_gain(sat, 0.7) == doctest::Approx(1.0 / (2 * std::sin(0.35))).epsilon(1e-13));
  CHECK(std::isinf(response_gain(sat, 0.0)));
  CHECK(gaussian_gain(2.0, 0.5) == doctest::Approx(std::exp(-0.5)).epsilon(1e-15));
}

TEST_CASE("response: the gain is the spectrum of the measured impulse response") {
  struct Case {
    FilterKind kind;
    int order;
    double sigma;
  };
  const Case cases[] = {
      {FilterKind::Gaussian, 1, 1.5},    {FilterKind::Gaussian, 2, 3.0},
      {FilterKind::Gaussian, 3, 4.0},    {FilterKind::Gaussian, 4, 7.5},
      {FilterKind::Gaussian, 5, 2.5},    {FilterKind::Deriche, 4, 5.0},
      {FilterKind::Yvrg, 3, 6.0},        {FilterKind::BSpline3, 1, 1.0},
      {FilterKind::BSpline5, 2, 1.0},    {FilterKind::BSpline7, 3, 1.0},
      {FilterKind::Exponential, 1, 1.0},
  };
  for (const Case& c : cases) {
    FilterSpec s = make_spec(c.kind, c.order, c.sigma);
    s.pole = -0.45;
    CAPTURE(describe(s));
    const Recursive f = design(s);
    // Long enough for every response here to fall below 1e-16 of its peak.
    const int half = int(60 * c.sigma) + 200;
    const std::vector<double> h = impulse_response(f, half);
    const std::vector<ResponsePoint> r = frequency_response(s, 37);
    for (const ResponsePoint& p : r) {
      CAPTURE(p.omega);
      CHECK(p.gain == doctest::Approx(spectrum(h, half, p.omega)).epsilon(1e-9));
    }
  }
  // Causal only: the magnitude of the running sum's spectrum, away from its pole.
  const Recursive sat = design(make_spec(FilterKind::Sat, 1, 1));
  const std::vector<double> h = impulse_response(sat, 20000);
  // The step truncated to its first N = 20001 samples is a geometric sum: its spectrum is the
  // infinite one times |1 - e^{-i omega N}| = 2 |sin(omega N / 2)|.
  for (double w : {0.3, 1.0, 2.0, 3.0}) {
    CAPTURE(w);
    CHECK(spectrum(h, 20000, w) ==
          doctest::Approx(response_gain(sat, w) * 2.0 * std::abs(std::sin(w * 20001 / 2)))
              .epsilon(1e-9));
  }
}

TEST_CASE("response: points on [0, pi], the ideal Gaussian for the Gaussian kinds only") {
  const FilterSpec g = make_spec(FilterKind::Gaussian, 3, 4.0);
  const std::vector<ResponsePoint> r = frequency_response(g, 5);
  REQUIRE(r.size() == 5);
  CHECK(r.front().omega == 0.0);
  CHECK(r.back().omega == kPi);
  CHECK(r[2].omega == doctest::Approx(kPi / 2).epsilon(1e-15));
  for (const ResponsePoint& p : r) {
    REQUIRE(p.ideal.has_value());
    CHECK(*p.ideal == doctest::Approx(std::exp(-0.5 * 16.0 * p.omega * p.omega)).epsilon(1e-14));
  }
  CHECK(r.front().gain == doctest::Approx(1.0).epsilon(1e-12));  // unit DC gain
  for (FilterKind k : {FilterKind::Deriche, FilterKind::Yvrg})
    CHECK(frequency_response(make_spec(k, k == FilterKind::Deriche ? 2 : 3, 3.0), 3)[1].ideal);
  for (FilterKind k : {FilterKind::BSpline3, FilterKind::Exponential, FilterKind::Sat})
    CHECK_FALSE(frequency_response(make_spec(k, 1, 3.0), 3)[1].ideal.has_value());
  CHECK_THROWS_AS(frequency_response(g, 1), InvalidParameter);
  CHECK_THROWS_AS(frequency_response(make_spec(FilterKind::EdgeAware, 3, 4.0), 8),
                  InvalidParameter);
}

TEST_CASE("response: higher Gaussian orders follow exp(-sigma^2 omega^2 / 2) more closely") {
  for (double sigma : {2.0, 4.0, 16.0}) {
    CAPTURE(sigma);
    double previous = std::numeric_limits<double>::infinity();
    for (int order : {1, 3, 5}) {
      CAPTURE(order);
      double worst = 0.0;
      for (const ResponsePoint& p :
           frequency_response(make_spec(FilterKind::Gaussian, order, sigma), 257))
        worst = std::max(worst, std::abs(p.gain - *p.ideal));
      CHECK(worst < previous / 2);
      previous = worst;
    }
    CHECK(previous < 0.01);  // order 5 within 1 % of the Gaussian's gain at every frequency
  }
}

TEST_CASE("response: the impulse response on a line, and the poles that shape it") {
  // A pair: the line ends where the response has decayed, and holds the response measured here.
  const FilterSpec g = make_spec(FilterKind::Gaussian, 3, 4.0);
  const Recursive f = design(g);
  const LineResponse r = line_impulse_response(f, 100000);
  REQUIRE(r.half > 0);
  CHECK(r.half < 100000);
  REQUIRE(r.values.size() == std::size_t(2 * r.half + 1));
  const std::vector<double> want = impulse_response(f, r.half);
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(r.values[i] == doctest::Approx(want[i]).epsilon(1e-12).scale(1e-300));
  }
  const double peak = *std::max_element(r.values.begin(), r.values.end());
  CHECK(std::abs(r.values.front()) < 1e-16 * peak);
  CHECK(std::abs(r.values.back()) < 1e-16 * peak);
  // Capped: the same samples, fewer of them.
  const LineResponse short_line = line_impulse_response(f, 5);
  CHECK(short_line.half == 5);
  REQUIRE(short_line.values.size() == 11);
  const std::vector<double> want_short = impulse_response(f, 5);
  for (std::size_t i = 0; i < want_short.size(); ++i)
    CHECK(short_line.values[i] == doctest::Approx(want_short[i]).epsilon(1e-12));

  // The poles are the roots of z^3 + a1 z^2 + a2 z + a3: inside the unit circle, their sum -a1,
  // their product -a3.
  REQUIRE(r.poles.size() == 3);
  std::complex<double> sum = 0.0, product = 1.0;
  for (const std::complex<double>& p : r.poles) {
    CHECK(std::abs(p) < 1.0);
    sum += p;
    product *= p;
  }
  CHECK(sum.real() == doctest::Approx(-f.a[0]).epsilon(1e-10));
  CHECK(product.real() == doctest::Approx(-f.a[2]).epsilon(1e-10));
  CHECK(std::abs(sum.imag()) < 1e-10);

  // The exponential smoother's one pole is its parameter.
  FilterSpec e = make_spec(FilterKind::Exponential, 1, 1.0);
  e.pole = 0.6;
  const LineResponse er = line_impulse_response(design(e), 1000);
  REQUIRE(er.poles.size() == 1);
  CHECK(er.poles[0].real() == doctest::Approx(0.6).epsilon(1e-12));

  // The running sum never decays: the whole line asked for, a step from the impulse on.
  const LineResponse sat = line_impulse_response(design(make_spec(FilterKind::Sat, 1, 1)), 32);
  CHECK(sat.half == 32);
  REQUIRE(sat.values.size() == 65);
  CHECK(sat.values[31] == 0.0);
  CHECK(sat.values[32] == 1.0);
  CHECK(sat.values[64] == 1.0);
  REQUIRE(sat.poles.size() == 1);
  CHECK(sat.poles[0].real() == doctest::Approx(1.0).epsilon(1e-12));

  CHECK_THROWS_AS(line_impulse_response(f, -1), InvalidParameter);
}
