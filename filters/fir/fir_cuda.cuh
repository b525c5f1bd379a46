// The FIR method on the GPU (fir.h) as the CUDA engine runs it: both axes by the tuned kernels
// (fir_tuned_cuda.h; one float channel, or four in float or 8-bit buffers), one axis and radii
// beyond the tuned kernels' shared memory by the direct kernel (fir_direct_cuda.cuh), which reads
// and writes every storage kind itself.
#pragma once

#include <memory>

#include "filters/core/frame_filter.cuh"
#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf::cuda {

std::unique_ptr<FrameFilter> make_fir_frame_filter(const FilterSpec& spec, int width, int height,
                                                   PixelFormat format);

}  // namespace rf::cuda
