#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "app/gui/diff_stats.h"
#include "tests/random_data.h"

using namespace rf;
using namespace rf::gui;

TEST_CASE("diff stats: a hand-computed 3x3 case") {
  // One channel; only the centre pixel is interior for band 1. Differences: 0.1 at (0, 0),
  // 0.2 at the centre, 0 elsewhere.
  Image a(3, 3, 1), b(3, 3, 1);
  for (float& v : a.pixels) v = 0.5f;
  b = a;
  a.at(0, 0) = 0.6f;
  a.at(1, 1) = 0.7f;
  const DiffStats s = diff_stats(a, b, 1, 1);
  CHECK(s.whole.samples == 9);
  CHECK(s.border.samples == 8);
  CHECK(s.interior.samples == 1);
  CHECK(s.whole.max_abs == doctest::Approx(0.2).epsilon(1e-6));
  CHECK(s.border.max_abs == doctest::Approx(0.1).epsilon(1e-6));
  CHECK(s.interior.max_abs == doctest::Approx(0.2).epsilon(1e-6));
  CHECK(s.whole.rmse == doctest::Approx(std::sqrt((0.01 + 0.04) / 9)).epsilon(1e-5));
  CHECK(s.border.rmse == doctest::Approx(std::sqrt(0.01 / 8)).epsilon(1e-5));
  CHECK(s.interior.psnr == doctest::Approx(20 * std::log10(1 / 0.2)).epsilon(1e-5));
}

TEST_CASE("diff stats: band membership on odd sizes, RGB of RGBA") {
  const int cases[][3] = {{1, 1, 1}, {2, 31, 3}, {33, 2, 1}, {257, 131, 12}, {31, 33, 40}};
  for (const auto& c : cases) {
    const int w = c[0], h = c[1], band = c[2];
    const Image a = rf::test::random_image(w, h, 4, 11), b = rf::test::random_image(w, h, 4, 12);
    const DiffStats s = diff_stats(a, b, band);
    std::size_t inner = std::size_t(std::max(0, w - 2 * band)) * std::max(0, h - 2 * band);
    CHECK(s.interior.samples == 3 * inner);
    CHECK(s.border.samples == 3 * (std::size_t(w) * h - inner));
    CHECK(s.whole.samples == 3 * std::size_t(w) * h);
    // Whole = the pooled band and interior.
    const double pooled = (s.border.rmse * s.border.rmse * s.border.samples +
                           s.interior.rmse * s.interior.rmse * s.interior.samples) /
                          double(s.whole.samples);
    CHECK(s.whole.rmse == doctest::Approx(std::sqrt(pooled)).epsilon(1e-9));
    CHECK(s.whole.max_abs == doctest::Approx(std::max(s.border.max_abs, s.interior.max_abs)));
  }
}

TEST_CASE("diff stats: identical images have infinite PSNR; sizes must match") {
  Image a(5, 7, 4);
  for (std::size_t i = 0; i < a.pixels.size(); ++i) a.pixels[i] = float(i % 13) / 13.0f;
  const DiffStats s = diff_stats(a, a, 2);
  CHECK(s.whole.max_abs == 0.0);
  CHECK(std::isinf(s.whole.psnr));
  CHECK_THROWS(diff_stats(a, Image(5, 6, 4), 2));
  CHECK(default_band(4.0) == 12);
  CHECK(default_band(0.1) == 1);
  CHECK(default_band(2.5) == 8);
}
