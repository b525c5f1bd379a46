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

// Columns of a geometric sequence v, A v, A^2 v, ... fall below 1e-17 of the map's peak long before
// they underflow; generating them further would only cost time (subnormal arithmetic).
bool negligible(const std::vector<double>& v, double peak) {
  for (double x : v)
    if (std::abs(x) >= 1e-20 * peak) return false;
  return true;
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// v <- A v for the companion matrix A, in O(r) and without allocating.
void advance(const Recursive& f, std::vector<double>& v) {
  double first = 0.0;
  for (int k = 0; k < f.order(); ++k) first -= f.a[k] * v[k];
  for (int k = f.order() - 1; k > 0; --k) v[k] = v[k - 1];
  v[0] = first;
}

std::vector<double> column(const Matrix& m, int j) {
  std::vector<double> c(m.rows);
  for (int i = 0; i < m.rows; ++i) c[i] = m(i, j);
  return c;
}

BoundaryMaps build_maps(const Recursive& f, Extension ext, int n) {
  const int r = f.order();
  if (r < 1) throw InvalidParameter("boundary_maps: the filter has no feedback coefficients");
  if (n < 1) throw InvalidParameter("boundary_maps: line length " + std::to_string(n) + " < 1");

  BoundaryMaps maps;
  maps.order = r;
  maps.n = n;
  MapBuilder causal(r), from_y(r), from_x(r);

  const Matrix A = algebra::companion(f);
  const Matrix I = algebra::identity(r);
  std::vector<double> g(r, 0.0);
  g[0] = f.b0;

  // Causal initial feedback p(Y) = s_{-1}.
  switch (ext) {
    case Extension::Ignore:
    case Extension::Zero:
      break;
    case Extension::Clamp:
      // eq. (35): p(Y) = S_F Abar_F C_up with S_F = (I - A_F^r)^-1; in state form
      // s_{-1} = sum_k A^k g x[0] = (I - A)^-1 g x[0].
      causal.add_column(0, algebra::inverse(I - A) * g);
      break;
    case Extension::Repeat: {
      // eq. (49): p(Y) = (I - A_F^h)^-1 e_{-1}(Y°) with e_{-1}(Y°) = T(F(0, X)) = sum_j A^(n-1-j) g
      // x[j]. (I - A^n)^-1 commutes with A, so the columns follow by repeated multiplication by A.
      std::vector<double> c = algebra::inverse(I - algebra::power(A, n)) * g;
      double peak = max_abs(c);
      for (int j = n - 1; j >= 0 && !negligible(c, peak); --j) {
        causal.add_column(j, c);
        advance(f, c);
        peak = std::max(peak, max_abs(c));
      }
      break;
    }
    case Extension::Mirror: {
      // eq. (52): the periodic extension of X ++ K(X), period 2n. Input x[m] appears at offsets m
      // (the reflected copy) and 2n-1-m (the direct copy) before position 0:
      //   s_{-1} = (I - A^2n)^-1 sum_m (A^m + A^(2n-1-m)) g x[m].
      const Matrix P2 = algebra::inverse(I - algebra::power(A, 2LL * n));
      std::vector<double> near = P2 * g;                          // A^m P2 g, m = 0..n-1
      std::vector<double> far = algebra::power(A, n) * (P2 * g);  // A^(2n-1-m) P2 g, m = n-1..0
      double peak = max_abs(near);
      for (int m = 0; m < n && !negligible(near, peak); ++m) {
        causal.add_column(m, near);
        advance(f, near);
        peak = std::max(peak, max_abs(near));
      }
      for (int m = n - 1; m >= 0 && !negligible(far, peak); --m) {
        causal.add_column(m, far);
        advance(f, far);
      }
      break;
    }
  }

  maps.causal_from_x = finish(causal);

  // Anticausal initial feedback e(Z) = t_n.
  if (!f.causal_only) switch (ext) {
      case Extension::Ignore:
        break;
      case Extension::Zero:
      case Extension::Clamp: {
        // eq. (44): e(Z) = S_RF A_F^r e_{-1}(Y) + (S_R Abar_R - S_RF A_F^r) S_F Abar_F C_down,
        // where S_RF solves eq. (43). In state form the causal output past the end is
        //   y[n+m] = e_1' (A^(m+1) (s_{n-1} - s*) + s*),  s* = (I - A)^-1 g c  (c = 0 for Zero),
        // and t_n = sum_m A^m g y[n+m] = b0 Q A (s_{n-1} - s*) + (I - A)^-1 g e_1' s*, with
        // Q = sum_m A^m e_1 e_1' A^m, the solution of Q - A Q A = e_1 e_1' (eq. 43).
        Matrix E(r, r);
        E(0, 0) = 1.0;
        const Matrix G = f.b0 * (algebra::solve_stein(A, A, E) * A);
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
          const std::vector<double> steady = algebra::inverse(I - A) * g;  // s* per unit of c
          const std::vector<double> gs = G * steady;
          std::vector<double> tail = algebra::inverse(I - A) * g;
          for (double& t : tail) t *= steady[0];
          for (int k = 0; k < r; ++k) tail[k] -= gs[k];
          from_x.add_column(n - 1, tail);
        }
        break;
      }
      case Extension::Repeat: {
        // eq. (51): e(Z) = (I - A_R^h)^-1 p_1(Z•); the causal output is n-periodic, so
        //   t_n = (I - A^n)^-1 sum_j A^j g y[j].
        std::vector<double> c = algebra::inverse(I - algebra::power(A, n)) * g;
        double peak = max_abs(c);
        for (int j = 0; j < n && !negligible(c, peak); ++j) {
          from_y.add_column(j, c);
          advance(f, c);
          peak = std::max(peak, max_abs(c));
        }
        break;
      }
      case Extension::Mirror: {
        // eqs. (68)-(70): the output of a symmetric filter on an even-periodic input is
        // even-periodic, so z[n+k] = z[n-1-k], i.e. running the anticausal recursion r steps back
        // from t_n gives K t_n:  K t_n = A^r t_n + sum_{k=1..r} A^(r-k) g y[n-k], hence
        //   t_n = (K - A^r)^-1 sum_k A^(r-k) g y[n-k]   (L = (K - A_R^r)^-1 Abar_R of eq. 70).
        // K - A^r is non-singular by theorem A.6.
        const Matrix L = algebra::inverse(algebra::exchange(r) - algebra::power(A, r));
        std::vector<double> d = g;  // A^(r-k) g, from k = r down to 1
        for (int k = r; k >= 1; --k) {
          const std::vector<double> c = L * d;
          const int i = n - k;
          if (i >= 0)
            from_y.add_column(i, c);
          else
            add_prior_output(from_x, c, -i, maps.causal_from_x);
          advance(f, d);
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
