// The CPU fully overlapped block-parallel algorithm against the sequential double reference.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>

#include "filters/core/design.h"
#include "filters/core/errors.h"
#include "filters/core/spec.h"
#include "filters/recursive/initial_feedback.h"
#include "filters/recursive/overlapped_cpu.h"
#include "filters/recursive/reference.h"
#include "tests/filters/recursive/random_filter.h"

using namespace rf;

namespace {

// Columns (down, up) then rows (right, left) with the exact sequential reference, in double.
std::vector<double> reference_2d(const Recursive& f, Extension e, const std::vector<float>& img,
                                 int w, int h) {
  std::vector<double> out(img.begin(), img.end()), line;
  for (int x = 0; x < w; ++x) {
    line.resize(h);
    for (int y = 0; y < h; ++y) line[y] = out[std::size_t(y) * w + x];
    line = ref::filter_line_exact(f, e, line);
    for (int y = 0; y < h; ++y) out[std::size_t(y) * w + x] = line[y];
  }
  for (int y = 0; y < h; ++y) {
    line.assign(out.begin() + std::ptrdiff_t(y) * w, out.begin() + std::ptrdiff_t(y + 1) * w);
    line = ref::filter_line_exact(f, e, line);
    std::copy(line.begin(), line.end(), out.begin() + std::ptrdiff_t(y) * w);
  }
  return out;
}

std::vector<float> random_image(int w, int h, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> img(std::size_t(w) * h);
  for (float& p : img) p = u(rng);
  return img;
}

// The filter the float code actually runs: its coefficients rounded to float. High-order Gaussians
// have b0 ~ 1e-2 against coefficients ~ 3, so that rounding alone moves the output by ~1e-5; the
// reference uses the same coefficients so that the comparison measures the algorithm.
Recursive as_float(Recursive f) {
  f.b0 = double(float(f.b0));
  for (double& a : f.a) a = double(float(a));
  return f;
}

// One line in float: the exact feedbacks from the boundary maps (evaluated in double, rounded),
// then the float recursions. The error of the best sequential float code, for comparison.
void sequential_float_line(const Recursive& f, const BoundaryMaps& maps, float* v, int n,
                           int stride) {
  const int r = f.order();
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = v[i * stride];
  std::vector<float> w(r, 0.0f);
  for (int k = 0; k < r; ++k)
    for (int j = maps.causal_from_x.first; j < maps.causal_from_x.first + maps.causal_from_x.count;
         ++j)
      w[k] += float(maps.causal_from_x.weight(k, j) * x[j]);
  auto step = [&](float in) {
    float out = float(f.b0) * in;
    for (int k = 0; k < r; ++k) out -= float(f.a[k]) * w[k];
    for (int k = r - 1; k > 0; --k) w[k] = w[k - 1];
    return w[0] = out;
  };
  for (int i = 0; i < n; ++i) v[i * stride] = step(v[i * stride]);
  if (f.causal_only) return;
  std::vector<double> e(r, 0.0);
  for (int k = 0; k < r; ++k) {
    const auto& my = maps.anticausal_from_y;
    for (int j = my.first; j < my.first + my.count; ++j) e[k] += my.weight(k, j) * v[j * stride];
    const auto& mx = maps.anticausal_from_x;
    for (int j = mx.first; j < mx.first + mx.count; ++j) e[k] += mx.weight(k, j) * x[j];
  }
  for (int k = 0; k < r; ++k) w[k] = float(e[k]);
  for (int i = n - 1; i >= 0; --i) v[i * stride] = step(v[i * stride]);
}

struct Errors {
  double block = 0.0;       // block-parallel float vs double reference
  double sequential = 0.0;  // sequential float vs double reference
};

// max |out - ref| / max |ref| for the block-parallel and the sequential float code.
Errors float_errors(const Recursive& f, Extension e, int w, int h, std::mt19937_64& rng) {
  const auto img = random_image(w, h, rng);
  const auto ref = reference_2d(as_float(f), e, img, w, h);
  std::vector<float> out(img.size());
  cpu::OverlappedPlan(f, e, w, h).run(img.data(), out.data());
  std::vector<float> seq = img;
  const BoundaryMaps cols = boundary_maps(as_float(f), e, h),
                     rows = boundary_maps(as_float(f), e, w);
  for (int x = 0; x < w; ++x) sequential_float_line(f, cols, seq.data() + x, h, w);
  for (int y = 0; y < h; ++y) sequential_float_line(f, rows, seq.data() + std::size_t(y) * w, w, 1);
  Errors err;
  double peak = 0.0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    err.block = std::max(err.block, std::abs(double(out[i]) - ref[i]));
    err.sequential = std::max(err.sequential, std::abs(double(seq[i]) - ref[i]));
    peak = std::max(peak, std::abs(ref[i]));
  }
  err.block /= std::max(peak, 1e-30);
  err.sequential /= std::max(peak, 1e-30);
  return err;
}

double block_parallel_error(const Recursive& f, Extension e, int w, int h, std::mt19937_64& rng) {
  return float_errors(f, e, w, h, rng).block;
}

// The double-precision variant against the reference with the unrounded coefficients.
double double_block_error(const Recursive& f, Extension e, int w, int h, std::mt19937_64& rng) {
  const auto img = random_image(w, h, rng);
  const auto ref = reference_2d(f, e, img, w, h);
  std::vector<float> out(img.size());
  cpu::OverlappedPlan(f, e, w, h, cpu::OverlappedPlan::Precision::Double)
      .run(img.data(), out.data());
  double err = 0.0, peak = 0.0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    err = std::max(err, std::abs(double(out[i]) - ref[i]));
    peak = std::max(peak, std::abs(ref[i]));
  }
  return err / std::max(peak, 1e-30);
}

const std::pair<int, int> kSizes[] = {{1, 1},  {2, 2},  {31, 33}, {32, 32},  {33, 31},
                                      {1, 40}, {70, 3}, {64, 96}, {257, 131}};

}  // namespace

TEST_CASE("overlapped block-parallel filtering equals the sequential reference (random filters)") {
  std::mt19937_64 rng(5);
  std::map<std::string, double> worst;
  double overall = 0.0;
  for (int r = 1; r <= 5; ++r) {
    const Recursive f = test::random_filter(r, rng, 0.8);
    for (Extension e : kAllExtensions)
      for (auto [w, h] : kSizes) {
        const double err = block_parallel_error(f, e, w, h, rng);
        const std::string key = std::string(to_string(e)) + " r=" + std::to_string(r);
        worst[key] = std::max(worst[key], err);
        overall = std::max(overall, err);
        INFO(key << " " << w << "x" << h);
        CHECK(err < 1e-5);
      }
  }
  for (const auto& [key, err] : worst)
    MESSAGE("block-parallel vs sequential, " << key << ": " << err);
  MESSAGE("block-parallel vs sequential, random filters: worst " << overall);
}

TEST_CASE("overlapped block-parallel filtering of the shipped designs") {
  // High-order Gaussians in float direct form lose digits even sequentially (r = 5, sigma = 4:
  // ~3e-5 in 2-D), and the block algorithm, whose carries combine terms that cancel, loses up to
  // ~10x more (carries in double do not change that: the loss is in the float recursions over the
  // blocks). The bound is 1e-5 or 12 times the sequential float error.
  std::mt19937_64 rng(6);
  double worst_block = 0.0, worst_ratio = 0.0;
  for (int r = 1; r <= 5; ++r)
    for (double sigma : {1.0, 4.0}) {
      FilterSpec spec;
      spec.order = r;
      spec.sigma = sigma;
      const Recursive f = design(spec);
      for (Extension e : kAllExtensions)
        for (auto [w, h] : {std::pair{33, 31}, std::pair{257, 131}}) {
          const Errors err = float_errors(f, e, w, h, rng);
          worst_block = std::max(worst_block, err.block);
          worst_ratio = std::max(worst_ratio, err.block / err.sequential);
          INFO(std::string(to_string(e))
               << " gaussian r=" << r << " sigma=" << sigma << " " << w << "x" << h
               << ": sequential float error " << err.sequential);
          CHECK(err.block < std::max(1e-5, 12.0 * err.sequential));
        }
    }
  for (FilterKind k : {FilterKind::BSpline3, FilterKind::BSpline5, FilterKind::BSpline7}) {
    FilterSpec spec;
    spec.kind = k;
    const Recursive f = design(spec);
    for (Extension e : kAllExtensions) {
      const double err = block_parallel_error(f, e, 65, 47, rng);
      worst_block = std::max(worst_block, err);
      INFO(std::string(to_string(e)) << " " << to_string(k));
      CHECK(err < 1e-5);
    }
  }
  MESSAGE("block-parallel vs sequential double, shipped designs: worst "
          << worst_block << "; worst ratio to the sequential float error " << worst_ratio);
}

TEST_CASE(
    "overlapped block-parallel filtering in double matches the reference to output rounding") {
  std::mt19937_64 rng(8);
  double worst = 0.0;
  for (int r = 1; r <= 5; ++r) {
    const Recursive random = test::random_filter(r, rng, 0.95);
    FilterSpec spec;
    spec.order = r;
    spec.sigma = r >= 4 ? 10.0 : 25.0;
    const Recursive gaussian = design(spec);
    for (const Recursive& f : {random, gaussian})
      for (Extension e : kAllExtensions)
        for (auto [w, h] :
             {std::pair{1, 1}, std::pair{2, 2}, std::pair{33, 31}, std::pair{257, 131}}) {
          const double err = double_block_error(f, e, w, h, rng);
          worst = std::max(worst, err);
          INFO(std::string(to_string(e)) << " r=" << r << " " << w << "x" << h);
          CHECK(err < 1e-6);
        }
  }
  MESSAGE("block-parallel (double) vs sequential double: worst " << worst);
}

TEST_CASE("overlapped summed-area table") {
  std::mt19937_64 rng(7);
  FilterSpec spec;
  spec.kind = FilterKind::Sat;
  spec.ext = Extension::Zero;
  const Recursive f = design(spec);
  for (auto [w, h] : kSizes) {
    INFO(w << "x" << h);
    CHECK(block_parallel_error(f, Extension::Zero, w, h, rng) < 1e-5);
  }
  CHECK_THROWS_AS(cpu::OverlappedPlan(f, Extension::Clamp, 8, 8), InvalidParameter);
  CHECK_THROWS_AS(cpu::OverlappedPlan(f, Extension::Zero, 0, 8), InvalidParameter);
}
