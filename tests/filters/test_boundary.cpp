// Exact initial feedbacks (Nehab & Maximo 2016) against explicit padding, for every extension,
// order 1..5 and line lengths down to one sample.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "filters/design.h"
#include "filters/errors.h"
#include "filters/initial_feedback.h"
#include "filters/reference.h"
#include "filters/spec.h"
#include "tests/filters/random_filter.h"

using namespace rf;

namespace {

Recursive first_order(double pole) {
  Recursive f;
  f.a = {-pole};
  f.b0 = 1.0 - pole;
  return f;
}

}  // namespace

TEST_CASE("initial feedbacks of a first-order filter match hand-computed values") {
  const double p = 0.6;
  const Recursive f = first_order(p);
  const double b0 = 1.0 - p;
  SUBCASE("zero: a unit sample decays past the end") {
    // y_k = b0 p^k for k >= 0; z_0 = b0 sum_k p^k y_k = b0^2 / (1 - p^2).
    const auto z = ref::filter_line_exact(f, Extension::Zero, {1.0});
    CHECK(z[0] == doctest::Approx(b0 * b0 / (1 - p * p)).epsilon(1e-14));
    const auto ignore = ref::filter_line_exact(f, Extension::Ignore, {1.0});
    CHECK(ignore[0] == doctest::Approx(b0 * b0).epsilon(1e-14));
  }
  SUBCASE("clamp, repeat and mirror keep a constant line constant") {
    for (Extension e : {Extension::Clamp, Extension::Repeat, Extension::Mirror}) {
      const auto z = ref::filter_line_exact(f, e, {2.5, 2.5, 2.5});
      for (double v : z) CHECK(v == doctest::Approx(2.5).epsilon(1e-14));
    }
  }
  SUBCASE("clamp: the causal feedback is the steady state of x[0]") {
    const BoundaryMaps m = boundary_maps(f, Extension::Clamp, 5);
    CHECK(m.causal_from_x.first == 0);
    CHECK(m.causal_from_x.count == 1);
    CHECK(m.causal_from_x.weight(0, 0) == doctest::Approx(1.0).epsilon(1e-14));
  }
  SUBCASE("repeat on two samples: y[-1] = (b0 x1 + b0 p x0) / (1 - p^2)") {
    const BoundaryMaps m = boundary_maps(f, Extension::Repeat, 2);
    CHECK(m.causal_from_x.weight(0, 1) == doctest::Approx(b0 / (1 - p * p)).epsilon(1e-14));
    CHECK(m.causal_from_x.weight(0, 0) == doctest::Approx(b0 * p / (1 - p * p)).epsilon(1e-14));
  }
}

TEST_CASE("exact initial feedbacks agree with explicit padding within 1e-9") {
  std::mt19937_64 rng(20161);
  std::map<std::string, double> worst;
  const int sizes[] = {1, 2, 3, 31, 32, 33, 257};
  for (int r = 1; r <= 5; ++r)
    for (int trial = 0; trial < 12; ++trial) {
      const Recursive f = test::random_filter(r, rng);
      for (Extension e : kAllExtensions)
        for (int n : sizes) {
          const auto x = test::random_line(n, rng);
          const double err = test::relative_error(ref::filter_line_exact(f, e, x),
                                                  ref::filter_line_padded(f, e, x));
          const std::string key = std::string(to_string(e)) + " r=" + std::to_string(r);
          worst[key] = std::max(worst[key], err);
          INFO(key << " n=" << n << " trial=" << trial);
          CHECK(err < 1e-9);
        }
    }
  for (const auto& [key, err] : worst) MESSAGE("exact vs padded, " << key << ": " << err);
}

TEST_CASE("exact initial feedbacks hold for poles close to the unit circle") {
  // Slow decay with n far below the decay length: repeat and mirror wrap hundreds of times.
  std::mt19937_64 rng(77);
  for (int r = 1; r <= 5; ++r) {
    const Recursive f = test::random_filter(r, rng, 0.995);
    for (Extension e : kAllExtensions)
      for (int n : {1, 4, 37}) {
        const auto x = test::random_line(n, rng);
        INFO(std::string(to_string(e)) << " r=" << r << " n=" << n);
        CHECK(test::relative_error(ref::filter_line_exact(f, e, x),
                                   ref::filter_line_padded(f, e, x)) < 1e-9);
      }
  }
}

TEST_CASE("boundary maps keep only the columns that matter") {
  const Recursive f = first_order(0.5);
  const int n = 4096;
  const BoundaryMaps zero = boundary_maps(f, Extension::Zero, n);
  CHECK(zero.causal_from_x.count == 0);
  CHECK(zero.anticausal_from_x.count == 0);
  CHECK(zero.anticausal_from_y.first == n - 1);
  const BoundaryMaps rep = boundary_maps(f, Extension::Repeat, n);
  // 0.5^k drops below 1e-17 after 57 samples.
  CHECK(rep.causal_from_x.first + rep.causal_from_x.count == n);
  CHECK(rep.causal_from_x.count <= 60);
  CHECK(rep.anticausal_from_y.first == 0);
  CHECK(rep.anticausal_from_y.count <= 60);
  const BoundaryMaps mir = boundary_maps(f, Extension::Mirror, n);
  CHECK(mir.causal_from_x.first == 0);
  CHECK(mir.causal_from_x.count <= 60);
  CHECK(mir.anticausal_from_y.first == n - 1);
}

TEST_CASE("boundary maps refuse what they cannot build") {
  Recursive sat;
  sat.a = {-1.0};
  CHECK_THROWS_AS(boundary_maps(sat, Extension::Clamp, 8), InvalidParameter);
  CHECK_THROWS_AS(boundary_maps(first_order(0.3), Extension::Zero, 0), InvalidParameter);
  CHECK_NOTHROW(boundary_maps(sat, Extension::Ignore, 8));
}

TEST_CASE("boundary maps for n = 4096, r = 5 take well under a millisecond") {
  std::mt19937_64 rng(5);
  const Recursive f = test::random_filter(5, rng, 0.95);
  for (Extension e : kAllExtensions) {
    const int reps = 20;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) (void)boundary_maps(f, e, 4096);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
        reps;
    MESSAGE("boundary_maps(" << std::string(to_string(e)) << ", n=4096, r=5): " << ms << " ms");
    // Generous bound: the machine running the tests may be shared.
    CHECK(ms < 5.0);
  }
}

TEST_CASE("exact initial feedbacks of the shipped Gaussian designs agree with padding") {
  // High orders at large sigma have clustered poles near 1: the feedback maps then carry weights
  // ~1e4 times the feedbacks they produce, and rounding those weights to double costs digits that
  // the anticausal recursion amplifies. The bounds below are what double weights allow.
  std::mt19937_64 rng(1998);
  struct Case {
    int order;
    double sigma, tolerance;
  };
  const Case cases[] = {{1, 0.8, 1e-9}, {1, 4, 1e-9},  {1, 25, 1e-9}, {1, 100, 1e-9},
                        {2, 0.8, 1e-9}, {2, 4, 1e-9},  {2, 25, 1e-9}, {2, 100, 1e-9},
                        {3, 0.8, 1e-9}, {3, 4, 1e-9},  {3, 25, 1e-9}, {3, 100, 1e-8},
                        {4, 0.8, 1e-9}, {4, 4, 1e-9},  {4, 25, 1e-8}, {5, 0.8, 1e-9},
                        {5, 4, 1e-9},   {5, 10, 1e-8}, {5, 25, 2e-6}};
  for (const Case& c : cases) {
    FilterSpec spec;
    spec.kind = FilterKind::Gaussian;
    spec.order = c.order;
    spec.sigma = c.sigma;
    const Recursive f = design(spec);
    double worst = 0.0;
    for (Extension e : kAllExtensions)
      for (int n : {1, 2, 3, 31, 32, 33, 257}) {
        const auto x = test::random_line(n, rng);
        const double err =
            test::relative_error(ref::filter_line_exact(f, e, x), ref::filter_line_padded(f, e, x));
        worst = std::max(worst, err);
        INFO(std::string(to_string(e)) << " r=" << c.order << " sigma=" << c.sigma << " n=" << n);
        CHECK(err < c.tolerance);
      }
    MESSAGE("gaussian r=" << c.order << " sigma=" << c.sigma << ": worst exact vs padded "
                          << worst);
  }
}

TEST_CASE("the padded reference refuses extensions of filters that do not decay") {
  Recursive sat;
  sat.a = {-1.0};
  sat.causal_only = true;
  const std::vector<double> x = {1.0, 2.0, 3.0};
  CHECK_THROWS_AS(ref::filter_line_padded(sat, Extension::Mirror, x), InvalidParameter);
  CHECK(ref::filter_line_padded(sat, Extension::Zero, x)[2] == 6.0);
}
