// The plain FIR baseline: the library's direct separable FIR Gaussian on the GPU (the ground
// truth's kernel, filters/fir/fir_direct_cuda.cuh) with its accumulation in float or in double, for
// every frame the engine takes. Plain C++ (no CUDA types); without CUDA every call throws
// BackendUnavailable.
#pragma once

#include <memory>

#include "filters/core/extension.h"
#include "filters/core/image.h"

namespace rf::bench {

enum class FirPrecision { Float, Double };

// Taps exp(-k^2 / (2 sigma^2)) for |k| <= radius, normalised to unit sum; by default radius =
// ceil(6 sigma), the truncation of ref::fir_gaussian. Ignore is treated as Zero, as the reference
// does.
class FirGaussian {
 public:
  FirGaussian();
  ~FirGaussian();
  FirGaussian(const FirGaussian&) = delete;
  FirGaussian& operator=(const FirGaussian&) = delete;

  // radius < 0: ceil(6 sigma).
  void plan(double sigma, Extension ext, int width, int height, PixelFormat format,
            FirPrecision precision, int radius = -1);
  int radius() const;
  // Frames as for Engine::run (Host, Device or CudaSurface); no allocation for device frames.
  void run(const FrameView& in, const FrameView& out, void* stream = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience for tests: the FIR Gaussian of a host image of 1 or 4 channels.
Image fir_gaussian(const Image& in, double sigma, Extension ext, FirPrecision precision,
                   int radius = -1);

}  // namespace rf::bench
