// The parallel (modal) form of a recursive filter and the block algebra of the fully overlapped
// algorithm written in it. Plain C++, no CUDA types.
//
// The direct form y_i = b0 x_i - sum_k a_k y_{i-k} carries its state as the last r outputs. For
// Gaussians of large sigma its poles crowd near z = 1, those outputs are nearly collinear, and
// both the float recursion (rounding amplified by 1 / b0, ~1e5 at order 3, sigma 64) and the
// exact boundary feedbacks written in that state (Nehab & Maximo 2016, eq. 70) lose digits. The
// partial-fraction expansion
//   H(z) = b0 / (1 + sum_k a_k z^-k) = sum_k c_k / (1 - p_k z^-1)
// runs the same filter as r independent first-order recursions u_k <- p_k u_k + c_k x with
// y = sum_k u_k: each mode's rounding is amplified by about 1 / sqrt(1 - |p_k|^2) only, the block
// transfer A^b is diagonal, and every extension's feedback (eqs. 35, 44, 49, 51, 52, 67, 72 of the
// paper) becomes a diagonal or well-conditioned map of mode states.
//
// Real basis of the state: the real modes first (one component each), then each complex pair as
// (Re u, Im u) of its mode with Im p > 0; a pair adds 2 Re u to the output.
#pragma once

#include <complex>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/extension.h"

namespace rf::modal {

struct Form {
  int order = 0;
  int real_modes = 0;     // NR
  int complex_pairs = 0;  // NC; order = NR + 2 NC
  bool causal_only = false;
  // Per mode, real modes first: pole p and residue c (imaginary parts 0 for real modes).
  std::vector<double> pole_re, pole_im, residue_re, residue_im;
  // How much the mode sum y = sum_k u_k cancels: sum over all poles of |c_k| / (1 - |p_k|), over
  // the L1 norm of the impulse response. 1 for a single real pole; a few for the Gaussians.
  double condition = 1.0;
  double l1 = 1.0;  // the L1 norm of the impulse response sum_t |h_t|
  int modes() const { return real_modes + complex_pairs; }
};

// Throws std::domain_error when poles repeat (to within the precision of the coefficients) or lie
// on or outside the unit circle; the summed-area table (pole 1, causal only) is allowed.
Form modal_form(const Recursive& f);

// A dense row-major matrix of doubles in the real basis above.
struct Mat {
  int rows = 0, cols = 0;
  std::vector<double> v;
  Mat() = default;
  Mat(int r, int c) : rows(r), cols(c), v(std::size_t(r) * c, 0.0) {}
  double& operator()(int i, int j) { return v[std::size_t(i) * cols + j]; }
  double operator()(int i, int j) const { return v[std::size_t(i) * cols + j]; }
};
Mat operator*(const Mat& a, const Mat& b);
Mat power(const Mat& a, long long p);  // by repeated squaring

// Every pole of the form, conjugates included, with its residue, in extended precision: what the
// closed forms of the plan sum over. A real-basis state and the values of all modes convert into
// each other; the mode sum y = sum_k u_k of any state is real.
using Cx = std::complex<long double>;
struct Poles {
  std::vector<Cx> p, c;
  std::vector<int> basis;  // first real-basis component of the mode
  std::vector<bool> conj;  // the conjugate of a represented pair (Im p < 0)
  int order = 0;
  std::size_t size() const { return p.size(); }
  std::vector<Cx> modes_of(const std::vector<long double>& state) const;
  std::vector<long double> state_of(const std::vector<Cx>& modes) const;
};
Poles poles(const Form& m);

// The r x r real matrix of a linear map of mode values, column by column.
template <class Map>
Mat matrix_of(const Poles& a, Map map) {
  const int r = a.order;
  Mat out(r, r);
  for (int col = 0; col < r; ++col) {
    std::vector<long double> e(std::size_t(r), 0.0L);
    e[std::size_t(col)] = 1.0L;
    const std::vector<long double> s = a.state_of(map(a.modes_of(e)));
    for (int i = 0; i < r; ++i) out(i, col) = double(s[std::size_t(i)]);
  }
  return out;
}

// The one truncation policy of the plan. A sum over an impulse response is cut after L samples
// when what the response still holds past L, sum over all poles of |c_k| |p_k|^L / (1 - |p_k|),
// is below `unit` times its L1 norm: `unit` is the rounding unit of the arithmetic that uses the
// sum, with three digits to spare (kDoubleUnit, kFloatUnit). Throws InvalidParameter when L
// exceeds 2^26 (a pole on or too close to the unit circle).
inline constexpr double kDoubleUnit = 1e-19;
inline constexpr double kFloatUnit = 6e-11;
long long tail_length(const Form& m, double unit);

// The matrices of one block of `len` samples (Nehab et al. 2011, eqs. 11-14, 24-29, 34-39, in mode
// states): "causal" runs forward from the state entering the block, "anticausal" backward from the
// state entering it from the right.
struct BlockMatrices {
  int len = 0;
  Mat D;          // r x r: state across a block of zero input, A^b of eq. (14)
  Mat A_FP;       // len x r: causal outputs from the entering state
  Mat A_RE;       // len x r: anticausal outputs from the entering state
  Mat ARB_AFP;    // len x r: anticausal outputs (zero entering state) of A_FP, eq. (37)
  Mat T_AFB;      // r x len: causal state leaving the block from each input sample
  Mat H_ARB;      // r x len: anticausal state leaving the block (at its start) from each sample
  Mat H_ARB_AFB;  // r x len: H_ARB applied to the causal output of each sample, eq. (39)
  Mat H_ARB_AFP;  // r x r: H_ARB A_FP, eq. (34)
};
BlockMatrices block_matrices(const Form& m, int len);

// The exact initial feedbacks of a line of n samples in mode states (Nehab & Maximo 2016, sec. 4,
// with u the causal state entering the line, w the anticausal state entering it from the right):
//   Zero:   u = 0;                            w = G u_end                     eqs. (35), (44)
//   Clamp:  u = S x_0;                        w = G u_end + clamp_tail x_{n-1}
//   Repeat: u = Q_n ubar;                     w = Q_n wbar                    eqs. (49), (51)
//   Mirror: u = Q_2n (D_n ubar + hbar);       w = M u_end                     eqs. (52), (67)-(72)
//   Reflect101: u = R_h hbar + R_u ubar + r_first x_0 + r_last x_{n-1};  w = W101 u_end + w_last
//   x_{n-1}
// u_end is the causal state after the last sample, ubar the same from a zero start, wbar the
// anticausal state before the first sample from a zero start (on the complete causal output), hbar
// the anticausal recursion of the input itself from a zero start, before its first sample.
//
// Reflect101, the whole-sample symmetric extension (period 2n - 2), follows the same derivation as
// the paper's mirror (eqs. 52 and 67-72) with the line's end samples left out of the reflection:
// per mode, with Q' = 1 / (1 - p^(2n-2)) and c the residue,
//   u = Q' ((hbar - c x_0) / p + p^(n-2) (ubar - c x_{n-1}))
//   w = G u_end + K o (u_end - c x_{n-1}) / p,   K_l = sum_k c_k / (1 - p_l p_k)
// since the samples past the end, x_{n-2}, x_{n-3}, ..., are the causal state one sample before
// the end read backwards. A line of one sample reflects onto itself: the clamp's seeds.
struct Seeds {
  std::vector<double> S, clamp_tail;            // r
  Mat G, Q_n, Q_2n, D_n, M;                     // r x r
  Mat R_h, R_u, W101;                           // r x r (R_h and R_u act on each mode alone)
  std::vector<double> r_first, r_last, w_last;  // r
};
Seeds seeds(const Form& m, int n);

// One step of the recursion in mode states, in long double (tests and plan-time simulation).
long double step(const Form& m, std::vector<long double>& state, long double x);

}  // namespace rf::modal
