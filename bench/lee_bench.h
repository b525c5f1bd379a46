// Timing Lee et al. 2014's one-way and two-way kernels on CUDA beside the engine, as `rfcli
// lee-bench` measures them: CUDA events around the filter only (no upload or readback) on the
// default stream, 10 warm-up runs, then the median of the timed runs, on random data. And the
// kernels' output on a host image, which `rfcli lee-table` compares with the references.
#pragma once

#include <string>

#include "bench/timer.h"
#include "filters/core/image.h"
#include "filters/core/spec.h"
#include "filters/lee2014/lee2014.h"

namespace rf::bench {

inline constexpr int kLeeWarmup = 10;

// The kernels' lines per CUDA block unless said otherwise: lee2014::cuda::kLinesPerBlock.
inline constexpr int kLeeLinesPerBlock = 32;

// Lee et al.'s CUDA kernels (float) on a host image of any channel count: uploaded, filtered,
// downloaded. Throws BackendUnavailable without CUDA.
Image lee_cuda(lee2014::Partition p, double sigma, const Image& in);

// lee2014::cuda::DevicePlan::run (rows, then columns) on packed rows of width * channels floats.
// Throws BackendUnavailable without CUDA, InvalidParameter for a bad size or lines per block.
Timing time_lee(lee2014::Partition p, double sigma, int width, int height, int channels, int runs,
                int lines_per_block);

// rf::Engine::run of the CUDA engine on device frames of 1 or 4 float channels (e.g. yvrg with
// the overlapped algorithm), so every algorithm is timed the same way in one run.
Timing time_cuda_engine(const FilterSpec& spec, int width, int height, int channels, int runs);

// The device, e.g. "NVIDIA H100 80GB HBM3, 132 SMs". Throws BackendUnavailable without CUDA.
std::string device_summary(int* sm_count = nullptr);

}  // namespace rf::bench
