#include "filters/recursive/block_algebra.h"

#include <cassert>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace rf::algebra {

Matrix identity(int n) {
  Matrix m(n, n);
  for (int i = 0; i < n; ++i) m(i, i) = 1.0;
  return m;
}

Matrix exchange(int n) {
  Matrix m(n, n);
  for (int i = 0; i < n; ++i) m(i, n - 1 - i) = 1.0;
  return m;
}

Matrix operator*(const Matrix& a, const Matrix& b) {
  assert(a.cols == b.rows);
  Matrix c(a.rows, b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int k = 0; k < a.cols; ++k) {
      const double aik = a(i, k);
      if (aik == 0.0) continue;
      for (int j = 0; j < b.cols; ++j) c(i, j) += aik * b(k, j);
    }
  return c;
}

Matrix operator+(const Matrix& a, const Matrix& b) {
  assert(a.rows == b.rows && a.cols == b.cols);
  Matrix c = a;
  for (std::size_t i = 0; i < c.v.size(); ++i) c.v[i] += b.v[i];
  return c;
}

Matrix operator-(const Matrix& a, const Matrix& b) {
  assert(a.rows == b.rows && a.cols == b.cols);
  Matrix c = a;
  for (std::size_t i = 0; i < c.v.size(); ++i) c.v[i] -= b.v[i];
  return c;
}

Matrix operator*(double s, const Matrix& a) {
  Matrix c = a;
  for (double& x : c.v) x *= s;
  return c;
}

std::vector<double> operator*(const Matrix& a, const std::vector<double>& x) {
  assert(int(x.size()) == a.cols);
  std::vector<double> y(a.rows, 0.0);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j) y[i] += a(i, j) * x[j];
  return y;
}

Matrix transpose(const Matrix& a) {
  Matrix t(a.cols, a.rows);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j) t(j, i) = a(i, j);
  return t;
}

namespace {

// Solves A X = B in place (A square); B becomes X.
void solve_in_place(Matrix a, Matrix& b) {
  const int n = a.rows;
  assert(a.cols == n && b.rows == n);
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int i = col + 1; i < n; ++i)
      if (std::abs(a(i, col)) > std::abs(a(pivot, col))) pivot = i;
    if (a(pivot, col) == 0.0 || !std::isfinite(a(pivot, col)))
      throw std::domain_error("block algebra: singular matrix");
    if (pivot != col) {
      for (int j = 0; j < n; ++j) std::swap(a(col, j), a(pivot, j));
      for (int j = 0; j < b.cols; ++j) std::swap(b(col, j), b(pivot, j));
    }
    const double inv = 1.0 / a(col, col);
    for (int i = col + 1; i < n; ++i) {
      const double f = a(i, col) * inv;
      if (f == 0.0) continue;
      for (int j = col; j < n; ++j) a(i, j) -= f * a(col, j);
      for (int j = 0; j < b.cols; ++j) b(i, j) -= f * b(col, j);
    }
  }
  for (int col = n - 1; col >= 0; --col) {
    for (int j = 0; j < b.cols; ++j) {
      double s = b(col, j);
      for (int k = col + 1; k < n; ++k) s -= a(col, k) * b(k, j);
      b(col, j) = s / a(col, col);
    }
  }
}

}  // namespace

Matrix inverse(const Matrix& a) {
  Matrix x = identity(a.rows);
  solve_in_place(a, x);
  return x;
}

Matrix power(const Matrix& a, long long p) {
  assert(a.rows == a.cols && p >= 0);
  Matrix result = identity(a.rows);
  Matrix base = a;
  while (p > 0) {
    if (p & 1) result = result * base;
    p >>= 1;
    if (p > 0) base = base * base;
  }
  return result;
}

Matrix solve_stein(const Matrix& a, const Matrix& b, const Matrix& c) {
  const int r = c.rows, s = c.cols;
  assert(a.rows == r && a.cols == r && b.rows == s && b.cols == s);
  // Unknown X(i, j) is entry i * s + j; equation (i, j): X_ij - sum_kl A_ik X_kl B_lj = C_ij.
  const int n = r * s;
  Matrix sys = identity(n);
  Matrix rhs(n, 1);
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < s; ++j) {
      rhs(i * s + j, 0) = c(i, j);
      for (int k = 0; k < r; ++k)
        for (int l = 0; l < s; ++l) sys(i * s + j, k * s + l) -= a(i, k) * b(l, j);
    }
  solve_in_place(sys, rhs);
  Matrix x(r, s);
  for (int i = 0; i < n; ++i) x.v[i] = rhs(i, 0);
  return x;
}

Matrix companion(const Recursive& f) {
  const int r = f.order();
  Matrix m(r, r);
  for (int k = 0; k < r; ++k) m(0, k) = -f.a[k];
  for (int k = 1; k < r; ++k) m(k, k - 1) = 1.0;
  return m;
}

bool is_stable(const Recursive& f) {
  // Step-down recursion on 1 + a_1 z^-1 + ... + a_r z^-r: stable iff every reflection
  // coefficient k = c_r / c_0 has |k| < 1.
  std::vector<long double> c{1.0L};
  for (double a : f.a) c.push_back(a);
  for (int r = int(c.size()) - 1; r > 0; --r) {
    const long double k = c[r] / c[0];
    if (!(std::abs(k) < 1.0L)) return false;
    std::vector<long double> next(r);
    for (int i = 0; i < r; ++i) next[i] = (c[i] - k * c[r - i]) / (1.0L - k * k);
    c = std::move(next);
  }
  return true;
}

std::vector<float> to_float(const Matrix& m) {
  return {m.v.begin(), m.v.end()};
}

namespace {

// Sums of many terms whose magnitudes exceed the result by up to ~1e4 for clustered poles near 1
// run in extended precision and are rounded to double once.
using Wide = long double;
using WideVec = std::vector<Wide>;

// v <- A v (one step of the recursion with zero input).
void step(const Recursive& f, WideVec& v) {
  Wide first = 0.0L;
  for (int k = 0; k < f.order(); ++k) first -= Wide(f.a[k]) * v[k];
  for (int k = f.order() - 1; k > 0; --k) v[k] = v[k - 1];
  v[0] = first;
}

// row <- row A, where (row A)_j = -row_0 a_(j+1) + row_(j+1).
void step_row(const Recursive& f, WideVec& row) {
  const Wide r0 = row[0];
  const int r = f.order();
  for (int k = 0; k < r; ++k) row[k] = -r0 * Wide(f.a[k]) + (k + 1 < r ? row[k + 1] : 0.0L);
}

Wide peak(const WideVec& v) {
  Wide m = 0.0L;
  for (Wide x : v) m = std::abs(x) > m ? std::abs(x) : m;
  return m;
}

WideVec unit(int r, int k) {
  WideVec v(r, 0.0L);
  v[k] = 1.0L;
  return v;
}

// s_j = A^j g for j = 0..count-1 (g = b0 e_1): the impulse response and its predecessors.
std::vector<WideVec> impulse_states(const Recursive& f, int count) {
  std::vector<WideVec> s;
  WideVec v(f.order(), 0.0L);
  v[0] = f.b0;
  for (int j = 0; j < count; ++j) {
    s.push_back(v);
    step(f, v);
  }
  return s;
}

// rho_j = e_1' A^(j+1) for j = 0..count-1: the output after j+1 steps from each unit state.
std::vector<WideVec> impulse_rows(const Recursive& f, int count) {
  std::vector<WideVec> rows;
  WideVec row(f.order());
  for (int k = 0; k < f.order(); ++k) row[k] = -Wide(f.a[k]);
  for (int j = 0; j < count; ++j) {
    rows.push_back(row);
    step_row(f, row);
  }
  return rows;
}

// Column c of A^p is the recursion run p steps from e_c.
Matrix power_of_companion(const Recursive& f, long long p) {
  const int r = f.order();
  Matrix m(r, r);
  for (int c = 0; c < r; ++c) {
    WideVec v = unit(r, c);
    for (long long i = 0; i < p; ++i) {
      step(f, v);
      if (peak(v) == 0.0L) break;
    }
    for (int i = 0; i < r; ++i) m(i, c) = double(v[i]);
  }
  return m;
}

// (I - A^p)^-1 = sum_k A^(k p), summed column by column until the terms are negligible.
Matrix periodic_inverse(const Recursive& f, long long p) {
  constexpr long long kLimit = 1LL << 26;
  const int r = f.order();
  Matrix m(r, r);
  for (int c = 0; c < r; ++c) {
    WideVec v = unit(r, c), acc(r, 0.0L);
    Wide top = 1.0L;
    for (long long i = 0;; ++i) {
      if (i >= kLimit) throw std::domain_error("block algebra: the recursion does not decay");
      if (i % p == 0)
        for (int k = 0; k < r; ++k) acc[k] += v[k];
      step(f, v);
      const Wide pv = peak(v);
      top = pv > top ? pv : top;
      if (i >= r && pv < 1e-21L * top) break;
    }
    for (int k = 0; k < r; ++k) m(k, c) = double(acc[k]);
  }
  return m;
}

// Solves M X = B (M square) in Wide by Gauss-Jordan elimination with partial pivoting.
std::vector<WideVec> solve_wide(std::vector<WideVec> m, std::vector<WideVec> b) {
  const int n = int(m.size());
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int i = c + 1; i < n; ++i)
      if (std::abs(m[i][c]) > std::abs(m[p][c])) p = i;
    if (m[p][c] == 0.0L) throw std::domain_error("block algebra: singular matrix");
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

}  // namespace

BlockMatrices block_matrices(const Recursive& f, int len) {
  const int r = f.order();
  if (r < 1 || len < 1) throw std::domain_error("block algebra: empty filter or block");
  BlockMatrices bm;
  bm.r = r;
  bm.len = len;
  const auto s = impulse_states(f, len + 1);
  const auto rho = impulse_rows(f, len);
  auto h = [&](int j) { return j < 0 ? 0.0L : s[j][0]; };

  bm.A_Fb = power_of_companion(f, len);
  bm.A_FP = Matrix(len, r);
  bm.A_RE = Matrix(len, r);
  bm.A_FB = Matrix(len, len);
  bm.A_RB = Matrix(len, len);
  bm.T_AFB = Matrix(r, len);
  bm.H_ARB = Matrix(r, len);
  bm.H_ARB_AFP = Matrix(r, r);
  bm.ARB_AFP = Matrix(len, r);
  bm.H_ARB_AFB = Matrix(r, len);
  for (int i = 0; i < len; ++i)
    for (int c = 0; c < r; ++c) {
      bm.A_FP(i, c) = double(rho[i][c]);            // y_i = e_1' A^(i+1) p
      bm.A_RE(i, c) = double(rho[len - 1 - i][c]);  // z_i = e_1' A^(len-i) e
    }
  for (int i = 0; i < len; ++i)
    for (int j = 0; j < len; ++j) {
      bm.A_FB(i, j) = double(h(i - j));
      bm.A_RB(i, j) = double(h(j - i));
    }
  for (int j = 0; j < len; ++j)
    for (int k = 0; k < r; ++k) {
      bm.T_AFB(k, j) = double(s[len - 1 - j][k]);
      bm.H_ARB(k, j) = double(s[j][k]);
    }
  for (int k = 0; k < r; ++k)
    for (int c = 0; c < r; ++c) {
      Wide acc = 0.0L;
      for (int j = 0; j < len; ++j) acc += s[j][k] * rho[j][c];
      bm.H_ARB_AFP(k, c) = double(acc);
    }
  for (int i = 0; i < len; ++i)
    for (int c = 0; c < r; ++c) {
      Wide acc = 0.0L;
      for (int j = i; j < len; ++j) acc += h(j - i) * rho[j][c];
      bm.ARB_AFP(i, c) = double(acc);
    }
  for (int j = 0; j < len; ++j)
    for (int k = 0; k < r; ++k) {
      Wide acc = 0.0L;
      for (int i = j; i < len; ++i) acc += s[i][k] * h(i - j);
      bm.H_ARB_AFB(k, j) = double(acc);
    }
  return bm;
}

ConstantPaddingSeeds constant_padding_seeds(const Recursive& f) {
  // S = sum_m A^m g and G = sum_m A^m g e_1' A^(m+1), both summed until negligible.
  if (!is_stable(f)) throw std::domain_error("block algebra: a pole on or outside the unit circle");
  constexpr long long kLimit = 1LL << 26;
  const int r = f.order();
  WideVec v(r, 0.0L), row(r), S(r, 0.0L), G(std::size_t(r) * r, 0.0L);
  v[0] = f.b0;
  for (int k = 0; k < r; ++k) row[k] = -Wide(f.a[k]);
  Wide top_s = 0.0L, top_g = 0.0L;
  for (long long m = 0;; ++m) {
    if (m >= kLimit) throw std::domain_error("block algebra: the recursion does not decay");
    const Wide ps = peak(v), pg = ps * peak(row);
    top_s = ps > top_s ? ps : top_s;
    top_g = pg > top_g ? pg : top_g;
    if (m >= r && ps < 1e-21L * top_s && pg < 1e-21L * top_g) break;
    for (int i = 0; i < r; ++i) {
      S[i] += v[i];
      for (int j = 0; j < r; ++j) G[std::size_t(i) * r + j] += v[i] * row[j];
    }
    step(f, v);
    step_row(f, row);
  }
  ConstantPaddingSeeds cp;
  cp.G = Matrix(r, r);
  for (std::size_t i = 0; i < G.size(); ++i) cp.G.v[i] = double(G[i]);
  cp.S.assign(S.begin(), S.end());
  cp.clamp_tail.resize(r);
  for (int i = 0; i < r; ++i) {
    Wide t = S[i] * S[0];
    for (int j = 0; j < r; ++j) t -= G[std::size_t(i) * r + j] * S[j];
    cp.clamp_tail[i] = double(t);
  }
  return cp;
}

Matrix mirror_anticausal_seed(const Recursive& f) {
  // (K - A^r) M = [A^(r-1) g, ..., A g, g]: column k-1 multiplies y[n-k], eq. (70). K - A^r is
  // non-singular by theorem A.6.
  const int r = f.order();
  std::vector<WideVec> sys(r, WideVec(r)), rhs(r, WideVec(r));
  for (int c = 0; c < r; ++c) {
    WideVec v = unit(r, c);
    for (int i = 0; i < r; ++i) step(f, v);
    for (int i = 0; i < r; ++i) sys[i][c] = (i == r - 1 - c ? 1.0L : 0.0L) - v[i];
  }
  const auto s = impulse_states(f, r);
  for (int k = 1; k <= r; ++k)
    for (int i = 0; i < r; ++i) rhs[i][k - 1] = s[r - k][i];
  const auto x = solve_wide(sys, rhs);
  Matrix m(r, r);
  for (int i = 0; i < r; ++i)
    for (int c = 0; c < r; ++c) m(i, c) = double(x[i][c]);
  return m;
}

ExtensionSeeds extension_seeds(const Recursive& f, Extension ext, int n) {
  const int r = f.order();
  if (r < 1 || n < 1) throw std::domain_error("block algebra: empty filter or line");
  if (ext != Extension::Ignore && !is_stable(f))
    throw std::domain_error("block algebra: a pole on or outside the unit circle");
  ExtensionSeeds sd;
  sd.ext = ext;
  sd.r = r;
  sd.n = n;
  switch (ext) {
    case Extension::Ignore:
      break;
    case Extension::Zero:
    case Extension::Clamp: {
      ConstantPaddingSeeds cp = constant_padding_seeds(f);
      sd.S = std::move(cp.S);
      sd.clamp_tail = std::move(cp.clamp_tail);
      sd.G = std::move(cp.G);
      break;
    }
    case Extension::Repeat:
      sd.Q_n = periodic_inverse(f, n);
      break;
    case Extension::Mirror:
      sd.Q_2n = periodic_inverse(f, 2LL * n);
      sd.A_n = power_of_companion(f, n);
      sd.M = mirror_anticausal_seed(f);
      break;
  }
  return sd;
}

}  // namespace rf::algebra
