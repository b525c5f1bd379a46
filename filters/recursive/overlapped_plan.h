// The host half of the overlapped recursive filter: every matrix the kernels need, computed in
// double from the filter design (Nehab et al. 2011, eqs. 11-14, 24, 34). Plain C++, no CUDA types.
#pragma once

#include <vector>

#include "filters/core/design.h"
#include "filters/core/extension.h"

namespace rf::cuda {

// Row-major r x r matrices that carry block states across one block of `len` samples.
struct BlockMatrices {
  std::vector<double> T;  // A_F^b = T(A_FP): prologue across a zero block, eq. (14), (24)
  std::vector<double> M;  // H(A_RB) A_FP: prologue into the block's epilogue, eq. (34)
  std::vector<double> U;  // A_R^b = H(A_RE): epilogue across a zero block, eq. (14), (27)
};

struct OverlappedPlan {
  int order = 0;
  bool causal_only = false;
  Extension ext = Extension::Ignore;
  double b0 = 1.0;
  std::vector<double> a;  // a_1 .. a_r
  // Samples of the extension beyond each end that the exact initial feedbacks read: past them the
  // impulse response holds less than 1e-10 of its mass. Zero for Ignore, Zero and causal-only.
  int pad = 0;
  std::vector<double> g;  // impulse response g_j = b0 h_j of either recursion, j < pad + r
  // Its autocorrelation A(d) = sum_u g_u g_{u+d}, d < pad + r: the weight of the extension's
  // sample n + t in the anticausal initial feedback z_{n+m} is A(|t - m|).
  std::vector<double> acorr;
  // Anticausal initial feedback from the causal state (y_{n-1}, ..., y_{n-r}) at the end of the
  // line when the extension continues the causal recursion: (z_n, ..., z_{n+r-1}) += N p.
  std::vector<double> N;
  BlockMatrices matrices(int len) const;
  // m^power for a row-major r x r matrix.
  std::vector<double> power(const std::vector<double>& m, int power) const;
};

OverlappedPlan make_overlapped_plan(const Recursive& f, Extension ext);

}  // namespace rf::cuda
