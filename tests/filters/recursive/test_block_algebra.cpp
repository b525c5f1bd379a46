// The block matrices of Nehab et al. 2011 and the extension seeds of Nehab & Maximo 2016 against
// their definitions: running the recursions on unit vectors and on random data.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "filters/core/spec.h"
#include "filters/recursive/block_algebra.h"
#include "filters/recursive/initial_feedback.h"
#include "tests/filters/recursive/random_filter.h"

using namespace rf;
using algebra::Matrix;

namespace {

// F(p, x): causal filtering of x from the state p = (y[-1], ..., y[-r]); returns the output and
// leaves the final state (y[n-1], ..., y[n-r]) in p.
std::vector<double> causal(const Recursive& f, std::vector<double>& p,
                           const std::vector<double>& x) {
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    double v = f.b0 * x[i];
    for (int k = 0; k < f.order(); ++k) v -= f.a[k] * p[k];
    for (int k = f.order() - 1; k > 0; --k) p[k] = p[k - 1];
    p[0] = y[i] = v;
  }
  return y;
}

// R(y, e): anticausal filtering from the state e = (z[n], ..., z[n+r-1]); leaves the head
// (z[0], ..., z[r-1]) in e.
std::vector<double> anticausal(const Recursive& f, std::vector<double>& e,
                               const std::vector<double>& y) {
  std::vector<double> z(y.size());
  for (std::size_t j = y.size(); j-- > 0;) {
    double v = f.b0 * y[j];
    for (int k = 0; k < f.order(); ++k) v -= f.a[k] * e[k];
    for (int k = f.order() - 1; k > 0; --k) e[k] = e[k - 1];
    e[0] = z[j] = v;
  }
  return z;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

std::vector<double> zeros(int n) {
  return std::vector<double>(n, 0.0);
}

double apply_sparse(const SparseColumns& m, int k, const std::vector<double>& x) {
  double acc = 0.0;
  for (int j = m.first; j < m.first + m.count; ++j) acc += m.weight(k, j) * x[j];
  return acc;
}

}  // namespace

TEST_CASE("block matrices of a first-order filter by hand") {
  Recursive f;
  f.a = {-0.5};
  f.b0 = 0.5;
  const auto bm = algebra::block_matrices(f, 3);
  CHECK(bm.A_Fb(0, 0) == doctest::Approx(0.125));
  CHECK(bm.A_FP(0, 0) == doctest::Approx(0.5));  // y_0 = 0.5 p
  CHECK(bm.A_FP(2, 0) == doctest::Approx(0.125));
  CHECK(bm.A_RE(2, 0) == doctest::Approx(0.5));  // z_2 = 0.5 e
  CHECK(bm.A_FB(2, 0) == doctest::Approx(0.5 * 0.25));
  CHECK(bm.A_FB(0, 2) == 0.0);
  CHECK(bm.T_AFB(0, 0) == doctest::Approx(0.5 * 0.25));
  // H(A_RB) A_FP = sum_{j<3} h_j e_1' A^(j+1) = 0.5 (0.5 + 0.125 + 0.03125)
  CHECK(bm.H_ARB_AFP(0, 0) == doctest::Approx(0.5 * (0.5 + 0.125 + 0.03125)));
}

TEST_CASE("block matrices match their definitions for every order and block length") {
  std::mt19937_64 rng(2011);
  for (int r = 1; r <= 5; ++r)
    for (int len : {1, 2, 3, 7, 32}) {
      const Recursive f = test::random_filter(r, rng);
      const auto bm = algebra::block_matrices(f, len);
      INFO("r=" << r << " len=" << len);
      const auto p = test::random_line(r, rng), e = test::random_line(r, rng);
      const auto x = test::random_line(len, rng);
      double worst = 0.0;
      {  // A_FP p = F(p, 0); T(A_FP) = A_F^b
        auto state = p;
        const auto y = causal(f, state, zeros(len));
        worst = std::max(worst, max_diff(bm.A_FP * p, y));
        worst = std::max(worst, max_diff(bm.A_Fb * p, state));
      }
      {  // A_RE e = R(0, e); H(A_RE) = A_F^b
        auto state = e;
        const auto z = anticausal(f, state, zeros(len));
        worst = std::max(worst, max_diff(bm.A_RE * e, z));
        worst = std::max(worst, max_diff(bm.A_Fb * e, state));
      }
      {  // A_FB x = F(0, x), T(A_FB) x = T(F(0, x)), H(A_RB) A_FB x = H(R(F(0, x), 0))
        auto state = zeros(r);
        const auto y = causal(f, state, x);
        worst = std::max(worst, max_diff(bm.A_FB * x, y));
        worst = std::max(worst, max_diff(bm.T_AFB * x, state));
        auto head = zeros(r);
        const auto z = anticausal(f, head, y);
        worst = std::max(worst, max_diff(bm.A_RB * y, z));
        worst = std::max(worst, max_diff(bm.H_ARB_AFB * x, head));
        auto head_y = zeros(r);
        anticausal(f, head_y, y);
        worst = std::max(worst, max_diff(bm.H_ARB * y, head_y));
      }
      {  // A_RB A_FP p = R(F(p, 0), 0) and its head H(A_RB) A_FP p
        auto state = p;
        const auto y = causal(f, state, zeros(len));
        auto head = zeros(r);
        const auto z = anticausal(f, head, y);
        worst = std::max(worst, max_diff(bm.ARB_AFP * p, z));
        worst = std::max(worst, max_diff(bm.H_ARB_AFP * p, head));
      }
      CHECK(worst < 1e-12);
    }
}

TEST_CASE("extension seeds in carry form equal the boundary maps") {
  std::mt19937_64 rng(2016);
  for (int r = 1; r <= 5; ++r)
    for (Extension ext : kAllExtensions)
      for (int n : {1, 2, 3, 31, 32, 33, 257}) {
        const Recursive f = test::random_filter(r, rng);
        const auto x = test::random_line(n, rng);
        const auto sd = algebra::extension_seeds(f, ext, n);
        const BoundaryMaps maps = boundary_maps(f, ext, n);
        INFO(std::string(to_string(ext)) << " r=" << r << " n=" << n);

        // Causal seed p.
        std::vector<double> p(r, 0.0);
        auto t_f0x = zeros(r);  // T(F(0, X))
        causal(f, t_f0x, x);
        switch (ext) {
          case Extension::Clamp:
            for (int k = 0; k < r; ++k) p[k] = sd.S[k] * x[0];
            break;
          case Extension::Repeat:
            p = sd.Q_n * t_f0x;
            break;
          case Extension::Mirror: {
            auto h_r0x = zeros(r);  // H(R(X, 0))
            anticausal(f, h_r0x, x);
            const auto a = sd.A_n * t_f0x;
            for (int k = 0; k < r; ++k) h_r0x[k] += a[k];
            p = sd.Q_2n * h_r0x;
            break;
          }
          default:
            break;
        }
        std::vector<double> p_maps(r);
        for (int k = 0; k < r; ++k) p_maps[k] = apply_sparse(maps.causal_from_x, k, x);
        const double scale = std::max(1.0, test::max_abs(p_maps));
        CHECK(max_diff(p, p_maps) < 1e-11 * scale);

        // Anticausal seed e from the complete causal output.
        auto last = p_maps;
        const auto y = causal(f, last, x);
        std::vector<double> e(r, 0.0);
        switch (ext) {
          case Extension::Zero:
            e = sd.G * last;
            break;
          case Extension::Clamp:
            e = sd.G * last;
            for (int k = 0; k < r; ++k) e[k] += sd.clamp_tail[k] * x[n - 1];
            break;
          case Extension::Repeat: {
            auto head = zeros(r);
            anticausal(f, head, y);
            e = sd.Q_n * head;
            break;
          }
          case Extension::Mirror:
            e = sd.M * last;
            break;
          default:
            break;
        }
        std::vector<double> e_maps(r);
        for (int k = 0; k < r; ++k)
          e_maps[k] = apply_sparse(maps.anticausal_from_y, k, y) +
                      apply_sparse(maps.anticausal_from_x, k, x);
        const double escale = std::max(1.0, test::max_abs(e_maps));
        CHECK(max_diff(e, e_maps) < 1e-11 * escale);
      }
}
