// Ground truth on a chosen backend: the double-precision references of rf::ref::ground_truth, with
// the FIR Gaussian of the Gaussian kinds also on the GPU, where even a wide sigma takes
// milliseconds (the studio's live diff view).
#pragma once

#include "image.h"
#include "spec.h"

namespace rf {

// True where the truth of `spec` is the FIR Gaussian in double (truncated at ceil(6 sigma)), the
// one the GPU computes too: the Gaussian kinds (gaussian, deriche, yvrg).
bool fir_truth(const FilterSpec& spec);

// rf::ref::ground_truth(spec, in) computed on `backend`, accumulated in double either way:
//   Cpu   any kind, any channel count;
//   Cuda  the FIR Gaussian of the Gaussian kinds on images of 1 or 4 channels; throws
//         InvalidParameter for other kinds or channel counts, BackendUnavailable without a usable
//         device, DeviceError when the GPU fails (out of device memory);
//   Auto  Cuda where it applies and a device exists, otherwise Cpu.
Image ground_truth(const FilterSpec& spec, const Image& in, Backend backend);

}  // namespace rf
