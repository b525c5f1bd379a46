#include "filters/block_algebra.h"

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

}  // namespace rf::algebra
