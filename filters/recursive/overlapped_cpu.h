// Fully overlapped block-parallel recursive filtering on the CPU (algorithm 5 of Nehab et al.
// 2011 with the exact extensions of algorithms 6c/6p/6e of Nehab & Maximo 2016), for a one-channel
// float image. It is the reference implementation of the algebra the CUDA kernels use: the stages,
// carries and matrices below map one to one onto kernels, per-block buffers and constant memory.
//
// The image is cut into b x b blocks B_{m,n} (m: block row, n: block column; the last ones may be
// partial). Columns are filtered down (F) and up (R), then rows right (F^T) and left (R^T):
//   Y = F(X), Z = R(Y), U = F^T(Z), V = R^T(U).
// Carries are the state vectors of block_algebra.h, r floats per column (or row) of a block.
//
// Stage 1, in parallel for every block, from the input block alone (zero feedback everywhere):
//   P_{m,n}(Ybar)   = T(F(0, X))             incomplete causal prologue, eq. (17)
//   E_{m,n}(Zhat)   = H(R(F(0, X), 0))       twice-incomplete epilogue, eq. (35)
//   P^T_{m,n}(Ubar) = T(F^T(0, Zhat))        thrice-incomplete transposed prologue, eq. (38)
//   E^T_{m,n}(Vbar) = H(R^T(F^T(0, Zhat)))   four-times-incomplete transposed epilogue, eq. (40)
//   and, for the extensions: H(R(X, 0)) per column and H(R^T(Zhat, 0)) per row (mirror), the
//   first and last column of Zhat (clamp).
// Stage 2, in parallel for every column, sequentially over m: the causal seed P_{-1}(Y) of the
//   extension, then P_{m,n}(Y) = P_{m,n}(Ybar) + A_F^b P_{m-1,n}(Y), eq. (24).
// Stage 3, in parallel for every column, sequentially over m backwards: the anticausal seed,
//   then E_{m,n}(Z) = E_{m,n}(Zhat) + A_F^b E_{m+1,n}(Z) + (H(A_RB) A_FP) P_{m-1,n}(Y), eq. (34).
// Stage 4, in parallel for every row, sequentially over n: with the column carries' correction of
//   block Z,  dZ = A_RE E_{m+1,n}(Z) + (A_RB A_FP) P_{m-1,n}(Y),  the row seed, then
//   P^T_{m,n}(U) = P^T_{m,n}(Ubar) + A_F^b P^T_{m,n-1}(U) + T(A_FB) dZ, eq. (37).
// Stage 5, in parallel for every row, sequentially over n backwards: the row anticausal seed, then
//   E^T_{m,n}(V) = E^T_{m,n}(Vbar) + A_F^b E^T_{m,n+1}(V) + (H(A_RB) A_FP) P^T_{m,n-1}(U)
//                  + (H(A_RB) A_FB) dZ, eq. (39).
// Stage 6, in parallel for every block: the four passes again from the complete carries, written
//   out: B(Y) = F(P_{m-1,n}(Y), X), B(Z) = R(B(Y), E_{m+1,n}(Z)), B(U) = F^T(P^T_{m,n-1}(U), B(Z)),
//   B(V) = R^T(B(U), E^T_{m,n+1}(V)).
// The seeds (block_algebra.h, ExtensionSeeds) come from carries only: the causal seed of a column
// from X's first row (clamp), the zero-seeded chain of stage 2 (repeat, mirror) and H(R(X, 0))
// (mirror); the anticausal seed from the last complete prologue (zero, clamp, mirror) or the
// zero-seeded chain of stage 3 (repeat). Rows likewise, with Z's first and last columns rebuilt
// from Zhat and dZ.
//
// Arithmetic is float (as in the fastest GPU kernels) or double, with matrices computed in double.
// Carries add terms that cancel, so in float, for ill-conditioned filters (high-order Gaussians:
// order 5 at sigma 4) the result drifts up to ~10x further from the double reference than
// sequential float filtering does; in double it matches the reference to float output rounding.
#pragma once

#include <memory>

#include "filters/core/design.h"
#include "filters/core/extension.h"

namespace rf::cpu {

class OverlappedPlan {
 public:
  static constexpr int kBlock = 32;

  enum class Precision { Float, Double };  // arithmetic of the blocks, windows and carries

  // Throws InvalidParameter for an empty image, an order outside 1..5, or an extension that is
  // undefined for the filter (a pole on the unit circle).
  OverlappedPlan(const Recursive& f, Extension ext, int width, int height,
                 Precision precision = Precision::Float);
  ~OverlappedPlan();
  OverlappedPlan(OverlappedPlan&&) noexcept;
  OverlappedPlan& operator=(OverlappedPlan&&) noexcept;

  // Filters a packed one-channel image (width floats per row); in and out may alias. The carries
  // live in the plan, so one call at a time per plan.
  void run(const float* in, float* out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rf::cpu
