// The mode-state (parallel form) algebra of modal.h against the sequential double reference, and
// the fully overlapped stages the CUDA kernels run (fully_overlapped_cpu.h) on random images.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include "filters/core/derivative.h"
#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/recursive/fully_overlapped.h"
#include "filters/recursive/fully_overlapped_cpu.h"
#include "filters/recursive/fully_overlapped_math.h"
#include "filters/recursive/modal.h"
#include "filters/recursive/pair_modes.h"
#include "filters/recursive/reference.h"

using namespace rf;

namespace {

using Wide = long double;

std::vector<Wide> times(const modal::Mat& m, const std::vector<Wide>& x) {
  std::vector<Wide> y(m.rows, 0.0L);
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) y[i] += Wide(m(i, j)) * x[j];
  return y;
}

// One line filtered in mode states with the seeds of modal.h, in extended precision: the seed
// formulas alone, without blocks.
std::vector<double> modal_line(const modal::Form& m, Extension e, const std::vector<double>& x) {
  const int n = int(x.size()), r = m.order;
  const modal::Seeds sd = modal::seeds(m, n);
  std::vector<Wide> ubar(r, 0.0L), hbar(r, 0.0L), u(r, 0.0L), w(r, 0.0L);
  for (double v : x) modal::step(m, ubar, v);
  for (int i = n - 1; i >= 0; --i) modal::step(m, hbar, x[i]);
  if (e == Extension::Clamp)
    for (int k = 0; k < r; ++k) u[k] = Wide(sd.S[k]) * x[0];
  if (e == Extension::Repeat) u = times(sd.Q_n, ubar);
  if (e == Extension::Mirror) {
    std::vector<Wide> t = times(sd.D_n, ubar);
    for (int k = 0; k < r; ++k) t[k] += hbar[k];
    u = times(sd.Q_2n, t);
  }
  std::vector<Wide> y(n), s = u;
  for (int i = 0; i < n; ++i) y[i] = modal::step(m, s, x[i]);
  if (e == Extension::Zero || e == Extension::Clamp) w = times(sd.G, s);
  if (e == Extension::Clamp)
    for (int k = 0; k < r; ++k) w[k] += Wide(sd.clamp_tail[k]) * x[n - 1];
  if (e == Extension::Mirror) w = times(sd.M, s);
  if (e == Extension::Repeat) {
    std::vector<Wide> t(r, 0.0L);
    for (int i = n - 1; i >= 0; --i) modal::step(m, t, y[i]);
    w = times(sd.Q_n, t);
  }
  std::vector<double> z(n);
  for (int i = n - 1; i >= 0; --i) z[i] = double(modal::step(m, w, y[i]));
  return z;
}

double relative(const std::vector<double>& got, const std::vector<double>& want) {
  double err = 0.0, peak = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    err = std::max(err, std::isnan(got[i]) ? INFINITY : std::fabs(got[i] - want[i]));
    peak = std::max(peak, std::fabs(want[i]));
  }
  return err / std::max(peak, 1e-300);
}

// Columns then rows with the padded sequential reference, in double, per channel.
std::vector<double> reference_2d(const Recursive& f, Extension e, const std::vector<float>& img,
                                 int w, int h, int channels) {
  std::vector<double> out(img.begin(), img.end()), line;
  for (int c = 0; c < channels; ++c) {
    for (int x = 0; x < w; ++x) {
      line.resize(h);
      for (int y = 0; y < h; ++y) line[y] = out[(std::size_t(y) * w + x) * channels + c];
      line = ref::filter_line_padded(f, e, line);
      for (int y = 0; y < h; ++y) out[(std::size_t(y) * w + x) * channels + c] = line[y];
    }
    for (int y = 0; y < h; ++y) {
      line.resize(w);
      for (int x = 0; x < w; ++x) line[x] = out[(std::size_t(y) * w + x) * channels + c];
      line = ref::filter_line_padded(f, e, line);
      for (int x = 0; x < w; ++x) out[(std::size_t(y) * w + x) * channels + c] = line[x];
    }
  }
  return out;
}

Recursive gaussian(int order, double sigma) {
  FilterSpec spec;
  spec.order = order;
  spec.sigma = sigma;
  return design(spec);
}

}  // namespace

TEST_CASE("modal form: poles, residues and how much the modes cancel") {
  // Order 1: y = b0 x + p y_{-1}, one mode with c = b0.
  const Recursive one = gaussian(1, 4.0);
  const modal::Form m1 = modal::modal_form(one);
  REQUIRE(m1.real_modes == 1);
  CHECK(m1.complex_pairs == 0);
  CHECK(m1.pole_re[0] == doctest::Approx(-one.a[0]).epsilon(1e-14));
  CHECK(m1.residue_re[0] == doctest::Approx(one.b0).epsilon(1e-14));
  CHECK(m1.condition == doctest::Approx(1.0));
  // Van Vliet's order 3: one real pole and a pair; order 5: one and two.
  const modal::Form m3 = modal::modal_form(gaussian(3, 16.0));
  CHECK(m3.real_modes == 1);
  CHECK(m3.complex_pairs == 1);
  const modal::Form m5 = modal::modal_form(gaussian(5, 100.0));
  CHECK(m5.real_modes == 1);
  CHECK(m5.complex_pairs == 2);
  // Every design keeps its modes well apart, at every sigma up to its cap.
  for (int order = 1; order <= 5; ++order)
    for (double sigma : {0.7, 4.0, 64.0, 200.0}) {
      INFO("order " << order << " sigma " << sigma);
      CHECK(modal::modal_form(gaussian(order, sigma)).condition < 10.0);
    }
  // A repeated pole has no partial fractions; a pole outside the unit circle no extension.
  Recursive repeated;
  repeated.b0 = 0.25;
  repeated.a = {-1.0, 0.25};  // (1 - 0.5 z^-1)^2
  CHECK_THROWS_AS(modal::modal_form(repeated), std::domain_error);
  Recursive unstable;
  unstable.a = {-1.5};
  CHECK_THROWS_AS(modal::modal_form(unstable), std::domain_error);
  CHECK_FALSE(fully_overlapped::carries_modes(repeated));
}

TEST_CASE("pair modes: the pair's impulse response as geometric sequences") {
  // h(d) = sum_l w_l p_l^|d| against a unit impulse through the padded double reference (zero
  // extension: the infinite line), every order at a small sigma and at its cap. At the caps the
  // reference's own direct-form rounding (amplified by 1 / b0) is what the tolerance allows.
  for (int order = 1; order <= 5; ++order)
    for (double sigma : {0.7, 4.0, order == 5 ? 200.0 : order == 4 ? 1000.0 : 2000.0}) {
      const Recursive f = gaussian(order, sigma);
      const PairModes modes = pair_modes(f);
      REQUIRE(int(modes.poles.size()) == order);
      const int half = 300;
      std::vector<double> x(2 * half + 1, 0.0);
      x[half] = 1.0;
      const std::vector<double> want = ref::filter_line_padded(f, Extension::Zero, x);
      double err = 0.0, peak = 0.0;
      for (int i = 0; i < int(x.size()); ++i) {
        std::complex<double> h = 0.0;
        for (std::size_t l = 0; l < modes.poles.size(); ++l)
          h += modes.weights[l] * std::pow(modes.poles[l], std::abs(i - half));
        err = std::max(err, std::abs(h.real() - want[i]) + std::abs(h.imag()));
        peak = std::max(peak, std::abs(want[i]));
      }
      INFO("order " << order << " sigma " << sigma);
      CHECK(err < (sigma > 100.0 ? 1e-7 : 1e-12) * peak);
    }
  Recursive sat;
  sat.a = {-1.0};
  sat.causal_only = true;
  CHECK_THROWS_AS(pair_modes(sat), InvalidParameter);
  Recursive repeated;
  repeated.b0 = 0.25;
  repeated.a = {-1.0, 0.25};
  CHECK_THROWS_AS(pair_modes(repeated), InvalidParameter);
}

TEST_CASE("modal seeds give the exact extensions, whatever sigma and line length") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.05, 1.0);
  double worst = 0.0;
  for (int order = 1; order <= 5; ++order)
    for (double sigma : {1.0, 4.0, 16.0, 64.0, 200.0}) {
      const Recursive f = gaussian(order, sigma);
      const modal::Form m = modal::modal_form(f);
      for (Extension e : {Extension::Zero, Extension::Clamp, Extension::Repeat, Extension::Mirror})
        for (int n : {1, 2, 3, 7, 33, 300}) {
          std::vector<double> x(n);
          for (double& v : x) v = u(rng);
          const double err = relative(modal_line(m, e, x), ref::filter_line_padded(f, e, x));
          worst = std::max(worst, err);
          INFO("order " << order << " sigma " << sigma << " " << std::string(to_string(e)) << " n "
                        << n);
          // At order 5, sigma 200 the long double reference itself holds ~1e-7 (reference.cpp).
          CHECK(err < (sigma < 100.0 ? 1e-9 : 1e-6));
        }
    }
  MESSAGE("modal seeds against the padded reference: worst " << worst);
}

TEST_CASE("fully overlapped stages in float against the sequential double reference") {
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> u(0.05f, 1.0f);
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 3}, {33, 31}, {70, 3}, {1, 40}, {64, 96}};
  double worst = 0.0;
  for (int order = 1; order <= 5; ++order)
    for (double sigma : {1.0, 4.0, 64.0}) {
      const Recursive f = gaussian(order, sigma);
      for (Extension e : kAllExtensions) {
        if (e == Extension::Ignore && sigma > 4.0) continue;  // see the CUDA suite
        for (std::size_t s = 0; s < std::size(sizes); ++s) {
          const auto [w, h] = sizes[s];
          const int channels = s % 2 ? 4 : 1;
          std::vector<float> img(std::size_t(w) * h * channels);
          for (float& v : img) v = u(rng);
          const std::vector<double> want = reference_2d(f, e, img, w, h, channels);
          for (auto place :
               {fully_overlapped::FixPlace::RowScan, fully_overlapped::FixPlace::ColumnScan}) {
            std::vector<float> out(img.size(), NAN);
            fully_overlapped::CpuFilter(f, e, w, h, channels, place).run(img.data(), out.data());
            const double err = relative(std::vector<double>(out.begin(), out.end()), want);
            worst = std::max(worst, err);
            INFO("order " << order << " sigma " << sigma << " " << std::string(to_string(e)) << " "
                          << w << "x" << h << "x" << channels << " alg"
                          << (place == fully_overlapped::FixPlace::RowScan ? 5 : 6));
            CHECK(err < (order <= 3 ? 1e-5 : 1e-4));
          }
        }
      }
    }
  MESSAGE("fully overlapped (float, mode states) against the double reference: worst " << worst);
}

TEST_CASE("fully overlapped: summed-area tables, B-splines and the exponential smoother") {
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> u(0.05f, 1.0f);
  const FilterKind kinds[] = {FilterKind::Sat,      FilterKind::BSpline3,    FilterKind::BSpline5,
                              FilterKind::BSpline7, FilterKind::Exponential, FilterKind::Deriche,
                              FilterKind::Yvrg};
  for (FilterKind kind : kinds) {
    FilterSpec spec;
    spec.kind = kind;
    spec.order = kind == FilterKind::Deriche ? 4 : kind == FilterKind::Sat ? 1 : 3;
    spec.pole = -0.7;
    if (kind == FilterKind::Sat) spec.ext = Extension::Zero;
    const Recursive f = design(spec);
    for (Extension e : kAllExtensions) {
      if (f.causal_only && e != Extension::Zero) continue;
      const int w = 45, h = 77;
      std::vector<float> img(std::size_t(w) * h);
      for (float& v : img) v = u(rng);
      const std::vector<double> want = reference_2d(f, e, img, w, h, 1);
      std::vector<float> out(img.size());
      fully_overlapped::CpuFilter(f, e, w, h, 1, fully_overlapped::FixPlace::RowScan)
          .run(img.data(), out.data());
      INFO(std::string(to_string(kind)) << " " << std::string(to_string(e)));
      CHECK(relative(std::vector<double>(out.begin(), out.end()), want) < 1e-5);
    }
  }
  FilterSpec sat;
  sat.kind = FilterKind::Sat;
  sat.ext = Extension::Zero;
  CHECK_THROWS_AS(fully_overlapped::CpuFilter(design(sat), Extension::Mirror, 8, 8, 1,
                                              fully_overlapped::FixPlace::RowScan),
                  InvalidParameter);
  CHECK_THROWS_AS(fully_overlapped::CpuFilter(gaussian(3, 4.0), Extension::Zero, 8, 8, 3,
                                              fully_overlapped::FixPlace::ColumnScan),
                  InvalidParameter);
}

TEST_CASE("fully overlapped: in place, and through the CPU engine as alg6") {
  std::mt19937 rng(14);
  std::uniform_real_distribution<float> u(0.05f, 1.0f);
  Image img(131, 67, 4);
  for (float& v : img.pixels) v = u(rng);
  FilterSpec spec;
  spec.order = 3;
  spec.sigma = 8.0;
  spec.ext = Extension::Mirror;
  spec.algo = Algorithm::Alg6;
  spec.backend = Backend::Cpu;
  const std::vector<double> want =
      reference_2d(design(spec), spec.ext, img.pixels, img.width, img.height, 4);
  const Image out = filter_image(spec, img, Backend::Cpu);
  CHECK(relative(std::vector<double>(out.pixels.begin(), out.pixels.end()), want) < 1e-5);
  std::vector<float> in_place = img.pixels;
  fully_overlapped::CpuFilter(design(spec), spec.ext, img.width, img.height, 4,
                              fully_overlapped::FixPlace::ColumnScan)
      .run(in_place.data(), in_place.data());
  CHECK(relative(std::vector<double>(in_place.begin(), in_place.end()), want) < 1e-5);
}

TEST_CASE("fully overlapped: the scans' runs fill whole waves of the SMs") {
  using fully_overlapped::scan_runs;
  const fully_overlapped::ScanSlots h200{132, 16, std::int64_t(60) << 20};
  // The carries a group of 32 lines holds: `arrays` arrays of r floats a line and block.
  auto bytes = [](int blocks, int r, int arrays) {
    return std::int64_t(32) * blocks * r * arrays * 4;
  };
  // Few lines: chains split into runs of 4 (1024^2) to 8 blocks (4096^2), one wave.
  CHECK(scan_runs(32, 32, bytes(32, 1, 3), h200) == 8);
  CHECK(scan_runs(128, 128, bytes(128, 1, 3), h200) == 16);
  // 3840x2160 four channels, its rows at order 3 under mirror: 272 CTAs of 15 warps took three
  // waves of one CTA an SM; five runs of 24 blocks take one wave of three, 38 MB of carries.
  CHECK(scan_runs(272, 120, bytes(120, 3, 3), h200) == 5);
  // 4096^2 four channels at order 3 under zero: one wave would hold 50 MB of carries at once;
  // two waves of 8 runs.
  CHECK(scan_runs(512, 128, bytes(128, 3, 2), h200) == 8);
  // A batch of 512 frames of 512^2: whole chains, one warp per 32 lines.
  CHECK(scan_runs(8192, 16, bytes(16, 3, 3), h200) == 1);
  // 1024^2 padded by a row each way (d/dy under clamp) and 1920x1080, their columns: 33 and 34
  // blocks in 9 runs, 8 of 4 blocks, which a scan holds whole in registers at every order.
  CHECK(scan_runs(32, 33, bytes(33, 3, 3), h200) == 9);
  CHECK(scan_runs(60, 34, bytes(34, 3, 3), h200) == 9);
  // Whatever the case, 1 to kMaxRuns runs of at least kMinRunBlocks blocks but the last, or one.
  for (int groups : {1, 7, 33, 136, 480, 100000})
    for (int blocks : {1, 3, 4, 17, 60, 68, 120, 1025})
      for (int r : {1, 5}) {
        const int runs = scan_runs(groups, blocks, bytes(blocks, r, 3), h200);
        CHECK(runs >= 1);
        CHECK(runs <= fully_overlapped::kMaxRuns);
        CHECK((runs == 1 || (blocks + runs - 1) / runs >= fully_overlapped::kMinRunBlocks));
        // A device of one SM holding one scan warp: whole chains.
        CHECK(scan_runs(groups, blocks, bytes(blocks, r, 3), {1, 1, h200.l2_bytes}) == 1);
      }
}

// Calls fn(tag, m) with the mode split of the Gaussian of this order and sigma (with_modes) and
// its modes in double.
template <class Fn>
void with_gaussian_modes(int order, double sigma, Fn&& fn) {
  const modal::Form form = modal::modal_form(gaussian(order, sigma));
  CHECK(fully_overlapped::with_modes(form.real_modes, form.complex_pairs, [&](auto tag) {
    constexpr int NR = decltype(tag)::kReal, NC = decltype(tag)::kPairs;
    fn(tag, fully_overlapped::modes_of<NR, NC, double>(form));
  }));
}

TEST_CASE("fully overlapped: the output stage's difference taken in the anticausal pass") {
  // The CUDA output stage's differences, anticausal_difference_block (in the pass) and
  // difference_block (after it), against the anticausal pass followed by the difference of its
  // outputs written out, the samples beyond the block from the states around it.
  using fully_overlapped::kBlock;
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto check = [&](auto tag, const auto& m) {
    constexpr int NR = decltype(tag)::kReal, NC = decltype(tag)::kPairs;
    using St = fully_overlapped::State<NR, NC, double>;
    for (int len : {kBlock, 19, 1}) {
      for (int order : {1, 2}) {
        const double d[3] = {difference_weight(order, -1), difference_weight(order, 0),
                             difference_weight(order, 1)};
        double v[kBlock], want[kBlock];
        for (int k = 0; k < kBlock; ++k) v[k] = k < len ? u(rng) : 0.0;
        St w;
        for (int k = 0; k < NR + 2 * NC; ++k) w[k] = u(rng);
        const double before = u(rng);
        INFO("modes " << NR << "+" << NC << " pairs, len " << len << ", difference order "
                      << order);
        // The pass, then the difference.
        std::copy(v, v + kBlock, want);
        St plain = w;
        const double after = fully_overlapped::mode_sum(plain);
        if (len == kBlock)
          fully_overlapped::anticausal_block<true>(m, want, plain, len);
        else
          fully_overlapped::anticausal_block<false>(m, want, plain, len);
        double y[kBlock + 2];
        y[0] = fully_overlapped::output_before(m, plain, before);
        for (int k = 0; k < len; ++k) y[k + 1] = want[k];
        y[len + 1] = after;
        // The difference after the pass (orders 4 and 5 take it so along y).
        double after_pass[kBlock];
        std::copy(want, want + kBlock, after_pass);
        if (len == kBlock)
          fully_overlapped::difference_block<true>(after_pass, len, y[0], after, order, d);
        else
          fully_overlapped::difference_block<false>(after_pass, len, y[0], after, order, d);
        for (int k = 0; k < len; ++k) want[k] = d[0] * y[k] + d[1] * y[k + 1] + d[2] * y[k + 2];
        for (int k = 0; k < len; ++k)
          CHECK(after_pass[k] == doctest::Approx(want[k]).epsilon(1e-12));
        // In one pass.
        St fused = w;
        if (len == kBlock)
          fully_overlapped::anticausal_difference_block<true>(m, v, fused, len, before, order, d);
        else
          fully_overlapped::anticausal_difference_block<false>(m, v, fused, len, before, order, d);
        for (int k = 0; k < len; ++k) CHECK(v[k] == doctest::Approx(want[k]).epsilon(1e-12));
        for (int k = 0; k < NR + 2 * NC; ++k) CHECK(fused[k] == doctest::Approx(plain[k]));
      }
    }
  };
  for (int order = 1; order <= 5; ++order) with_gaussian_modes(order, 3.0, check);
}

TEST_CASE("fully overlapped: a block's anticausal head from its weights") {
  // The CUDA perimeters' rows take E, the anticausal state a block's causal output leaves at its
  // start, as a dot product of the block with HeadWeights: against the two passes in double.
  using fully_overlapped::kBlock;
  std::mt19937 rng(47);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto check = [&](auto tag, const auto& m) {
    constexpr int NR = decltype(tag)::kReal, NC = decltype(tag)::kPairs;
    const fully_overlapped::HeadWeights<double> exact = fully_overlapped::head_weights(m);
    fully_overlapped::HeadWeights<float> rounded;
    for (int k = 0; k < fully_overlapped::kMaxOrder; ++k)
      for (int i = 0; i < kBlock; ++i) rounded.w[k][i] = float(exact.w[k][i]);
    for (int trial = 0; trial < 4; ++trial) {
      double v[kBlock];
      float x[kBlock];
      for (int i = 0; i < kBlock; ++i) x[i] = float(v[i] = u(rng));
      auto want = fully_overlapped::zero_state<NR, NC, double>();
      fully_overlapped::causal_block<true>(m, v, want, kBlock);
      want = fully_overlapped::anticausal_head<true>(m, v, kBlock);
      const auto got =
          fully_overlapped::weighted_state<NR, NC>(rounded.w, [&](int i) { return x[i]; });
      for (int k = 0; k < NR + 2 * NC; ++k) {
        double scale = 0.0;  // what a float dot product of these weights rounds against
        for (int i = 0; i < kBlock; ++i) scale += std::fabs(exact.w[k][i]);
        INFO("modes " << NR << "+" << NC << " pairs, component " << k);
        CHECK(std::fabs(double(got[k]) - want[k]) <= 4e-6 * scale);
      }
    }
  };
  for (int order = 1; order <= 5; ++order)
    for (double sigma : {2.0, 40.0}) with_gaussian_modes(order, sigma, check);
}
