// The double-precision references: the numerical experiment of Nehab & Maximo 2016 (section 6),
// 2-D exact-vs-padded filtering, and ground_truth for every kind of filter.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>

#include "filters/core/design.h"
#include "filters/core/errors.h"
#include "filters/core/spec.h"
#include "filters/recursive/reference.h"
#include "filters/truth/truth.h"
#include "tests/filters/recursive/random_filter.h"
#include "tests/random_data.h"

using namespace rf;

namespace {

// A row-major double image filtered line by line with `line` on columns, then rows.
template <typename LineFn>
std::vector<double> filter_2d(const std::vector<double>& img, int w, int h, LineFn&& line) {
  std::vector<double> out = img, buf;
  for (int x = 0; x < w; ++x) {
    buf.resize(h);
    for (int y = 0; y < h; ++y) buf[y] = out[std::size_t(y) * w + x];
    buf = line(buf);
    for (int y = 0; y < h; ++y) out[std::size_t(y) * w + x] = buf[y];
  }
  for (int y = 0; y < h; ++y) {
    buf.assign(out.begin() + std::ptrdiff_t(y) * w, out.begin() + std::ptrdiff_t(y + 1) * w);
    buf = line(buf);
    std::copy(buf.begin(), buf.end(), out.begin() + std::ptrdiff_t(y) * w);
  }
  return out;
}

}  // namespace

TEST_CASE("Nehab & Maximo 2016 numerical experiment: 300 second-order filters, eq. (77)") {
  // Poles rho e^(+-i theta) with rho^(n/2) = eps sin(theta): the impulse response decays to eps
  // after n samples. 300 stratified theta in (0, pi) for each n; lines of 512 samples (the paper's
  // image size) and of 37 samples, much shorter than the decay.
  const double eps = 1e-10;
  std::mt19937_64 rng(2016);
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  double worst = 0.0, worst_abs = 0.0;
  std::map<std::string, double> by_ext;
  for (int n = 32; n <= 4096; n *= 2)
    for (int i = 0; i < 300; ++i) {
      const double theta = M_PI * (i + jitter(rng)) / 300.0;
      const double rho = std::pow(eps * std::sin(theta), 2.0 / n);
      Recursive f;
      f.a = {-2.0 * rho * std::cos(theta), rho * rho};
      f.b0 = 1.0 + f.a[0] + f.a[1];
      for (Extension e : kAllExtensions)
        for (int len : {512, 37}) {
          std::vector<double> x = test::random_line(len, rng);
          for (double& v : x) v = 0.5 * (v + 1.0);  // pixel values in [0, 1]
          const auto exact = ref::filter_line_exact(f, e, x, 0.7);
          const auto truth = ref::filter_line_padded(f, e, x, 0.7);
          const double err = test::relative_error(exact, truth);
          worst = std::max(worst, err);
          worst_abs = std::max(worst_abs, err * test::max_abs(truth));
          by_ext[to_string(e)] = std::max(by_ext[to_string(e)], err);
          INFO(std::string(to_string(e)) << " n=" << n << " theta=" << theta << " len=" << len);
          CHECK(err < 1e-9);
        }
    }
  for (const auto& [ext, err] : by_ext) MESSAGE("300-filter experiment, " << ext << ": " << err);
  MESSAGE("300-filter experiment: worst relative error " << worst << ", worst absolute error "
                                                         << worst_abs);
}

TEST_CASE("2-D exact filtering agrees with padded filtering on 257x131") {
  std::mt19937_64 rng(257131);
  const int w = 257, h = 131;
  std::map<std::string, double> worst;
  for (int r = 1; r <= 5; ++r) {
    const Recursive f = test::random_filter(r, rng);
    const std::vector<double> img = test::random_line(w * h, rng);
    for (Extension e : kAllExtensions) {
      const auto exact = filter_2d(
          img, w, h, [&](const std::vector<double>& x) { return ref::filter_line_exact(f, e, x); });
      const auto padded = filter_2d(img, w, h, [&](const std::vector<double>& x) {
        return ref::filter_line_padded(f, e, x);
      });
      const double err = test::relative_error(exact, padded);
      INFO(std::string(to_string(e)) << " r=" << r);
      CHECK(err < 1e-9);
      MESSAGE("2-D 257x131 exact vs padded, " << std::string(to_string(e)) << " r=" << r << ": "
                                              << err);
    }
  }
}

TEST_CASE("ground truth of a Gaussian is the normalised FIR Gaussian with the extension") {
  std::mt19937_64 rng(4);
  FilterSpec spec;
  spec.kind = FilterKind::Gaussian;
  spec.sigma = 2.0;
  SUBCASE("constant images stay constant except under zero padding") {
    Image img(23, 17, 1);
    for (float& p : img.pixels) p = 0.75f;
    for (Extension e : {Extension::Clamp, Extension::Repeat, Extension::Mirror}) {
      spec.ext = e;
      const Image out = ground_truth(spec, img);
      for (float p : out.pixels) CHECK(p == doctest::Approx(0.75).epsilon(1e-6));
    }
    spec.ext = Extension::Zero;
    const Image out = ground_truth(spec, img);
    CHECK(out.at(0, 0) < 0.75f * 0.5f);
    CHECK(out.at(11, 8) == doctest::Approx(0.75).epsilon(1e-5));
  }
  SUBCASE("one pixel by hand: the sum of the sampled kernel over the extension") {
    // A 1x1 image under mirror (or repeat, or clamp) is a constant; under zero padding the output
    // is the squared centre tap of the normalised kernel.
    Image one(1, 1, 1);
    one.pixels[0] = 2.0f;
    spec.ext = Extension::Mirror;
    CHECK(ground_truth(spec, one).pixels[0] == doctest::Approx(2.0).epsilon(1e-6));
    spec.ext = Extension::Zero;
    double sum = 0.0;
    for (int i = -12; i <= 12; ++i) sum += std::exp(-0.125 * i * i);
    CHECK(ground_truth(spec, one).pixels[0] == doctest::Approx(2.0 / (sum * sum)).epsilon(1e-6));
  }
  SUBCASE("the recursive Gaussians approximate it to within their design error") {
    const Image img = test::random_image(61, 47, 1, rng());
    const std::vector<double> pix(img.pixels.begin(), img.pixels.end());
    for (Extension e : {Extension::Zero, Extension::Clamp, Extension::Repeat, Extension::Mirror})
      for (int r = 1; r <= 5; ++r) {
        spec.ext = e;
        spec.order = r;
        spec.sigma = 3.0;
        const Recursive f = design(spec);
        const Image truth = ground_truth(spec, img);
        const auto rec = filter_2d(pix, img.width, img.height, [&](const std::vector<double>& x) {
          return ref::filter_line_exact(f, e, x);
        });
        double err = 0.0;
        for (std::size_t i = 0; i < rec.size(); ++i)
          err = std::max(err, std::abs(rec[i] - truth.pixels[i]));
        INFO(std::string(to_string(e)) << " r=" << r);
        // Orders 1 and 2 are crude Gaussians; the others are within a few percent of a unit input.
        CHECK(err < (r <= 2 ? 0.2 : 0.03));
      }
  }
}

TEST_CASE("ground truth of the recursive kinds is the padded sequential reference") {
  std::mt19937_64 rng(11);
  const Image img = test::random_image(37, 29, 3, rng());
  SUBCASE("cubic B-spline prefilter: re-convolving with [1 4 1]/6 gives back the input") {
    FilterSpec spec;
    spec.kind = FilterKind::BSpline3;
    // Only for extensions the prefiltered output shares (a symmetric filter keeps periodic and
    // even-periodic signals so); under clamp the coefficients past the edge are not constant.
    for (Extension e : {Extension::Repeat, Extension::Mirror}) {
      spec.ext = e;
      const Image c = ground_truth(spec, img);
      double err = 0.0;
      for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
          for (int ch = 0; ch < 3; ++ch) {
            double acc = 0.0;
            for (int dy = -1; dy <= 1; ++dy)
              for (int dx = -1; dx <= 1; ++dx) {
                const double wy = dy == 0 ? 4.0 / 6 : 1.0 / 6, wx = dx == 0 ? 4.0 / 6 : 1.0 / 6;
                acc += wy * wx *
                       c.at(extend_index(x + dx, img.width, e), extend_index(y + dy, img.height, e),
                            ch);
              }
            err = std::max(err, std::abs(acc - img.at(x, y, ch)));
          }
      INFO(to_string(e));
      CHECK(err < 2e-6);
    }
  }
  SUBCASE("exponential smoother: equal to exact 2-D filtering, channel by channel") {
    FilterSpec spec;
    spec.kind = FilterKind::Exponential;
    spec.pole = -0.7;
    for (Extension e : kAllExtensions) {
      spec.ext = e;
      const Recursive f = design(spec);
      const Image truth = ground_truth(spec, img);
      for (int ch = 0; ch < 3; ++ch) {
        std::vector<double> plane(std::size_t(img.width) * img.height);
        for (std::size_t i = 0; i < plane.size(); ++i) plane[i] = img.pixels[i * 3 + ch];
        const auto rec = filter_2d(plane, img.width, img.height, [&](const std::vector<double>& x) {
          return ref::filter_line_exact(f, e, x);
        });
        double err = 0.0;
        for (std::size_t i = 0; i < rec.size(); ++i)
          err = std::max(err, std::abs(rec[i] - truth.pixels[i * 3 + ch]));
        INFO(std::string(to_string(e)) << " channel " << ch);
        CHECK(err / test::max_abs(rec) < 1e-6);  // float rounding of the stored result
      }
    }
  }
  SUBCASE("summed-area table: running sums from zero") {
    FilterSpec spec;
    spec.kind = FilterKind::Sat;
    spec.ext = Extension::Zero;
    Image small(3, 2, 1);
    small.pixels = {1, 2, 3, 4, 5, 6};
    const Image s = ground_truth(spec, small);
    const std::vector<float> expected = {1, 3, 6, 5, 12, 21};
    for (int i = 0; i < 6; ++i) CHECK(s.pixels[i] == doctest::Approx(expected[i]));
  }
}

TEST_CASE("ground truth of a 1080p RGBA Gaussian: sampled pixels by direct convolution") {
  std::mt19937_64 rng(1080);
  const Image img = test::random_image(1920, 1080, 4, rng());
  FilterSpec spec;
  spec.sigma = 4.0;
  spec.ext = Extension::Mirror;
  const Image out = ground_truth(spec, img);
  REQUIRE(out.width == 1920);
  REQUIRE(out.height == 1080);
  REQUIRE(out.channels == 4);
  // The separable sum over the mirrored image, written out for a few pixels in both corners, on
  // the edges and inside.
  const int radius = int(std::ceil(6.0 * spec.sigma));
  std::vector<double> k(2 * radius + 1);
  double total = 0.0;
  for (int i = -radius; i <= radius; ++i)
    total += k[i + radius] = std::exp(-0.5 * i * i / (spec.sigma * spec.sigma));
  for (double& v : k) v /= total;
  const std::pair<int, int> samples[] = {{0, 0}, {1919, 1079}, {0, 540}, {960, 0}, {777, 333}};
  for (const auto& [x, y] : samples)
    for (int c = 0; c < 4; ++c) {
      double want = 0.0;
      for (int j = -radius; j <= radius; ++j)
        for (int i = -radius; i <= radius; ++i)
          want +=
              k[j + radius] * k[i + radius] *
              img.at(extend_index(x + i, 1920, spec.ext), extend_index(y + j, 1080, spec.ext), c);
      INFO("pixel " << x << "," << y << " channel " << c);
      CHECK(out.at(x, y, c) == doctest::Approx(want).epsilon(1e-6));
    }
}
