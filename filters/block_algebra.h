// Block algebra of recursive filtering, in double: the matrices of Nehab et al. 2011 (block
// notation, algorithms 4/5, appendices A and B) for any order r and block size b, and the exact
// initial-feedback seeds of Nehab & Maximo 2016 in block form. Plain structs of doubles with no
// CUDA types, so a GPU backend can convert them to float and upload them to constant memory.
//
// Vector convention used throughout (it differs from the papers' by a reversal, see below):
//   a causal feedback vector is "nearest first":      p = (y[i-1], y[i-2], ..., y[i-r])
//   an anticausal feedback vector is "nearest first": e = (z[i+1], z[i+2], ..., z[i+r])
// With this ordering the causal and anticausal recursions share one companion matrix
//   A = [ -a1 -a2 ... -ar ]
//       [  1   0  ...  0  ]
//       [      ...        ]
//       [  0  ...  1   0  ]
// with s_i = A s_{i-1} + b0 e_1 x_i (causal) and t_i = A t_{i+1} + b0 e_1 y_i (anticausal).
// The papers store prologues oldest first (rows in image order); their A_F (eq. 49 of Nehab et al.
// 2011) is K A K with K the exchange matrix, so every paper formula holds here after conjugation by
// K.
#pragma once

#include <vector>

#include "filters/design.h"
#include "filters/extension.h"

namespace rf::algebra {

// A dense row-major matrix of doubles.
struct Matrix {
  int rows = 0;
  int cols = 0;
  std::vector<double> v;

  Matrix() = default;
  Matrix(int r, int c) : rows(r), cols(c), v(std::size_t(r) * c, 0.0) {}
  double& operator()(int i, int j) { return v[std::size_t(i) * cols + j]; }
  double operator()(int i, int j) const { return v[std::size_t(i) * cols + j]; }
};

Matrix identity(int n);
Matrix exchange(int n);  // K: the identity with its rows reversed
Matrix operator*(const Matrix& a, const Matrix& b);
Matrix operator+(const Matrix& a, const Matrix& b);
Matrix operator-(const Matrix& a, const Matrix& b);
Matrix operator*(double s, const Matrix& a);
std::vector<double> operator*(const Matrix& a, const std::vector<double>& x);
Matrix transpose(const Matrix& a);
// Gaussian elimination with partial pivoting; throws std::domain_error when singular.
Matrix inverse(const Matrix& a);
Matrix power(const Matrix& a, long long p);  // by repeated squaring
// X with X - A X B = C (a Stein equation), solved as an (r r) x (r r) linear system.
Matrix solve_stein(const Matrix& a, const Matrix& b, const Matrix& c);

// The companion matrix A of f described above (r x r).
Matrix companion(const Recursive& f);

}  // namespace rf::algebra
