// Edge-aware recursive Gaussian through the domain transform (edge-aware paper, eq. 1-4).
#pragma once

#include <memory>

#include "../core/image.h"
#include "../core/spec.h"

namespace rf {

// Throws InvalidParameter naming the parameter when sigma, sigma_r, kappa, iterations or the image
// size cannot be filtered; every backend checks its own channel layouts besides.
void validate_edge_aware(const FilterSpec& spec, int width, int height);

// Double-precision reference of Algorithm A on a host image (1, 3 or 4 channels); the guide is
// the input itself. Uses spec.sigma, sigma_r, iterations.
Image edge_aware_reference(const FilterSpec& spec, const Image& in);

namespace cpu {

// The CPU backend (float, OpenMP) for Algorithm A, C, D or the exact variant (spec.algo: EdgeA,
// EdgeC, EdgeD, EdgeExact; Auto means EdgeExact). Lines run in SIMD lanes, so the exact variant
// needs no segments here and runs Algorithm A's recursion. Planned once per spec and size; run()
// does not allocate. Interleaved float pixels, rows packed.
class EdgeAwarePlan {
 public:
  EdgeAwarePlan(const FilterSpec& spec, int width, int height, int channels);
  ~EdgeAwarePlan();
  EdgeAwarePlan(EdgeAwarePlan&&) noexcept;
  EdgeAwarePlan& operator=(EdgeAwarePlan&&) noexcept;
  void run(const float* in, float* out) const;
  Algorithm algorithm() const;  // spec.algo, auto resolved

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cpu
}  // namespace rf
