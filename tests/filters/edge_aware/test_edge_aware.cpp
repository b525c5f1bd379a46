#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/edge_aware/edge_aware.h"
#include "filters/edge_aware/edge_aware_math.h"
#include "tests/filters/edge_aware/edge_aware_test_util.h"

using namespace rf;

namespace {

using test::cartoon_image;
using test::edge_spec;
using test::max_abs_diff;
using test::run_cpu;

Image random_image(int w, int h, int c, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Image img(w, h, c);
  for (float& v : img.pixels) v = u(rng);
  return img;
}

double mse(const Image& a, const Image& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.pixels.size(); ++i) {
    const double d = double(a.pixels[i]) - double(b.pixels[i]);
    s += d * d;
  }
  return s / double(a.pixels.size());
}

constexpr double kInf = std::numeric_limits<double>::infinity();
const Algorithm kAllAlgorithms[] = {Algorithm::EdgeA, Algorithm::EdgeC, Algorithm::EdgeD,
                                    Algorithm::EdgeExact};

// The uniform (dt = 1) impulse response of one pass, h[m] = Re sum_i a_i b_i^|m| (the causal part
// holds m >= 0, the anticausal part m >= 1).
double deriche_tap(const edge::Poles<double>& poles, int m) {
  double v = 0.0;
  for (const auto& p : poles.p) {
    const std::complex<double> a(p.a.re, p.a.im), b(p.b.re, p.b.im);
    v += (a * std::pow(b, double(std::abs(m)))).real();
  }
  return v;
}

// ||h - g||_1 between one pass's impulse response and the unit-sum sampled Gaussian of sigma.
double deriche_l1_error(double sigma) {
  const edge::Poles<double> poles = edge::design_poles(sigma);
  const int radius = int(std::ceil(12.0 * sigma)) + 8;
  double norm = 0.0;
  for (int m = -radius; m <= radius; ++m) norm += std::exp(-0.5 * m * m / (sigma * sigma));
  double err = 0.0;
  for (int m = -radius; m <= radius; ++m)
    err += std::abs(deriche_tap(poles, m) - std::exp(-0.5 * m * m / (sigma * sigma)) / norm);
  return err;
}

// Separable FIR Gaussian in double with constant (clamp) extension, truncated at 8 sigma.
Image fir_gaussian(const Image& in, double sigma) {
  const int r = int(std::ceil(8.0 * sigma));
  std::vector<double> k(2 * r + 1);
  double sum = 0.0;
  for (int m = -r; m <= r; ++m) sum += k[m + r] = std::exp(-0.5 * m * m / (sigma * sigma));
  for (double& v : k) v /= sum;
  const int w = in.width, h = in.height, c = in.channels;
  std::vector<double> tmp(in.pixels.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int ch = 0; ch < c; ++ch) {
        double acc = 0.0;
        for (int m = -r; m <= r; ++m) acc += k[m + r] * in.at(std::clamp(x - m, 0, w - 1), y, ch);
        tmp[(std::size_t(y) * w + x) * c + ch] = acc;
      }
  Image out(w, h, c);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int ch = 0; ch < c; ++ch) {
        double acc = 0.0;
        for (int m = -r; m <= r; ++m)
          acc += k[m + r] * tmp[(std::size_t(std::clamp(y - m, 0, h - 1)) * w + x) * c + ch];
        out.at(x, y, ch) = float(acc);
      }
  return out;
}

struct Size {
  int w, h;
};
const Size kOddSizes[] = {{1, 1}, {1, 7}, {9, 1}, {31, 33}, {257, 131}};

}  // namespace

TEST_CASE("edge-aware: the appendix constants fit a unit-height Gaussian") {
  // Eq. (3) with sigma = 1: u+(x) = Re{alpha0 e^{-lambda0 x} + alpha1 e^{-lambda1 x}}.
  const std::complex<double> alpha0(edge::kAlpha0Re, edge::kAlpha0Im),
      alpha1(edge::kAlpha1Re, edge::kAlpha1Im), lambda0(edge::kLambda0Re, edge::kLambda0Im),
      lambda1(edge::kLambda1Re, edge::kLambda1Im);
  double worst = 0.0;
  for (double x = 0.0; x <= 6.0; x += 0.01) {
    const double u = (alpha0 * std::exp(-lambda0 * x) + alpha1 * std::exp(-lambda1 * x)).real();
    worst = std::max(worst, std::abs(u - std::exp(-0.5 * x * x)));
  }
  CHECK(worst < 2e-3);
  const double slope0 = (-alpha0 * lambda0 - alpha1 * lambda1).real();
  CHECK(std::abs(slope0) < 0.05);

  // gamma normalises the uniform impulse response to unit sum: a constant stays constant.
  for (double sigma : {0.7, 3.0, 44.7}) {
    const edge::Poles<double> poles = edge::design_poles(sigma);
    double steady = 0.0;
    for (const auto& p : poles.p) steady += p.steady_causal.re + p.steady_anticausal.re;
    CHECK(steady == doctest::Approx(1.0).epsilon(1e-12));
  }
}

TEST_CASE("edge-aware: iteration sigmas add up to sigma") {
  for (int n : {1, 2, 3, 5}) {
    double var = 0.0;
    for (int i = 1; i <= n; ++i) var += std::pow(edge::iteration_sigma(10.0, i, n), 2);
    CHECK(var == doctest::Approx(100.0).epsilon(1e-12));
    if (n > 1)
      CHECK(edge::iteration_sigma(10.0, 2, n) ==
            doctest::Approx(0.5 * edge::iteration_sigma(10.0, 1, n)).epsilon(1e-12));
  }
}

TEST_CASE("edge-aware: reference on a uniform line is the clamped Deriche convolution") {
  // One row, sigma_r infinite: dt = 1, every Phi vanishes, and one iteration is the discrete
  // convolution with h[m] over a constant extension; the column pass of a one-row image is the
  // identity.
  const int n = 31;
  const double sigma = 3.0;
  const Image in = random_image(n, 1, 1, 11);
  const Image out = edge_aware_reference(edge_spec(sigma, kInf, 1, Algorithm::EdgeA), in);
  const edge::Poles<double> poles = edge::design_poles(sigma);
  double worst = 0.0;
  for (int k = 0; k < n; ++k) {
    double expect = 0.0;
    for (int m = -400; m <= 400; ++m)
      expect += deriche_tap(poles, m) * in.at(std::clamp(k - m, 0, n - 1), 0);
    worst = std::max(worst, std::abs(expect - out.at(k, 0)));
  }
  CHECK(worst < 1e-6);
}

TEST_CASE("edge-aware: a hard edge decouples its two sides") {
  // sigma_r tiny: dt across the step is huge, b^dt vanishes and each side filters as if the other
  // did not exist; both sides are constant, so nothing changes but for the Phi term's
  // (b^dt - 1) / (r0 dt) f[j], which decays as 1 / dt (about 1e-6 here).
  Image in(40, 3, 3);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 40; ++x)
      for (int c = 0; c < 3; ++c) in.at(x, y, c) = x < 17 ? 0.25f + 0.1f * c : 0.75f - 0.1f * c;
  const FilterSpec ref_spec = edge_spec(6.0, 1e-6, 2, Algorithm::EdgeA);
  CHECK(max_abs_diff(edge_aware_reference(ref_spec, in), in) < 2e-6);
  for (Algorithm a : kAllAlgorithms) {
    CAPTURE(to_string(a));
    CHECK(max_abs_diff(run_cpu(edge_spec(6.0, 1e-6, 2, a, 0.5), in), in) < 1e-5);
  }
}

TEST_CASE("edge-aware: a constant image is unchanged") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int c : {1, 3, 4})
    for (Algorithm a : kAllAlgorithms)
      for (double kappa : {0.0, 1.5}) {
        Image in(37, 70, c);
        float colour[4] = {u(rng), u(rng), u(rng), u(rng)};
        for (std::size_t i = 0; i < in.pixels.size(); ++i) in.pixels[i] = colour[i % c];
        CAPTURE(c);
        CAPTURE(to_string(a));
        CAPTURE(kappa);
        CHECK(max_abs_diff(run_cpu(edge_spec(20.0, 0.2, 2, a, kappa), in), in) < 2e-5);
      }
}

TEST_CASE("edge-aware: Algorithm A in float matches the double reference") {
  // Float rounding enters each recursion step; with |b| up to about 0.96 (sigma_i near 45) the
  // state carries it over a few dozen samples, hence 2e-4 on data in [0, 1].
  struct Case {
    double sigma, sigma_r;
    int iterations;
  };
  const Case cases[] = {{3.0, 0.1, 1}, {12.0, 0.25, 2}, {50.0, 50.0 / 255.0, 2}, {7.0, kInf, 3}};
  for (Size s : kOddSizes)
    for (int c : {1, 3, 4})
      for (const Case& k : cases) {
        const Image in = random_image(s.w, s.h, c, unsigned(s.w * 131 + s.h * 7 + c));
        const FilterSpec spec = edge_spec(k.sigma, k.sigma_r, k.iterations, Algorithm::EdgeA);
        CAPTURE(s.w);
        CAPTURE(s.h);
        CAPTURE(c);
        CAPTURE(k.sigma);
        CAPTURE(k.sigma_r);
        CHECK(max_abs_diff(run_cpu(spec, in), edge_aware_reference(spec, in)) < 2e-4);
      }
}

// On the CPU the exact variant runs whole lines, Algorithm A's recursion: the same result. Its
// segments and their scan run on the CUDA backend, whose tests hold them to the CPU's A.
TEST_CASE("edge-aware: the exact variant equals Algorithm A") {
  const Size sizes[] = {{1, 1}, {63, 65}, {64, 128}, {257, 131}, {300, 17}};
  for (Size s : sizes)
    for (int c : {1, 3, 4})
      for (double sigma_r : {0.05, 0.3, kInf}) {
        const Image in = cartoon_image(s.w, s.h, c, unsigned(s.w + 17 * s.h + c));
        const Image a = run_cpu(edge_spec(40.0, sigma_r, 2, Algorithm::EdgeA), in);
        const Image x = run_cpu(edge_spec(40.0, sigma_r, 2, Algorithm::EdgeExact), in);
        double peak = 0.0;
        for (float v : a.pixels) peak = std::max(peak, double(std::abs(v)));
        CAPTURE(s.w);
        CAPTURE(s.h);
        CAPTURE(c);
        CAPTURE(sigma_r);
        CHECK(max_abs_diff(a, x) <= 1e-6 * peak);
      }
  // Auto means the exact variant.
  const Image in = random_image(70, 45, 3, 3);
  CHECK(max_abs_diff(run_cpu(edge_spec(9.0, 0.2, 2, Algorithm::Auto), in),
                     run_cpu(edge_spec(9.0, 0.2, 2, Algorithm::EdgeExact), in)) == 0.0);
}

TEST_CASE("edge-aware: C and D approach A as kappa grows, C never worse than D") {
  const double kappas[] = {0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0};
  struct Case {
    double sigma, sigma_r;
  };
  for (Case k : {Case{20.0, 0.2}, Case{50.0, 50.0 / 255.0}, Case{10.0, 1.0}})
    for (int c : {1, 3}) {
      const Image in = cartoon_image(211, 173, c, unsigned(k.sigma * 10 + c));
      const Image a = run_cpu(edge_spec(k.sigma, k.sigma_r, 2, Algorithm::EdgeA), in);
      double prev_c = 1e30, prev_d = 1e30;
      for (double kappa : kappas) {
        const double mc =
            mse(run_cpu(edge_spec(k.sigma, k.sigma_r, 2, Algorithm::EdgeC, kappa), in), a);
        const double md =
            mse(run_cpu(edge_spec(k.sigma, k.sigma_r, 2, Algorithm::EdgeD, kappa), in), a);
        CAPTURE(k.sigma);
        CAPTURE(k.sigma_r);
        CAPTURE(c);
        CAPTURE(kappa);
        CAPTURE(mc);
        CAPTURE(md);
        CHECK(mc <= md * 1.0001 + 1e-14);
        CHECK(mc <= prev_c * 1.0001 + 1e-14);
        CHECK(md <= prev_d * 1.0001 + 1e-14);
        prev_c = mc;
        prev_d = md;
      }
      // kappa = 0 shows the block artifacts; kappa = 3 makes them negligible.
      const double d0 =
          mse(run_cpu(edge_spec(k.sigma, k.sigma_r, 2, Algorithm::EdgeD, 0.0), in), a);
      CHECK(d0 > 1e-5);
      CHECK(prev_d < 1e-3 * d0);
    }
}

TEST_CASE("edge-aware: a noisy step edge stays sharp where a plain Gaussian blurs it") {
  const int w = 96, h = 64;
  std::mt19937 rng(21);
  std::normal_distribution<float> noise(0.0f, 0.02f);
  Image in(w, h, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) in.at(x, y, c) = (x < w / 2 ? 0.2f : 0.8f) + noise(rng);
  auto column_mean = [&](const Image& img, int x) {
    double s = 0.0;
    for (int y = 0; y < h; ++y)
      for (int c = 0; c < 3; ++c) s += img.at(x, y, c);
    return s / (3.0 * h);
  };
  auto side_stddev = [&](const Image& img, int x0, int x1, double mean) {
    double s = 0.0;
    for (int y = 0; y < h; ++y)
      for (int x = x0; x < x1; ++x)
        for (int c = 0; c < 3; ++c) s += (img.at(x, y, c) - mean) * (img.at(x, y, c) - mean);
    return std::sqrt(s / (3.0 * h * (x1 - x0)));
  };
  const double sigma = 8.0;
  for (Algorithm a : kAllAlgorithms) {
    CAPTURE(to_string(a));
    const Image edge = run_cpu(edge_spec(sigma, 0.25, 2, a), in);
    const Image plain = run_cpu(edge_spec(sigma, kInf, 2, a), in);
    // Both sides keep their means right up to the edge, and most of the step is kept between two
    // adjacent pixels. (The linear interpolation between samples in the transformed domain that
    // eq. (4) integrates lets about a tenth of the step through.)
    const double left = column_mean(edge, w / 2 - 1), right = column_mean(edge, w / 2);
    CHECK(std::abs(left - 0.2) < 0.1);
    CHECK(std::abs(right - 0.8) < 0.1);
    CHECK(right - left > 0.4);
    // The noise is smoothed away from the edge.
    const double inner = column_mean(edge, w / 4);
    CHECK(side_stddev(edge, 8, w / 2 - 16, inner) < 0.25 * side_stddev(in, 8, w / 2 - 16, 0.2));
    // The plain Gaussian of the same sigma mixes the two sides at the edge.
    CHECK(std::abs(column_mean(plain, w / 2 - 1) - 0.5) < 0.1);
    CHECK(std::abs(column_mean(plain, w / 2) - 0.5) < 0.1);
    CHECK(column_mean(plain, w / 2) - column_mean(plain, w / 2 - 1) < 0.1);
  }
}

TEST_CASE("edge-aware: with sigma_r infinite the result is a Gaussian blur of sigma") {
  // Away from the borders the filter is the 2N-fold composition of one-dimensional Deriche passes
  // of sigma_i, and the sigma_i^2 add up to sigma^2. Each pass differs from the sampled Gaussian by
  // ||h - g||_1 (the Deriche approximation error), so on data in [0, 1] the difference from the FIR
  // Gaussian is at most the sum of these over the passes, plus the small error of composing
  // sampled Gaussians, for which 1e-4 is allowed.
  const int iterations = 2;
  for (double sigma : {3.0, 6.0}) {
    double bound = 1e-4;
    for (int i = 1; i <= iterations; ++i)
      bound += 2.0 * deriche_l1_error(edge::iteration_sigma(sigma, i, iterations));
    const Image in = random_image(121, 103, 1, unsigned(sigma));
    const Image truth = fir_gaussian(in, sigma);
    const int margin = int(std::ceil(5.0 * sigma));
    for (Algorithm a : {Algorithm::EdgeA, Algorithm::EdgeExact}) {
      const Image out = run_cpu(edge_spec(sigma, kInf, iterations, a), in);
      double worst = 0.0;
      for (int y = margin; y < in.height - margin; ++y)
        for (int x = margin; x < in.width - margin; ++x)
          worst = std::max(worst, std::abs(double(out.at(x, y)) - truth.at(x, y)));
      CAPTURE(sigma);
      CAPTURE(to_string(a));
      CAPTURE(bound);
      CHECK(worst <= bound);
      MESSAGE("sigma " << sigma << ": max |edge-aware(sigma_r = inf) - FIR| = " << worst
                       << " (bound " << bound << ")");
    }
  }
}

TEST_CASE("edge-aware: filtering in place gives the same result") {
  const Image in = cartoon_image(45, 38, 4, 9);
  for (Algorithm a : kAllAlgorithms) {
    const FilterSpec spec = edge_spec(15.0, 0.3, 3, a, 1.0);
    cpu::EdgeAwarePlan plan(spec, in.width, in.height, in.channels);
    Image io = in;
    plan.run(io.pixels.data(), io.pixels.data());
    CHECK(max_abs_diff(io, run_cpu(spec, in)) == 0.0);
  }
}

TEST_CASE("edge-aware: bad parameters are rejected with a message") {
  CHECK_THROWS_AS(cpu::EdgeAwarePlan(edge_spec(0.0, 0.2, 2, Algorithm::EdgeA), 8, 8, 3),
                  InvalidParameter);
  CHECK_THROWS_AS(cpu::EdgeAwarePlan(edge_spec(5.0, 0.0, 2, Algorithm::EdgeA), 8, 8, 3),
                  InvalidParameter);
  CHECK_THROWS_AS(cpu::EdgeAwarePlan(edge_spec(5.0, 0.2, 0, Algorithm::EdgeA), 8, 8, 3),
                  InvalidParameter);
  CHECK_THROWS_AS(cpu::EdgeAwarePlan(edge_spec(5.0, 0.2, 2, Algorithm::EdgeC, -1.0), 8, 8, 3),
                  InvalidParameter);
  CHECK_THROWS_AS(cpu::EdgeAwarePlan(edge_spec(5.0, 0.2, 2, Algorithm::EdgeA), 8, 8, 2),
                  InvalidParameter);
  CHECK_THROWS_AS(cpu::EdgeAwarePlan(edge_spec(5.0, 0.2, 2, Algorithm::Alg5), 8, 8, 3),
                  InvalidParameter);
  CHECK_THROWS_AS(edge_aware_reference(edge_spec(5.0, 0.2, 2, Algorithm::EdgeA), Image(0, 0, 3)),
                  InvalidParameter);
}

TEST_CASE("edge-aware: the CPU engine filters with the plan") {
  // filter_image pads RGB to RGBA; alpha does not enter eq. (2), so the colours are unchanged.
  const Image in = cartoon_image(53, 41, 3, 4);
  for (Algorithm a : kAllAlgorithms) {
    const FilterSpec spec = edge_spec(12.0, 0.2, 2, a, 1.0);
    CAPTURE(to_string(a));
    CHECK(max_abs_diff(filter_image(spec, in, Backend::Cpu), run_cpu(spec, in)) == 0.0);
  }
}
