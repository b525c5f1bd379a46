// Exact initial feedbacks for every extension (Nehab & Maximo 2016, section 4), written in the
// state-space form of block_algebra.h: s_i = A s_{i-1} + g x_i with g = b0 e_1 for the causal pass
// and t_i = A t_{i+1} + g y_i for the anticausal pass, where s_{-1} = (y[-1], ..., y[-r]) and
// t_n = (z[n], ..., z[n+r-1]) are exactly the feedbacks of the BoundaryMaps contract.
//
// The papers work with blocks of h >= r samples; here a line may be shorter than r. The state-space
// form makes every formula hold for any n >= 1 (A^n replaces the papers' A_F^h), and when a formula
// needs causal outputs y[-1..-r] before the line, they are themselves linear in x through the
// causal map, which is how anticausal_from_x picks up terms for n < r.
#include "filters/initial_feedback.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "filters/block_algebra.h"
#include "filters/errors.h"

namespace rf {

namespace {

using algebra::Matrix;

// An r x n map under construction: a list of weighted columns, in any order and possibly
// repeated, so that building costs only the columns that are touched.
struct MapBuilder {
  int rows;
  std::vector<int> cols;
  std::vector<double> vals;  // r weights per entry of cols
  explicit MapBuilder(int r) : rows(r) {}
  void add_column(int j, const std::vector<double>& c, double scale = 1.0) {
    cols.push_back(j);
    for (int k = 0; k < rows; ++k) vals.push_back(scale * c[k]);
  }
};

// Sums the columns and keeps the contiguous range of those whose largest weight is at least 1e-17
// of the map's.
SparseColumns finish(const MapBuilder& b) {
  SparseColumns s;
  s.rows = b.rows;
  if (b.cols.empty()) return s;
  const auto [lo_it, hi_it] = std::minmax_element(b.cols.begin(), b.cols.end());
  const int lo = *lo_it, hi = *hi_it;
  std::vector<double> w(std::size_t(hi - lo + 1) * b.rows, 0.0);
  for (std::size_t e = 0; e < b.cols.size(); ++e)
    for (int k = 0; k < b.rows; ++k)
      w[std::size_t(b.cols[e] - lo) * b.rows + k] += b.vals[e * b.rows + k];
  double peak = 0.0;
  for (double x : w) peak = std::max(peak, std::abs(x));
  if (peak == 0.0) return s;
  auto significant = [&](int j) {
    for (int k = 0; k < b.rows; ++k)
      if (std::abs(w[std::size_t(j - lo) * b.rows + k]) >= 1e-17 * peak) return true;
    return false;
  };
  int first = lo, last = hi;
  while (!significant(first)) ++first;
  while (!significant(last)) --last;
  s.first = first;
  s.count = last - first + 1;
  s.w.assign(w.begin() + std::ptrdiff_t(first - lo) * b.rows,
             w.begin() + std::ptrdiff_t(last + 1 - lo) * b.rows);
  return s;
}

// Adds to `to` the contribution of a causal output before the line: `coef` multiplies y[-j]
// (j >= 1), which is row j-1 of the causal map applied to x.
void add_prior_output(MapBuilder& to, const std::vector<double>& coef, int j,
                      const SparseColumns& causal) {
  for (int col = causal.first; col < causal.first + causal.count; ++col)
    to.add_column(col, coef, causal.weight(j - 1, col));
}

std::vector<double> column(const Matrix& m, int j) {
  std::vector<double> c(m.rows);
  for (int i = 0; i < m.rows; ++i) c[i] = m(i, j);
  return c;
}

// Plan-time sums run in extended precision: for clustered poles near 1 (high-order Gaussians of
// large sigma) the feedback maps have entries ~1e4 times larger than the feedbacks they produce,
// and every digit kept while summing them survives the final rounding to double.
using Wide = long double;

std::vector<double> rounded(const std::vector<Wide>& v) {
  return {v.begin(), v.end()};
}

// B[q] = sum_{k >= 0} A^(q + k P) g = (I - A^P)^-1 A^q g for q < min(P, terms): the geometric
// series of eqs. (49), (51) and (52) over the states s_m = A^m g of the causal recursion after a
// unit sample (the impulse response and its r - 1 predecessors), generated once and summed term
// by term until negligible. Summing is as accurate as the recursion itself, whereas inverting
// I - A^P in the companion basis loses up to six digits for clustered poles near 1.
std::vector<std::vector<Wide>> periodic_sums(const Recursive& f, long long period) {
  constexpr long long kLimit = 1LL << 26;
  const int r = f.order();
  std::vector<std::vector<Wide>> out;
  std::vector<Wide> state(r, 0.0L);
  state[0] = f.b0;
  Wide top = 0.0L;
  for (long long m = 0;; ++m) {
    if (m >= kLimit)
      throw InvalidParameter(
          "boundary_maps: the impulse response does not decay (a pole on or too close to the "
          "unit circle)");
    Wide ps = 0.0L;
    for (Wide x : state) ps = std::max(ps, std::abs(x));
    top = std::max(top, ps);
    // Columns below 1e-17 of the peak are dropped, so terms below 1e-19 no longer matter.
    if (m >= r && ps < 1e-19L * top) break;
    if (m < period)
      out.push_back(state);
    else
      for (int k = 0; k < r; ++k) out[std::size_t(m % period)][k] += state[k];
    Wide first = 0.0L;
    for (int k = 0; k < r; ++k) first -= Wide(f.a[k]) * state[k];
    for (int k = r - 1; k > 0; --k) state[k] = state[k - 1];
    state[0] = first;
  }
  return out;
}

BoundaryMaps build_maps(const Recursive& f, Extension ext, int n) {
  const int r = f.order();
  if (r < 1) throw InvalidParameter("boundary_maps: the filter has no feedback coefficients");
  if (n < 1) throw InvalidParameter("boundary_maps: line length " + std::to_string(n) + " < 1");

  BoundaryMaps maps;
  maps.order = r;
  maps.n = n;
  maps.causal_from_x.rows = maps.anticausal_from_y.rows = maps.anticausal_from_x.rows = r;
  if (ext == Extension::Ignore) return maps;
  if (f.causal_only && ext == Extension::Zero) return maps;
  if (!algebra::is_stable(f)) throw std::domain_error("a pole on or outside the unit circle");

  MapBuilder causal(r), from_y(r), from_x(r);
  const bool anticausal = !f.causal_only;
  const bool constant = ext == Extension::Clamp || (ext == Extension::Zero && anticausal);
  const algebra::ConstantPaddingSeeds cp =
      constant ? algebra::constant_padding_seeds(f) : algebra::ConstantPaddingSeeds{};

  // Causal initial feedback p(Y) = s_{-1} = sum_{m >= 0} A^m g x_ext[-1-m].
  switch (ext) {
    case Extension::Ignore:
    case Extension::Zero:
      break;
    case Extension::Clamp:
      // eq. (35): p(Y) = S_F Abar_F C_up, S_F = (I - A_F^r)^-1; in state form
      // s_{-1} = sum_m A^m g x[0] = (I - A)^-1 g x[0].
      causal.add_column(0, cp.S);
      break;
    case Extension::Repeat: {
      // eq. (49): p(Y) = (I - A_F^h)^-1 e_{-1}(Y°) with e_{-1}(Y°) = T(F(0, X)); in state form
      // s_{-1} = sum_j (I - A^n)^-1 A^(n-1-j) g x[j].
      const auto b = periodic_sums(f, n);
      for (std::size_t q = 0; q < b.size(); ++q) causal.add_column(n - 1 - int(q), rounded(b[q]));
      break;
    }
    case Extension::Mirror: {
      // eq. (52): the periodic extension of X ++ K(X), period 2n. Sample x[m] appears m samples
      // (reflected copy) and 2n-1-m samples (direct copy) before position -1:
      //   s_{-1} = sum_m (I - A^2n)^-1 (A^m + A^(2n-1-m)) g x[m].
      const auto b = periodic_sums(f, 2LL * n);
      for (std::size_t q = 0; q < b.size(); ++q)
        causal.add_column(int(q) < n ? int(q) : 2 * n - 1 - int(q), rounded(b[q]));
      break;
    }
  }
  maps.causal_from_x = finish(causal);
  if (!anticausal) return maps;

  // Anticausal initial feedback e(Z) = t_n = sum_{m >= 0} A^m g y_ext[n+m].
  switch (ext) {
    case Extension::Ignore:
      break;
    case Extension::Zero:
    case Extension::Clamp: {
      // eq. (44): e(Z) = S_RF A_F^r e_{-1}(Y) + (S_R Abar_R - S_RF A_F^r) S_F Abar_F C_down with
      // S_RF the series (42). In state form the causal output past the end is
      //   y[n+m] = e_1' (A^(m+1) (s_{n-1} - s*) + s*),  s* = (I - A)^-1 g c  (c = 0 for Zero),
      // so t_n = G (s_{n-1} - s*) + (I - A)^-1 g e_1' s* with G = sum_m A^m g e_1' A^(m+1),
      // the series (42) times A_F^r (algebra::constant_padding_seeds; its clamp_tail is the
      // coefficient of c). s_{n-1} = (y[n-1], ..., y[n-r]); entries before the line come from
      // the causal map.
      for (int k = 0; k < r; ++k) {
        const std::vector<double> gk = column(cp.G, k);
        const int i = n - 1 - k;
        if (i >= 0)
          from_y.add_column(i, gk);
        else
          add_prior_output(from_x, gk, -i, maps.causal_from_x);
      }
      if (ext == Extension::Clamp) from_x.add_column(n - 1, cp.clamp_tail);
      break;
    }
    case Extension::Repeat: {
      // eq. (51): e(Z) = (I - A_R^h)^-1 p_1(Z•); the causal output is n-periodic, so
      //   t_n = sum_j (I - A^n)^-1 A^j g y[j].
      const auto b = periodic_sums(f, n);
      for (std::size_t q = 0; q < b.size(); ++q) from_y.add_column(int(q), rounded(b[q]));
      break;
    }
    case Extension::Mirror: {
      // eqs. (68)-(70): the output of a symmetric filter on an even-periodic input is
      // even-periodic, so z[n+k] = z[n-1-k], i.e. running the anticausal recursion r steps back
      // from t_n gives K t_n:  K t_n = A^r t_n + sum_{k=1..r} A^(r-k) g y[n-k], hence
      //   t_n = (K - A^r)^-1 sum_k A^(r-k) g y[n-k]   (L = (K - A_R^r)^-1 Abar_R of eq. 70).
      // K - A^r is non-singular by theorem A.6.
      const Matrix M = algebra::mirror_anticausal_seed(f);  // column k-1 multiplies y[n-k]
      for (int k = r; k >= 1; --k) {
        const std::vector<double> c = column(M, k - 1);
        const int i = n - k;
        if (i >= 0)
          from_y.add_column(i, c);
        else
          add_prior_output(from_x, c, -i, maps.causal_from_x);
      }
      break;
    }
  }
  maps.anticausal_from_y = finish(from_y);
  maps.anticausal_from_x = finish(from_x);
  return maps;
}

}  // namespace

BoundaryMaps boundary_maps(const Recursive& f, Extension ext, int n) {
  try {
    return build_maps(f, ext, n);
  } catch (const std::domain_error&) {
    // Only a pole on the unit circle (e.g. the summed-area table) makes these systems singular.
    throw InvalidParameter(std::string("boundary_maps: extension '") + to_string(ext) +
                           "' is undefined for a filter with a pole on the unit circle");
  }
}

}  // namespace rf
