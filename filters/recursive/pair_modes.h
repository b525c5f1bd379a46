// A causal + anticausal pair of a recursive design as r geometric sequences: what lies far from a
// sample reaches it through r numbers per side (rfstudio.dask sums a line's samples beyond a chunk
// this way, Nehab et al. 2011 eqs. 24 and 27 at the scale of a cluster).
#pragma once

#include <complex>
#include <vector>

#include "../core/design.h"

namespace rf {

// The impulse response of the pair, h(d) = sum_l w_l p_l^|d| for every d, over the roots p_l of
// z^r + a_1 z^(r-1) + ... + a_r (the poles of b0 / A(z), conjugates included), with
//   w_l = b0^2 / (prod_{j != l} (1 - p_j / p_l) prod_j (1 - p_l p_j)),
// the residues of b0^2 z^(d-1) / (A(z) A(1/z)) at the poles inside the unit circle. Both from
// poles found and the products formed in extended precision (filters/recursive/modal.h), rounded
// once: the poles of wide Gaussians crowd near z = 1, where roots in double are off by 1e-5.
struct PairModes {
  std::vector<std::complex<double>> poles, weights;
};

// Throws InvalidParameter for a causal-only filter (no pair), a pole on or outside the unit circle
// and repeated poles.
PairModes pair_modes(const Recursive& f);

}  // namespace rf
