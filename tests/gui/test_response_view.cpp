// The response view: its numbers against the library (coefficients, impulse responses, design
// error), its layout, and rfstudio drawing the curves where the layout says, offscreen.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>

#include "app/gui/response_data.h"
#include "filters/core/design.h"
#include "filters/core/gaussian_design.h"
#include "filters/core/response.h"
#include "studio_run.h"

using namespace rf;
using namespace rf::gui;

namespace {

FilterSpec spec_of(FilterKind kind, int order, double sigma) {
  FilterSpec s;
  s.kind = kind;
  s.order = order;
  s.sigma = sigma;
  if (kind == FilterKind::Sat) s.ext = Extension::Zero;
  return s;
}

const test::Rgb8 kOrange{255, 170, 60}, kCyan{80, 220, 255};

}  // namespace

TEST_CASE("response view: the numbers are the library's") {
  const FilterSpec s = spec_of(FilterKind::Gaussian, 3, 4.0);
  const ResponseData d = compute_response(s, 129);
  REQUIRE(d.error.empty());
  REQUIRE(d.omega.size() == 129);
  const Recursive f = design(s);
  for (std::size_t i = 0; i < d.omega.size(); ++i) {
    CHECK(d.gain[i] == doctest::Approx(response_gain(f, d.omega[i])).epsilon(1e-14));
    CHECK(d.ideal[i] == doctest::Approx(gaussian_gain(4.0, d.omega[i])).epsilon(1e-14));
  }
  // The impulse response is the centre of the pair's response on a long line, and the sampled
  // Gaussian is normalised to unit sum: over +-half (>= 4 sigma) it holds nearly all of it.
  REQUIRE(d.half >= 16);
  const std::vector<double> h = design_math::pair_impulse_response(f, 400);
  double sum = 0;
  for (int n = -d.half; n <= d.half; ++n) {
    CHECK(d.impulse[n + d.half] == doctest::Approx(h[400 + n]).epsilon(1e-12));
    sum += d.sampled[n + d.half];
  }
  CHECK(sum == doctest::Approx(1.0).epsilon(1e-3));
  REQUIRE(d.design_error.has_value());
  CHECK(d.design_error->l2_relative == gaussian_design_error(s).l2_relative);
  CHECK(d.design_error->max_relative == gaussian_design_error(s).max_relative);
  // The poles are the roots of z^3 + a1 z^2 + a2 z + a3, inside the unit circle.
  REQUIRE(d.poles.size() == 3);
  for (const std::complex<double>& p : d.poles) {
    const std::complex<double> a = p * p * p + f.a[0] * p * p + f.a[1] * p + f.a[2];
    CHECK(std::abs(a) < 1e-12);
    CHECK(std::abs(p) < 1.0);
  }
}

TEST_CASE("response view: other kinds") {
  // A B-spline prefilter's gain times the sampled kernel's is one at every frequency.
  for (FilterKind k : {FilterKind::BSpline3, FilterKind::BSpline5, FilterKind::BSpline7}) {
    const ResponseData d = compute_response(spec_of(k, 1, 1.0), 65);
    REQUIRE(d.kernel.size() == d.gain.size());
    CHECK(d.ideal.empty());
    CHECK_FALSE(d.design_error.has_value());
    for (std::size_t i = 0; i < d.gain.size(); ++i)
      CHECK(d.gain[i] * d.kernel[i] == doctest::Approx(1.0).epsilon(1e-12));
  }
  // The summed-area table: causal only, a step for its impulse response.
  const ResponseData sat = compute_response(spec_of(FilterKind::Sat, 1, 1.0), 65);
  REQUIRE(sat.error.empty());
  CHECK(sat.causal_only);
  CHECK(std::isinf(sat.gain.front()));
  for (int n = -sat.half; n <= sat.half; ++n)
    CHECK(sat.impulse[n + sat.half] == (n < 0 ? 0.0 : 1.0));
  // No fixed coefficients, or a refused parameter: a message, nothing to draw, no exception.
  const ResponseData edge = compute_response(spec_of(FilterKind::EdgeAware, 3, 4.0));
  CHECK(edge.error.find("edge-aware") != std::string::npos);
  CHECK(edge.gain.empty());
  FilterSpec clamp = spec_of(FilterKind::Sat, 1, 1.0);
  clamp.ext = Extension::Clamp;
  CHECK(compute_response(clamp).error.find("takes only the zero extension") != std::string::npos);
}

TEST_CASE("response view: the layout keeps four plots apart and the z-plane square") {
  for (const FilterSpec& s :
       {spec_of(FilterKind::Gaussian, 5, 1.0), spec_of(FilterKind::BSpline3, 1, 1.0)})
    for (auto [w, h] : {std::pair{640.0f, 480.0f}, std::pair{400.0f, 900.0f}}) {
      CAPTURE(w);
      const ResponseData d = compute_response(s);
      const ResponseLayout l = response_layout(d, 10, 20, w, h, 15);
      for (const PlotFrame* f : {&l.linear, &l.decibel, &l.impulse, &l.poles}) {
        CHECK(f->x0 >= 10);
        CHECK(f->x1 <= 10 + w);
        CHECK(f->y0 >= 20);
        CHECK(f->y1 <= 20 + h);
        CHECK(f->x1 > f->x0);
        CHECK(f->y1 > f->y0);
      }
      CHECK(l.linear.x1 < l.decibel.x0);
      CHECK(l.linear.y1 < l.impulse.y0);
      CHECK(l.poles.x1 - l.poles.x0 == l.poles.y1 - l.poles.y0);
      CHECK(l.linear.ymax >= 1.0);
      // The z-plane shows the unit circle, and every anticausal pole within |1/p| <= 2.5.
      CHECK(l.poles.xmax >= 1.3);
      for (const std::complex<double>& p : d.poles)
        if (1.0 / std::abs(p) <= 2.5) CHECK(1.0 / std::abs(p) < l.poles.xmax);
    }
}

TEST_CASE("offscreen: the response view draws its curves where the layout puts them") {
  const int w = 800, h = 600;
  const test::StudioRun run = test::run_offscreen(
      "response", "--hide-ui --view response --filter gaussian --sigma 4 --order 3", w, h);
  CAPTURE(run.log);
  REQUIRE(run.status == 0);
  REQUIRE(run.shot.width == w);
  FilterSpec s = spec_of(FilterKind::Gaussian, 3, 4.0);
  const ResponseData d = compute_response(s);
  const ResponseLayout l =
      response_layout(d, 0, 0, float(w), float(h), test::font_size_at_scale_1());
  const Rgba8Image& img = run.shot;
  const Recursive f = design(s);
  // Linear gain: the filter (orange) on its curve; where the Gaussian (cyan) is drawn under it,
  // nearly the same.
  for (double omega : {0.05, 0.2, 0.35, 0.5, 1.5, 3.0}) {
    CAPTURE(omega);
    CHECK(
        test::colour_near(img, l.linear.sx(omega), l.linear.sy(response_gain(f, omega)), kOrange));
  }
  // Nothing orange halfway up the plot where the gain is long gone.
  CHECK_FALSE(test::colour_near(img, l.linear.sx(2.0), l.linear.sy(0.5), kOrange, 6));
  // In dB the two part: at w = 1 the Gaussian is near -70 dB, the filter near -45 dB.
  const double db_filter = to_decibels(response_gain(f, 1.0));
  const double db_gauss = to_decibels(gaussian_gain(4.0, 1.0));
  REQUIRE(db_filter - db_gauss > 10);
  CHECK(test::colour_near(img, l.decibel.sx(1.0), l.decibel.sy(db_filter), kOrange));
  CHECK(test::colour_near(img, l.decibel.sx(1.0), l.decibel.sy(db_gauss), kCyan));
  CHECK_FALSE(test::colour_near(img, l.decibel.sx(1.0), l.decibel.sy(db_gauss), kOrange, 2));
  // The impulse response peaks at the centre; the poles sit where the design puts them.
  CHECK(test::colour_near(img, l.impulse.sx(0), l.impulse.sy(d.impulse[d.half]), kOrange));
  CHECK(test::colour_near(img, l.impulse.sx(-3 * 4.0), l.impulse.sy(d.impulse[d.half - 12]),
                          kOrange));
  for (const std::complex<double>& p : d.poles)
    CHECK(test::colour_near(img, l.poles.sx(p.real()), l.poles.sy(p.imag()), kOrange, 2));
  // The unit circle passes through z = i.
  CHECK(test::colour_near(img, l.poles.sx(0), l.poles.sy(1), {200, 200, 205}, 2));
}

TEST_CASE("offscreen: the response view with the panels, and a kind without a response") {
  const test::StudioRun ui =
      test::run_offscreen("response-ui", "--view response --filter bspline3", 1280, 800);
  REQUIRE(ui.status == 0);
  CHECK(test::count_colour(ui.shot, 0, 0, 1280, 800, kOrange) > 300);
  const test::StudioRun edge = test::run_offscreen(
      "response-edge", "--hide-ui --view response --filter edge-aware", 640, 480);
  REQUIRE(edge.status == 0);
  // The message in red, no curve.
  CHECK(test::count_colour(edge.shot, 0, 0, 640, 60, {255, 115, 90}, 40) > 50);
  CHECK(test::count_colour(edge.shot, 0, 0, 640, 480, kOrange, 20) < 20);
}
