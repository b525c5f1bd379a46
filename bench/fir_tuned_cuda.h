// A tuned separable FIR Gaussian for one float channel: the competitor the recursive filters must
// beat at small sigma, made as fast as a direct convolution gets. Each thread computes eight
// outputs from a window of shared memory read four samples at a time (16-byte loads, a sliding
// window of taps in registers), tiles are loaded with 16-byte global loads and their halo through
// the boundary extension. Two kernels:
//   Fused    one launch: a 64 x 64 output tile, its input with a halo of `radius` on every side
//            filtered along rows into shared memory and then along columns (reads the image once
//            from DRAM, its halo again from L2); for radii up to kFirFusedMaxRadius.
//   TwoPass  rows into a float scratch, then columns: any radius the shared memory holds.
// Plain C++ (no CUDA types); without CUDA every call throws BackendUnavailable.
#pragma once

#include <cmath>
#include <cstddef>
#include <memory>

#include "filters/core/extension.h"
#include "filters/core/image.h"

namespace rf::bench {

enum class FirTunedKernel { Auto, Fused, TwoPass };

inline const char* to_string(FirTunedKernel k) {
  return k == FirTunedKernel::Fused ? "fused" : k == FirTunedKernel::TwoPass ? "two-pass" : "auto";
}

inline constexpr int kFirFusedMaxRadius = 24;
// Auto takes the fused kernel up to this radius (3 sigma at sigma 5).
inline constexpr int kFirFusedAutoRadius = 16;

// ceil(sigmas * sigma): the FIR radius that keeps `sigmas` standard deviations of the Gaussian.
inline int fir_radius(double sigma, double sigmas) {
  return int(std::ceil(sigmas * sigma));
}

class FirTuned {
 public:
  FirTuned();
  ~FirTuned();
  FirTuned(const FirTuned&) = delete;
  FirTuned& operator=(const FirTuned&) = delete;

  // Taps exp(-k^2 / (2 sigma^2)) for |k| <= radius, normalised to unit sum in double and rounded
  // to float; accumulation in float. Ignore is treated as Zero. Throws InvalidParameter for a bad
  // sigma or size, for Fused beyond kFirFusedMaxRadius, or for a radius whose column tile does not
  // fit the device's shared memory (about 750 on sm_90).
  void plan(double sigma, int radius, Extension ext, int width, int height,
            FirTunedKernel kernel = FirTunedKernel::Auto);
  // The kernel the plan runs (Auto resolved).
  FirTunedKernel kernel() const;

  // in and out: w x h float device rows, `pitch` bytes apart (0: packed). 16-byte loads and
  // stores are used where rows are 16-byte aligned. Fused needs in != out (a tile reads its
  // neighbours' input); TwoPass allows in == out.
  void run(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
           void* stream = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience for tests: the tuned FIR of a one-channel host image (packed device rows, so
// widths that are not a multiple of 4 take the unaligned path).
Image fir_tuned(const Image& in, double sigma, int radius, Extension ext,
                FirTunedKernel kernel = FirTunedKernel::Auto);

}  // namespace rf::bench
