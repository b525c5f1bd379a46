// The GPU side of rf::ground_truth (truth_cuda.cu; no_cuda.cpp without CUDA). Plain C++.
#pragma once

#include "filters/core/extension.h"
#include "filters/core/image.h"

namespace rf::cuda {

// The FIR Gaussian in double (radius ceil(6 sigma), Ignore treated as Zero) of a host image of 1
// or 4 channels, on the current device.
Image fir_ground_truth(const Image& in, double sigma, Extension ext);

}  // namespace rf::cuda
