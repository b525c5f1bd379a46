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

// Every Neumann series of the paper (theorems A.1, A.2) is a sum over the states s_m = A^m g
// (m = 0, 1, ...) of the causal recursion after a unit sample (the impulse response h and its
// r - 1 predecessors) and the rows e_1' A^(m+1). They are generated once, in a single pass, and
// summed term by term until negligible: as accurate as the recursion itself, whereas inverting
// I - A^P in the companion basis loses up to six digits for clustered poles near 1.
struct ImpulseSums {
  // B[q] = sum_{k >= 0} A^(q + k P) g = (I - A^P)^-1 A^q g for q < min(P, terms), the
  // geometric series of eqs. (35), (49), (51) and (52); empty when no period was asked for.
  std::vector<std::vector<Wide>> periodic;
  // G = sum_m A^m g e_1' A^(m+1), row-major r x r: the series (42) times A_F^r.
  std::vector<Wide> G;
  std::vector<std::vector<Wide>> first_states;  // s_0 .. s_(r-1)
};

ImpulseSums impulse_sums(const Recursive& f, long long period, bool with_g) {
  constexpr long long kLimit = 1LL << 26;
  const int r = f.order();
  ImpulseSums out;
  if (with_g) out.G.assign(std::size_t(r) * r, 0.0L);
  std::vector<Wide> state(r, 0.0L), row(r);
  state[0] = f.b0;
  for (int k = 0; k < r; ++k) row[k] = -Wide(f.a[k]);
  auto peak = [](const std::vector<Wide>& v) {
    Wide m = 0.0L;
    for (Wide x : v) m = std::max(m, std::abs(x));
    return m;
  };
  Wide peak_s = 0.0L, peak_g = 0.0L;
  for (long long m = 0;; ++m) {
    if (m >= kLimit)
      throw InvalidParameter(
          "boundary_maps: the impulse response does not decay (a pole on or too close to the "
          "unit circle)");
    const Wide ps = peak(state), pg = ps * peak(row);
    peak_s = std::max(peak_s, ps);
    peak_g = std::max(peak_g, pg);
    // Columns below 1e-17 of the peak are dropped, so terms below 1e-19 no longer matter.
    if (m >= r && ps < 1e-19L * peak_s && (!with_g || pg < 1e-19L * peak_g)) break;
    if (m < r) out.first_states.push_back(state);
    if (period > 0) {
      if (m < period)
        out.periodic.push_back(state);
      else
        for (int k = 0; k < r; ++k) out.periodic[std::size_t(m % period)][k] += state[k];
    }
    if (with_g)
      for (int i = 0; i < r; ++i)
        for (int j = 0; j < r; ++j) out.G[std::size_t(i) * r + j] += state[i] * row[j];
    // state <- A state; row <- row A, where (row A)_j = -row_0 a_(j+1) + row_(j+1).
    Wide first = 0.0L;
    for (int k = 0; k < r; ++k) first -= Wide(f.a[k]) * state[k];
    for (int k = r - 1; k > 0; --k) state[k] = state[k - 1];
    state[0] = first;
    const Wide r0 = row[0];
    for (int k = 0; k < r; ++k) row[k] = -r0 * Wide(f.a[k]) + (k + 1 < r ? row[k + 1] : 0.0L);
  }
  return out;
}

// Solves M X = B for small square M by Gaussian elimination with partial pivoting, in Wide.
std::vector<std::vector<Wide>> solve_wide(std::vector<std::vector<Wide>> m,
                                          std::vector<std::vector<Wide>> b) {
  const int n = int(m.size());
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int i = c + 1; i < n; ++i)
      if (std::abs(m[i][c]) > std::abs(m[p][c])) p = i;
    if (m[p][c] == 0.0L) throw std::domain_error("boundary_maps: singular system");
    std::swap(m[p], m[c]);
    std::swap(b[p], b[c]);
    for (int i = 0; i < n; ++i) {
      if (i == c) continue;
      const Wide factor = m[i][c] / m[c][c];
      for (int j = c; j < n; ++j) m[i][j] -= factor * m[c][j];
      for (std::size_t j = 0; j < b[i].size(); ++j) b[i][j] -= factor * b[c][j];
    }
  }
  for (int i = 0; i < n; ++i)
    for (Wide& v : b[i]) v /= m[i][i];
  return b;
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
  const long long period = ext == Extension::Clamp    ? 1
                           : ext == Extension::Repeat ? n
                           : ext == Extension::Mirror ? 2LL * n
                                                      : 0;
  const bool with_g = anticausal && (ext == Extension::Zero || ext == Extension::Clamp);
  const ImpulseSums sums = impulse_sums(f, period, with_g);

  // Causal initial feedback p(Y) = s_{-1} = sum_{m >= 0} A^m g x_ext[-1-m].
  switch (ext) {
    case Extension::Ignore:
    case Extension::Zero:
      break;
    case Extension::Clamp:
      // eq. (35): p(Y) = S_F Abar_F C_up, S_F = (I - A_F^r)^-1; in state form
      // s_{-1} = sum_m A^m g x[0] = (I - A)^-1 g x[0].
      causal.add_column(0, rounded(sums.periodic[0]));
      break;
    case Extension::Repeat: {
      // eq. (49): p(Y) = (I - A_F^h)^-1 e_{-1}(Y°) with e_{-1}(Y°) = T(F(0, X)); in state form
      // s_{-1} = sum_j (I - A^n)^-1 A^(n-1-j) g x[j].
      for (std::size_t q = 0; q < sums.periodic.size(); ++q)
        causal.add_column(n - 1 - int(q), rounded(sums.periodic[q]));
      break;
    }
    case Extension::Mirror: {
      // eq. (52): the periodic extension of X ++ K(X), period 2n. Sample x[m] appears m samples
      // (reflected copy) and 2n-1-m samples (direct copy) before position -1:
      //   s_{-1} = sum_m (I - A^2n)^-1 (A^m + A^(2n-1-m)) g x[m].
      for (std::size_t q = 0; q < sums.periodic.size(); ++q)
        causal.add_column(int(q) < n ? int(q) : 2 * n - 1 - int(q), rounded(sums.periodic[q]));
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
      // the series (42) times A_F^r, summed term by term.
      const std::vector<Wide>& gw = sums.G;
      Matrix G(r, r);
      for (std::size_t i = 0; i < gw.size(); ++i) G.v[i] = double(gw[i]);
      // s_{n-1} = (y[n-1], ..., y[n-r]); entries before the line come from the causal map.
      for (int k = 0; k < r; ++k) {
        const std::vector<double> gk = column(G, k);
        const int i = n - 1 - k;
        if (i >= 0)
          from_y.add_column(i, gk);
        else
          add_prior_output(from_x, gk, -i, maps.causal_from_x);
      }
      if (ext == Extension::Clamp) {
        const std::vector<Wide>& steady = sums.periodic[0];  // s* per unit of c
        std::vector<Wide> tail(r);
        for (int i = 0; i < r; ++i) {
          tail[i] = steady[i] * steady[0];
          for (int j = 0; j < r; ++j) tail[i] -= gw[std::size_t(i) * r + j] * steady[j];
        }
        from_x.add_column(n - 1, rounded(tail));
      }
      break;
    }
    case Extension::Repeat: {
      // eq. (51): e(Z) = (I - A_R^h)^-1 p_1(Z•); the causal output is n-periodic, so
      //   t_n = sum_j (I - A^n)^-1 A^j g y[j].
      for (std::size_t q = 0; q < sums.periodic.size(); ++q)
        from_y.add_column(int(q), rounded(sums.periodic[q]));
      break;
    }
    case Extension::Mirror: {
      // eqs. (68)-(70): the output of a symmetric filter on an even-periodic input is
      // even-periodic, so z[n+k] = z[n-1-k], i.e. running the anticausal recursion r steps back
      // from t_n gives K t_n:  K t_n = A^r t_n + sum_{k=1..r} A^(r-k) g y[n-k], hence
      //   t_n = (K - A^r)^-1 sum_k A^(r-k) g y[n-k]   (L = (K - A_R^r)^-1 Abar_R of eq. 70).
      // K - A^r is non-singular by theorem A.6.
      // Columns c_k = (K - A^r)^-1 A^(r-k) g, k = 1..r, solved together in Wide: A^r is the
      // state after r steps, so column j of A^r is the recursion run r steps from e_j.
      std::vector<std::vector<Wide>> sys(r, std::vector<Wide>(r, 0.0L));
      std::vector<std::vector<Wide>> rhs(r, std::vector<Wide>(r, 0.0L));
      for (int j = 0; j < r; ++j) {
        std::vector<Wide> v(r, 0.0L);
        v[j] = 1.0L;
        for (int step = 0; step < r; ++step) {
          Wide first = 0.0L;
          for (int k = 0; k < r; ++k) first -= Wide(f.a[k]) * v[k];
          for (int k = r - 1; k > 0; --k) v[k] = v[k - 1];
          v[0] = first;
        }
        for (int i = 0; i < r; ++i) sys[i][j] = (i == r - 1 - j ? 1.0L : 0.0L) - v[i];
      }
      // rhs column (r - k) holds A^(r-k) g: g, A g, ... are the impulse states s_0, s_1, ...
      for (int q = 0; q < r; ++q)
        for (int i = 0; i < r; ++i) rhs[i][q] = sums.first_states[q][i];
      const auto cols = solve_wide(sys, rhs);
      for (int k = r; k >= 1; --k) {
        std::vector<double> c(r);
        for (int i = 0; i < r; ++i) c[i] = double(cols[i][r - k]);
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
