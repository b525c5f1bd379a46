// The FIR method of the Gaussian kind (FilterSpec::gaussian_method): the sampled Gaussian
// exp(-k^2 / (2 sigma^2)), |k| <= radius, normalised to unit sum and truncated at four sigma
// (scipy.ndimage.gaussian_filter's kernel and radius), separable, columns then rows. The boundary
// extension continues the input itself, so the FIR is exact at every border by construction; its
// only error against the sampled Gaussian is the truncation: at most 3.3e-4 of the peak (max
// relative error; 1.4e-4 L2), where the recursive designs of orders 3 to 5 are 1e-3 to 1e-2 from
// it (docs/design-errors.md). Its cost grows with sigma while the recursion's does not, so it
// takes sigma up to 32 (the filter table's MethodInfo::max_sigma), and `auto` takes the FIR where
// it is the faster on the backend, frame format and size, by the crossovers measured in
// docs/bench/fir-crossover-h200.json (CUDA) and docs/bench/fir-crossover-cpu.json (CPU).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "filters/core/host_filter.h"
#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf {

// Standard deviations the FIR keeps on each side: scipy.ndimage's default truncate.
inline constexpr double kFirTruncate = 4.0;

// The FIR's radius for sigma: int(4 sigma + 0.5), scipy.ndimage's.
int gaussian_fir_radius(double sigma);

// The 2 radius + 1 taps for sigma, normalised to unit sum in double.
std::vector<double> gaussian_fir_taps(double sigma, int radius);

// Whether `spec` runs as the FIR on `backend` (Cpu or Cuda) for frames of `format` and size:
// always for --gaussian-method fir; for auto, where the recursive design does not exist (below
// its order's least sigma) or where the FIR is the faster on that backend and frame at the spec's
// sigma and order (a derivative takes the recursive filter); never otherwise.
bool runs_fir(const FilterSpec& spec, Backend backend, PixelFormat format, int width, int height);

// What a plan of `spec` computes the filter with, for people: "FIR radius 9" ("FIR radius 9,5"
// with a sigma per axis) where `fir`, otherwise "recursive order 3" or "edge-aware" and the like.
std::string method_text(const FilterSpec& spec, bool fir);

// The FIR on the CPU: packed frames of any channel count in float, or in double in place
// (HostFilter::runs_double), any extension; one axis where the spec filters one.
std::unique_ptr<HostFilter> make_fir_host_filter(const FilterSpec& spec, int width, int height,
                                                 int channels);

}  // namespace rf
