// The GPU side of rf::ground_truth (truth_cuda.cu; no_cuda.cpp without CUDA). Plain C++.
#pragma once

#include "filters/core/extension.h"
#include "filters/core/image.h"

namespace rf::cuda {

// The FIR Gaussian in double (radius ceil(6 sigma) per axis, Ignore treated as Zero) of a host
// image of 1 or 4 channels, on the current device: sigma_x along the rows, sigma_y the columns.
Image fir_ground_truth(const Image& in, double sigma_x, double sigma_y, Extension ext,
                       double cval = 0.0);

}  // namespace rf::cuda
