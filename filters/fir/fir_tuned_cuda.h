// The tuned separable FIR Gaussian: the FIR method's kernels (fir.h) on frames of one float
// channel and of four (RGBA32F, RGBA8), and the bench's "fir-tuned" baseline, made as fast as a
// direct convolution gets. Each thread computes eight outputs from a window of shared memory read
// four samples at a time (a sliding window of taps in registers), tiles are loaded with 16-byte
// global loads (four at a time a thread in the two passes) and their halo through the boundary
// extension. Two kernels:
//   Fused    one launch: an output tile (64 x 64 pixels; 32 x 32 for four channels; for one,
//            32 x 16 or 32 x 32 where 64 x 64 tiles would be fewer than the device's SMs), its
//            input with a halo of the radius on every side filtered along rows into shared memory
//            and then along columns (reads the image once from DRAM, its halo again from L2, and
//            writes it once); radii up to kFirFusedMaxRadius.
//   TwoPass  rows into a float scratch, then columns: any radius the shared memory holds. The
//            column pass is a programmatic dependent launch (compute capability 9.0 and up): it
//            loads its taps while the rows end. Both take smaller tiles where their usual ones
//            would leave SMs idle (rows of 256 instead of 512, 64 or 32 rows of columns instead of
//            256). Four channels: a thread filters one channel of eight pixels along the rows;
//            the columns of the scratch are those of a float image 4 w wide. 8-bit pixels are
//            read and written by the two passes themselves (values v / 255, rounded back to
//            nearest).
// Plain C++ (no CUDA types); without CUDA every call throws BackendUnavailable.
#pragma once

#include <cmath>
#include <cstddef>
#include <memory>

#include "filters/core/extension.h"
#include "filters/core/image.h"

namespace rf {

enum class FirTunedKernel { Auto, Fused, TwoPass };

// The samples of a frame: one float, four floats (RGBA32F) or four bytes (RGBA8) per pixel.
enum class FirSamples { F32, F32x4, U8x4 };

inline const char* to_string(FirTunedKernel k) {
  return k == FirTunedKernel::Fused ? "fused" : k == FirTunedKernel::TwoPass ? "two-pass" : "auto";
}

inline constexpr int kFirFusedMaxRadius = 24;
// Auto takes the fused kernel up to this radius on large frames: beyond it two passes are faster
// (H200, 4096^2: fused 0.123 ms and two-pass 0.131 at radius 12, two-pass 0.145 at radius 20
// where fused at 16 took 0.150; docs/bench/fir-crossover-h200.json). Smaller frames have radii of
// their own (fir_tuned_cuda.cu, fused_shape): two passes at every radius on 1024^2, the fused
// kernel up to radius 20 on 256^2 and 12 on 512^2.
inline constexpr int kFirFusedAutoRadius = 12;
// The same for four channels, whose 32 x 32 tiles of float4 fill the shared memory sooner (H200,
// 4096^2 RGBA32F: fused 0.32 ms and two-pass 0.41 at radius 3, fused 0.45 and two-pass 0.43 at
// radius 5).
inline constexpr int kFirFused4AutoRadius = 4;

class FirTuned {
 public:
  FirTuned();
  ~FirTuned();
  FirTuned(const FirTuned&) = delete;
  FirTuned& operator=(const FirTuned&) = delete;

  // Taps exp(-k^2 / (2 sigma^2)) for |k| <= radius, normalised to unit sum in double and rounded
  // to float, sigma_x and radius_x along the rows, sigma_y and radius_y down the columns;
  // accumulation in float. `outside` is the value beyond the image under Extension::Constant;
  // Ignore is treated as Zero. Throws InvalidParameter for a bad sigma or size, for Fused beyond
  // kFirFusedMaxRadius, or for a radius whose column tile does not fit the
  // device's shared memory (about 750 on sm_90). `channels`: 1 or 4.
  void plan(double sigma_x, int radius_x, double sigma_y, int radius_y, Extension ext,
            float outside, int width, int height, FirTunedKernel kernel = FirTunedKernel::Auto,
            int channels = 1);
  // One sigma and radius for both axes.
  void plan(double sigma, int radius, Extension ext, int width, int height,
            FirTunedKernel kernel = FirTunedKernel::Auto) {
    plan(sigma, radius, sigma, radius, ext, 0.f, width, height, kernel);
  }
  // The kernel the plan runs (Auto resolved).
  FirTunedKernel kernel() const;

  // in and out: w x h float device rows, `pitch` bytes apart (0: packed). 16-byte loads and
  // stores are used where rows are 16-byte aligned. in == out allowed (Fused then goes through
  // the plan's scratch and a copy).
  void run(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
           void* stream = nullptr);
  // Frames of the planned channels in either sample kind (F32 for one channel).
  void run(const void* in, std::size_t in_pitch, FirSamples in_kind, void* out,
           std::size_t out_pitch, FirSamples out_kind, void* stream = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience for tests: the tuned FIR of a one-channel host image (packed device rows, so
// widths that are not a multiple of 4 take the unaligned path).
Image fir_tuned(const Image& in, double sigma, int radius, Extension ext,
                FirTunedKernel kernel = FirTunedKernel::Auto);

}  // namespace rf
