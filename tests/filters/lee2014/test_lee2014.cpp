// Lee et al. 2014 one-way and two-way partitioned YVRG on the CPU.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/lee2014/lee2014.h"
#include "filters/recursive/reference.h"
#include "filters/truth/truth.h"
#include "tests/filters/lee2014/lee2014_test_util.h"

namespace {

using rf::Image;
using rf::lee2014::Partition;
using rf::test::random_image;

// Beyond this distance from where two boundary conditions differ, the YVRG impulse response
// has decayed below 1e-10: its poles have radius about 1 - 1.2 / q with q ~ sigma, so one e-fold
// takes ~0.85 sigma samples and 1e-10 (23 e-folds) ~20 sigma.
int decay_distance(double sigma) {
  return int(std::ceil(25.0 * sigma)) + 10;
}

std::vector<double> random_line(int n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(n);
  for (double& v : x) v = u(rng);
  return x;
}

// A gray image on [0, 255] with the structure of a photograph: smooth shading, a few hard edges
// and some noise, so PSNR against the FIR Gaussian measures the filters and not white noise.
Image gray_scene(int w, int h, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 12.0);
  const double fx = 2.0 + 4.0 * u(rng), fy = 1.0 + 3.0 * u(rng), phase = 6.28 * u(rng);
  const int ex = int(w * (0.2 + 0.3 * u(rng))), ey = int(h * (0.3 + 0.4 * u(rng)));
  Image img(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double v = 128.0 + 60.0 * std::sin(6.28 * fx * x / w + phase) * std::cos(6.28 * fy * y / h);
      if (x > ex && y < ey) v += 50.0;
      if ((x - w / 2) * (x - w / 2) + (y - h / 3) * (y - h / 3) < (h / 6) * (h / 6)) v -= 70.0;
      img.at(x, y) = float(std::clamp(v + noise(rng), 0.0, 255.0));
    }
  return img;
}

std::vector<double> as_double(const Image& img) {
  return std::vector<double>(img.pixels.begin(), img.pixels.end());
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Eq. (3) and (4) written out with the paper's explicit boundary arrays (Fig. 3, Algorithm 1):
// w[-3..-1] = in[0] and out[n..n+2] = w[n-1], with b0..b3 and B from q as printed in Sec. 2.1.
std::vector<double> paper_one_way(double sigma, const std::vector<double>& in) {
  const auto [q, b0, b1, b2, b3, B] = rf::test::paper_yvrg(sigma);
  const int n = int(in.size());
  std::vector<double> w(n + 3), out(n + 3);
  w[0] = w[1] = w[2] = in[0];
  for (int i = 0; i < n; ++i)
    w[i + 3] = B * in[i] + (b1 * w[i + 2] + b2 * w[i + 1] + b3 * w[i]) / b0;
  out[n] = out[n + 1] = out[n + 2] = w[n + 2];
  for (int i = n - 1; i >= 0; --i)
    out[i] = B * w[i + 3] + (b1 * out[i + 1] + b2 * out[i + 2] + b3 * out[i + 3]) / b0;
  out.resize(n);
  return out;
}

}  // namespace

TEST_CASE("lee2014: coefficients agree with the paper's closed form of q, b0..b3 and B") {
  for (double sigma : {0.5, 1.0, 1.5, 2.4, 2.5, 4.0, 15.0, 45.0, 100.0}) {
    CAPTURE(sigma);
    const auto [q, b0, b1, b2, b3, B] = rf::test::paper_yvrg(sigma);
    const auto k = rf::lee2014::coefficients(sigma);
    // The design derives the coefficients from the factored poles of Young and van Vliet; the
    // paper prints them rounded to 5-6 digits.
    CHECK(k.B == doctest::Approx(B).epsilon(2e-4));
    CHECK(k.c1 == doctest::Approx(b1 / b0).epsilon(2e-4));
    CHECK(k.c2 == doctest::Approx(b2 / b0).epsilon(2e-4));
    CHECK(k.c3 == doctest::Approx(b3 / b0).epsilon(2e-4));
    CHECK(k.B + k.c1 + k.c2 + k.c3 == doctest::Approx(1.0).epsilon(1e-12));
  }
}

TEST_CASE("lee2014: one-way line against eq. (3)-(4) written out with boundary arrays") {
  std::mt19937_64 rng(2014);
  for (double sigma : {0.5, 1.5, 4.0, 15.0})
    for (int n : {1, 2, 3, 4, 7, 31, 33, 257}) {
      CAPTURE(sigma);
      CAPTURE(n);
      const auto x = random_line(n, rng);
      const auto got = rf::lee2014::one_way_line(sigma, x);
      const auto want = paper_one_way(sigma, x);
      REQUIRE(got.size() == want.size());
      // Only the rounding of the paper's printed constants separates the two.
      for (int i = 0; i < n; ++i) CHECK(std::abs(got[i] - want[i]) < 1e-3);
    }
}

TEST_CASE("lee2014: constant lines and images stay constant") {
  for (double sigma : {0.5, 3.0, 45.0})
    for (int n : {1, 2, 5, 64, 101}) {
      const std::vector<double> x(n, 0.75);
      for (double v : rf::lee2014::one_way_line(sigma, x)) CHECK(v == doctest::Approx(0.75));
      for (double v : rf::lee2014::two_way_line(sigma, x)) CHECK(v == doctest::Approx(0.75));
    }
  Image img(37, 21, 4);
  for (float& v : img.pixels) v = -2.5f;
  for (Partition p : {Partition::OneWay, Partition::TwoWay})
    for (float v : rf::lee2014::filter(p, 6.0, img).pixels) CHECK(v == doctest::Approx(-2.5f));
}

TEST_CASE("lee2014: one-way matches the padded sequential reference away from the borders") {
  std::mt19937_64 rng(77);
  for (double sigma : {0.5, 1.5, 4.0, 8.0}) {
    rf::FilterSpec spec;
    spec.kind = rf::FilterKind::Yvrg;
    spec.sigma = sigma;
    const rf::Recursive f = rf::design(spec);
    const int d = decay_distance(sigma);
    for (int n : {2 * d + 1, 2 * d + 257})
      for (rf::Extension ext : {rf::Extension::Zero, rf::Extension::Clamp, rf::Extension::Repeat,
                                rf::Extension::Mirror}) {
        CAPTURE(sigma);
        CAPTURE(n);
        CAPTURE(std::string(rf::to_string(ext)));
        const auto x = random_line(n, rng);
        const auto got = rf::lee2014::one_way_line(sigma, x);
        const auto want = rf::ref::filter_line_padded(f, ext, x);
        double worst = 0.0;
        for (int i = d; i < n - d; ++i) worst = std::max(worst, std::abs(got[i] - want[i]));
        CHECK(worst < 1e-9);
        // Near the borders the paper's duplication is not the extension: the test can tell.
        if (ext == rf::Extension::Zero) CHECK(std::abs(got[0] - want[0]) > 1e-6);
      }
  }
}

TEST_CASE("lee2014: one-way image matches the padded reference away from the borders") {
  std::mt19937_64 rng(5);
  const double sigma = 2.0;
  const int d = decay_distance(sigma), w = 2 * d + 31, h = 2 * d + 9;
  for (int c : {1, 4}) {
    CAPTURE(c);
    const Image img = random_image(w, h, c, rng);
    rf::FilterSpec spec;
    spec.kind = rf::FilterKind::Yvrg;
    spec.sigma = sigma;
    spec.ext = rf::Extension::Mirror;
    const rf::Recursive f = rf::design(spec);
    // Padded reference: rows then columns, line by line.
    std::vector<double> want = as_double(img);
    for (int y = 0; y < h; ++y)
      for (int ch = 0; ch < c; ++ch) {
        std::vector<double> line(w);
        for (int x = 0; x < w; ++x) line[x] = want[(std::size_t(y) * w + x) * c + ch];
        line = rf::ref::filter_line_padded(f, spec.ext, line);
        for (int x = 0; x < w; ++x) want[(std::size_t(y) * w + x) * c + ch] = line[x];
      }
    for (int x = 0; x < w; ++x)
      for (int ch = 0; ch < c; ++ch) {
        std::vector<double> line(h);
        for (int y = 0; y < h; ++y) line[y] = want[(std::size_t(y) * w + x) * c + ch];
        line = rf::ref::filter_line_padded(f, spec.ext, line);
        for (int y = 0; y < h; ++y) want[(std::size_t(y) * w + x) * c + ch] = line[y];
      }
    const auto ref = rf::lee2014::reference(Partition::OneWay, sigma, img);
    const Image fast = rf::lee2014::filter(Partition::OneWay, sigma, img);
    double worst_ref = 0.0, worst_fast = 0.0;
    for (int y = d; y < h - d; ++y)
      for (int x = d; x < w - d; ++x)
        for (int ch = 0; ch < c; ++ch) {
          const std::size_t i = (std::size_t(y) * w + x) * c + ch;
          worst_ref = std::max(worst_ref, std::abs(ref[i] - want[i]));
          worst_fast = std::max(worst_fast, std::abs(double(fast.pixels[i]) - want[i]));
        }
    CHECK(worst_ref < 1e-9);
    CHECK(worst_fast < 2e-6);
  }
}

TEST_CASE("lee2014: float OpenMP path matches the double reference") {
  std::mt19937_64 rng(31);
  const int sizes[][2] = {{1, 1}, {2, 1}, {1, 2}, {2, 3}, {3, 5}, {31, 33}, {257, 131}, {70, 1}};
  for (Partition p : {Partition::OneWay, Partition::TwoWay})
    for (double sigma : {0.5, 1.5, 4.0, 15.0})
      for (const auto& s : sizes)
        for (int c : {1, 3, 4}) {
          CAPTURE(std::string(rf::lee2014::to_string(p)));
          CAPTURE(sigma);
          CAPTURE(s[0]);
          CAPTURE(s[1]);
          CAPTURE(c);
          const Image img = random_image(s[0], s[1], c, rng);
          const auto want = rf::lee2014::reference(p, sigma, img);
          const Image got = rf::lee2014::filter(p, sigma, img);
          double worst = 0.0;
          for (std::size_t i = 0; i < want.size(); ++i)
            worst = std::max(worst, std::abs(double(got.pixels[i]) - want[i]));
          // Float rounding in the feedback grows roughly like 1 / (1 - |pole|)^2 ~ sigma^2.
          CHECK(worst < 1e-6 * (1.0 + sigma * sigma));
        }
}

TEST_CASE("lee2014: two-way differs from one-way only at the centre seams and the borders") {
  std::mt19937_64 rng(11);
  for (double sigma : {1.0, 3.0}) {
    const int d = decay_distance(sigma);
    for (const auto& s : {std::pair<int, int>{4 * d + 3, 4 * d + 1}, {4 * d + 10, 5 * d + 7}})
      for (int c : {1, 4}) {
        const int w = s.first, h = s.second;
        CAPTURE(sigma);
        CAPTURE(w);
        CAPTURE(h);
        CAPTURE(c);
        const Image img = random_image(w, h, c, rng);
        const auto one = rf::lee2014::reference(Partition::OneWay, sigma, img);
        const auto two = rf::lee2014::reference(Partition::TwoWay, sigma, img);
        const int cx = w / 2, cy = h / 2;
        double away = 0.0, seam_x = 0.0, seam_y = 0.0;
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x)
            for (int ch = 0; ch < c; ++ch) {
              const std::size_t i = (std::size_t(y) * w + x) * c + ch;
              const double e = std::abs(one[i] - two[i]);
              // Bl starts exactly like one-way (forward from the left or top edge), so only the
              // right and bottom borders, where Br's passes run in the other order, may differ.
              const bool near_seam_x = std::abs(x - cx) < d, near_seam_y = std::abs(y - cy) < d;
              const bool near_border = x >= w - d || y >= h - d;
              if (!near_seam_x && !near_seam_y && !near_border) away = std::max(away, e);
              if (x == cx && y < h - d && !near_seam_y) seam_x = std::max(seam_x, e);
              if (y == cy && x < w - d && !near_seam_x) seam_y = std::max(seam_y, e);
            }
        CHECK(away < 1e-9);
        // The seams are real: Pc replaces the one-way value at the centre of every line.
        CHECK(seam_x > 1e-4);
        CHECK(seam_y > 1e-4);
      }
  }
}

TEST_CASE("lee2014: PSNR of eq. (5) on a case computed by hand") {
  CHECK(rf::lee2014::psnr({0.0, 0.0, 10.0}, {1.0, -1.0, 10.0}, 255.0) ==
        doctest::Approx(10.0 * std::log10(255.0 * 255.0 / (2.0 / 3.0))));
  CHECK(std::isinf(rf::lee2014::psnr({1.0, 2.0}, {1.0, 2.0}, 255.0)));
  CHECK_THROWS_AS(rf::lee2014::psnr({1.0}, {1.0, 2.0}, 255.0), rf::InvalidParameter);
}

TEST_CASE("lee2014: both reach 25 dB against the FIR Gaussian at windows 3, 30 and 90") {
  std::mt19937_64 rng(512);
  const Image img = gray_scene(320, 240, rng);
  for (double window : {3.0, 30.0, 90.0}) {
    const double sigma = rf::lee2014::sigma_from_window(window);
    rf::FilterSpec spec;
    spec.kind = rf::FilterKind::Yvrg;
    spec.sigma = sigma;
    spec.ext = rf::Extension::Clamp;  // the FIR counterpart of duplicating the edge pixel
    const auto fir = as_double(rf::ground_truth(spec, img));
    const auto one = as_double(rf::lee2014::filter(Partition::OneWay, sigma, img));
    const auto two = as_double(rf::lee2014::filter(Partition::TwoWay, sigma, img));
    CAPTURE(window);
    CHECK(rf::lee2014::psnr(fir, one, 255.0) >= 25.0);
    CHECK(rf::lee2014::psnr(fir, two, 255.0) >= 25.0);
    CHECK(rf::lee2014::psnr(one, two, 255.0) >= 25.0);
    // The float path stays far closer to the double reference than the filters are to the FIR.
    CHECK(rf::lee2014::psnr(rf::lee2014::reference(Partition::OneWay, sigma, img), one, 255.0) >=
          60.0);
    CHECK(rf::lee2014::psnr(rf::lee2014::reference(Partition::TwoWay, sigma, img), two, 255.0) >=
          60.0);
    // And the input itself is far from all of them: the filter does something.
    CHECK(rf::lee2014::psnr(as_double(img), fir, 255.0) < rf::lee2014::psnr(fir, one, 255.0));
  }
}

TEST_CASE("lee2014: the CPU engine runs yvrg one-way and two-way, and refuses other kinds") {
  rf::test::check_engine_runs_lee(rf::Backend::Cpu, [](Partition p, double sigma, const Image& in) {
    return rf::lee2014::filter(p, sigma, in);
  });
}
