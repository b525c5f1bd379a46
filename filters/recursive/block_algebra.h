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

#include "filters/core/design.h"
#include "filters/core/extension.h"

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

// Whether every pole of f lies strictly inside the unit circle (Schur-Cohn step-down test), i.e.
// whether the infinite sums behind the extension seeds converge.
bool is_stable(const Recursive& f);

// The block matrices of Nehab et al. 2011 (eqs. 11, 14, 34, 37, 39 and appendix A) for one block
// of `len` samples (the last block of a line may be shorter than the others, even shorter than r).
// Prologues and epilogues are state vectors (nearest first), so for any len
//   T(F(p, x)) = A^len p + T(A_FB) x      and      H(R(y, e)) = A^len e + H(A_RB) y.
struct BlockMatrices {
  int r = 0;
  int len = 0;
  Matrix A_Fb;       // A_F^b = T(A_FP) = H(A_RE) = A^len, eq. (14)          r x r
  Matrix A_FP;       // A_FP = F(I_r, 0): block output from the prologue      len x r
  Matrix A_RE;       // A_RE = R(0, I_r): block output from the epilogue      len x r
  Matrix A_FB;       // A_FB = F(0, I_b): causal filtering of the block       len x len
  Matrix A_RB;       // A_RB = R(I_b, 0): anticausal filtering of the block   len x len
  Matrix T_AFB;      // T(A_FB): prologue of the next block from the input    r x len
  Matrix H_ARB;      // H(A_RB): epilogue of the previous block from y        r x len
  Matrix H_ARB_AFP;  // H(A_RB) A_FP, eq. (34)                                r x r
  Matrix ARB_AFP;    // A_RB A_FP, eq. (37)                                   len x r
  Matrix H_ARB_AFB;  // H(A_RB) A_FB, eq. (39)                                r x len
};

// Computed in extended precision, rounded to double.
BlockMatrices block_matrices(const Recursive& f, int len);

// The exact initial feedbacks of one line direction (n samples) in carry form: algorithms 6c, 6p
// and 6e of Nehab & Maximo 2016 written for the state vectors above. With P_last = the complete
// prologue after the last block (y[n-1], ..., y[n-r]) and the carries of the stages of the block
// algorithm:
//   Zero:   p = 0;                                 e = G P_last                      eq. (44)
//   Clamp:  p = S x[0];                            e = G P_last + clamp_tail x[n-1]   eqs. (35),
//   (44) Repeat: p = Q_n T(F(0, X));                    e = Q_n H(R(Y, 0))                eqs.
//   (49), (51) Mirror: p = Q_2n (A_n T(F(0, X)) + H(R(X, 0)));  e = M P_last eqs. (52), (70)
// T(F(0, X)) is the causal carry chain started from zero, H(R(Y, 0)) the anticausal chain over
// the complete causal output started from zero, and H(R(X, 0)) the anticausal recursion applied to
// the input itself (the paper obtains it from p_1(Z°) by theorem A.4, eq. 62; running the
// recursion over the input is simpler and better conditioned). Ignore: p = e = 0.
struct ExtensionSeeds {
  Extension ext = Extension::Zero;
  int r = 0;
  int n = 0;
  std::vector<double> S;           // S_F Abar_F applied to a unit constant, eq. (35)        r
  std::vector<double> clamp_tail;  // (S_R Abar_R - S_RF A_F^r) S_F Abar_F, eq. (44)       r
  Matrix G;                        // S_RF A_F^r, eqs. (42)-(44)                           r x r
  Matrix Q_n;                      // (I - A^n)^-1, eqs. (49), (51)                        r x r
  Matrix Q_2n;                     // (I - A^2n)^-1, eq. (52)                              r x r
  Matrix A_n;                      // A^n, eq. (54)                                        r x r
  Matrix M;                        // (K - A^r)^-1 [A^(r-1) g ... g], eq. (70)             r x r
};

ExtensionSeeds extension_seeds(const Recursive& f, Extension ext, int n);

// The parts of ExtensionSeeds that do not depend on n, for callers that need only them.
struct ConstantPaddingSeeds {
  std::vector<double> S;           // as ExtensionSeeds::S, eq. (35)
  std::vector<double> clamp_tail;  // as ExtensionSeeds::clamp_tail, eq. (44)
  Matrix G;                        // as ExtensionSeeds::G, eqs. (42)-(44)
};
ConstantPaddingSeeds constant_padding_seeds(const Recursive& f);
Matrix mirror_anticausal_seed(const Recursive& f);  // ExtensionSeeds::M, eq. (70)

// Row-major float copy of a matrix, e.g. for upload to GPU constant memory.
std::vector<float> to_float(const Matrix& m);

}  // namespace rf::algebra
