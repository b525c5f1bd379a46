// The direct form seen from the modal algebra (modal.h). The direct form
//   y_i = b0 x_i - sum_{k=1..r} a_k y_{i-k}
// carries its state as the window of its last r outputs W_i = (y_i, y_{i-1}, ..., y_{i-r+1}); the
// modal form carries the mode states u_k(i) = p_k u_k(i-1) + c_k x_i with y_i = sum_k u_k(i). Both
// realise the same transfer function, so one state is a fixed linear map of the other whatever
// the input: W_i = V u(i) with V(m, k) = p_k^-m (m = 0..r-1), the anticausal window
// (z_i, z_{i+1}, ...) likewise. The one-thread-per-line filters (RT, on the CPU and CUDA) and the
// direct-form block algorithm 4 run windows; everything they need at plan time is derived here
// from the modal form's closed forms, so no second algebra computes seeds or block matrices.
//
// Conditioning: V is a Vandermonde matrix of the poles. When the poles crowd near z = 1 (wide
// high-order Gaussians) it is ill-conditioned, the window's r outputs are nearly collinear and a
// rounding of the window is amplified by up to cond(V) in what the recursion produces from it.
// window_condition() measures this, and the algorithms that carry windows through block matrices
// refuse a filter beyond their limit (window_limit).
#pragma once

#include <vector>

#include "filters/core/extension.h"
#include "filters/recursive/modal.h"

namespace rf::direct_form {

using modal::Mat;

// V: a real-basis mode state (modal.h) to the window, nearest output first.
Mat window_of_state(const modal::Form& m);
// V^-1: a window to the real-basis mode state.
Mat state_of_window(const modal::Form& m);
// ||V||_inf ||V^-1||_inf.
double window_condition(const modal::Form& m);

// An r x n matrix of which only the columns [first, first + count) can be nonzero, stored column
// by column: weight(k, j) = w[(j - first) * rows + k].
struct SparseColumns {
  int rows = 0;
  int first = 0;
  int count = 0;
  std::vector<double> w;

  double weight(int k, int j) const {
    return (j < first || j >= first + count) ? 0.0 : w[std::size_t(j - first) * rows + k];
  }
};

// The exact initial windows of one line of n samples x[0..n) for a sequential filter (Nehab &
// Maximo 2016, section 4, through the seeds of modal.h):
//   causal window      (y[-1], ..., y[-r])          = causal_from_x x
//   anticausal window  (z[n], ..., z[n+r-1])       = anticausal_from_x x + anticausal_from_y y
// with y the causal output of the line. anticausal_from_y is used by Repeat only (whose seed
// reads the start of y, eq. 51); the others reach the anticausal seed through the complete causal
// end state, itself a map of x. Columns whose weights are all below modal::kDoubleUnit of the
// largest are dropped, so applying a map costs O(r count).
//
// The constant extension adds a window per unit of its value k, the same whatever the line holds:
//   causal window += causal_from_value k, anticausal window += anticausal_from_value k
// (zero for the other extensions; the line's own samples enter as under Zero).
//
// State::Modes gives the same maps to the entering mode states instead of the windows (the real
// basis of modal.h: u for the causal recursion u_k(i) = p_k u_k(i-1) + c_k x_i, w for the
// anticausal one w_k(i) = p_k w_k(i+1) + c_k y_i): the seeds of a recursion run in the modal
// form, which no window condition limits (CUDA's rt beyond window_limit()).
enum class State { Window, Modes };
struct LineMaps {
  int order = 0;
  int n = 0;
  SparseColumns causal_from_x, anticausal_from_x, anticausal_from_y;
  std::vector<double> causal_from_value, anticausal_from_value;  // r each
};
LineMaps line_maps(const modal::Form& m, Extension ext, int n, State state = State::Window);
// The same for the filter f, whose modal form is built here (InvalidParameter if it has none).
LineMaps line_maps(const Recursive& f, Extension ext, int n, State state = State::Window);

// What the direct-form CUDA kernels (algorithm 4 and RT) read to seed a line from the samples of
// the extension itself: the causal window y_{-1-k} = sum_{i>=k} g_{i-k} x(-1-i) over the first
// pad + r - 1 samples before the line, and the anticausal window
// z_{n+m} = sum_t acorr(|t - m|) x(n + t) + (N W_end)_m over the first pad + r samples past it,
// where W_end = (y_{n-1}, ..., y_{n-r}) is the complete causal end window.
struct ExtensionTaps {
  // Samples of the extension read on each side: past them the impulse response holds less than
  // modal::kFloatUnit of its mass. 0 for Ignore, Zero and causal-only filters.
  int pad = 0;
  std::vector<double> g;      // g_j = sum_k c_k p_k^j, the causal impulse response, pad + r taps
  std::vector<double> acorr;  // acorr(d) = sum_u g_u g_{u+d}, pad + r taps
  Mat N;                      // the zero extension's anticausal window from W_end: V G V^-1
};
ExtensionTaps extension_taps(const modal::Form& m, Extension ext);
// Whether the direct form's seeds under `ext` read the line's samples: not where the extension
// is a value (ignore, zero; constant, whose seeds the CUDA kernels take as sums of the taps).
constexpr bool seeds_read_samples(Extension ext) {
  return ext != Extension::Ignore && ext != Extension::Zero && ext != Extension::Constant;
}
// The samples of the extension that the direct form's seeds of f read on each side of a line
// (ExtensionTaps::pad): none where seeds_read_samples says so, or f is causal only or has no
// modal form; for the Gaussian about 17 sigma at order 1, 24 at order 2, 21 at orders 3 to 5.
int seed_reads(const Recursive& f, Extension ext);

// The direct-form block matrices of one block of `len` samples (Nehab et al. 2011, eqs. 14, 24,
// 27, 34), windows nearest first, r x r:
//   T  the causal window leaving the block from the one entering it, zero input: V D^len V^-1
//   M  the anticausal window at the block's start from the causal window entering it (eq. 34)
//   U  the anticausal window leaving the block from the one entering it: equal to T
struct BlockMatrices {
  Mat T, M, U;
};
BlockMatrices block_matrices(const modal::Form& m, int len);

// The largest window condition with which the direct-form algorithms on CUDA (alg4, rt) still meet
// the accuracy of float output (each order's bound of the suites: 1e-5 relative up to order 3,
// 1e-4 above). Above it alg4 refuses the filter at plan time, naming the limit, and CUDA's rt runs
// its lines in the modal form. The CPU's rt applies its windows as weights of the line's samples
// and needs no limit. With `n`, the limit for lines of n samples: the error grows with the line
// too (alg4 and CUDA's lines in shared memory carry the windows across more blocks, RT's float
// causal result feeds a longer anticausal recursion), so lines longer than kWindowLimitLine
// samples take the limit times kWindowLimitLine / n; `runs` (alg4's carries, completed in runs of
// blocks through powers of the block matrix, which lose more again) that factor twice.
inline constexpr int kWindowLimitLine = 96;
double window_limit(int n = 0, bool runs = false);
// Whether the direct form holds f on lines of n samples (0: the shortest): its window condition
// within window_limit(n, runs) (true for a filter with no modal form, which the algorithms refuse
// with their own reason).
bool windows_hold(const Recursive& f, int n = 0, bool runs = false);

}  // namespace rf::direct_form
