// Ground truth: what the studio's diff view, `rfcli truth` and the tests judge a filter by,
// computed in double by references that share no code with the fast paths. For the kinds that
// approximate a Gaussian it is the FIR Gaussian (truncated at ceil(6 sigma)), on the CPU or on the
// GPU, where even a wide sigma takes milliseconds; for the other recursive kinds the padded
// sequential recursion of the design (recursive/reference.h); for the edge-aware filter its
// reference (edge_aware/edge_aware.h). A Gaussian derivative's is the sampled Gaussian
// derivative (scipy.ndimage's kernels), on the CPU.
#pragma once

#include <cstdint>
#include <vector>

#include "../core/array.h"
#include "../core/image.h"
#include "../core/spec.h"

namespace rf {

// True where the truth of `spec` is the FIR Gaussian, the one the GPU computes too.
bool fir_truth(const FilterSpec& spec);

// The ground truth of `spec` on a host image of any channel count, computed on `backend`,
// accumulated in double either way, returned as float:
//   Cpu   any kind, any channel count;
//   Cuda  the FIR Gaussian of the Gaussian kinds on images of 1 or 4 channels; throws
//         InvalidParameter for other kinds or channel counts, BackendUnavailable without a usable
//         device, DeviceError when the GPU fails (out of device memory);
//   Auto  Cuda where it applies and a device exists, otherwise Cpu.
Image ground_truth(const FilterSpec& spec, const Image& in, Backend backend = Backend::Cpu);

// The ground truth of an N-D array filtered as rf::ArrayFilter filters it (array.h), on the CPU in
// double: each pass's lines one at a time, by the FIR Gaussian (its derivative along a pass that
// takes one) for the Gaussian kinds, by the padded recursion of the design otherwise; under the
// constant extension each pass sees cval as the passes before it made it (the FIR keeps it, a
// derivative's makes it 0, a recursion multiplies it by its gain at DC). The measures are made of
// partials as the array filter makes them. Throws InvalidParameter for the edge-aware filter and
// for what ArrayFilter refuses of the shape and passes.
std::vector<double> ground_truth_array(const ArraySpec& spec,
                                       const std::vector<std::int64_t>& shape,
                                       const std::vector<double>& in);

}  // namespace rf
