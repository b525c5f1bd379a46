// Lee et al. 2014 on CUDA (no CUDA types here): the one-way kernel (one thread per line) and the
// two-way kernel (three threads per line in the first pass, two in the second, Fig. 6), rows then
// columns. Without CUDA every entry point throws BackendUnavailable. bench/lee_bench.h times them.
#pragma once

#include <cstddef>
#include <memory>

#include "filters/core/image.h"
#include "filters/core/spec.h"
#include "filters/lee2014/lee2014.h"

namespace rf::lee2014::cuda {

// Lines per CUDA block: 32 lines make each warp of the two-way kernel run one part (Bl, Pc or
// Br) of 32 lines, so no warp diverges; the paper settles on 32 lines per block too (Fig. 11).
inline constexpr int kLinesPerBlock = 32;

// A plan on the device for frames of one size: coefficients, the Pc weights and the paper's
// intermediate w[], kept line-interleaved (sample i of line l at i * lines + l) so that a warp's
// accesses coalesce: the layout of CUDA local memory, where the paper's "Improvement using local
// memory" moves w[].
class DevicePlan {
 public:
  DevicePlan(Partition p, double sigma, int width, int height, int channels,
             int lines_per_block = kLinesPerBlock);
  ~DevicePlan();
  DevicePlan(const DevicePlan&) = delete;
  DevicePlan& operator=(const DevicePlan&) = delete;

  // Filters device rows of width * channels floats, `pitch` bytes apart (in == out allowed):
  // rows, then columns, two launches on `stream` (a cudaStream_t; nullptr: the default stream).
  void run(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
           void* stream = nullptr);

  // The two steps of run() apart, for engines that time them: rows (in -> out), then columns of
  // `data` in place.
  void run_rows(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                void* stream = nullptr);
  void run_columns(float* data, std::size_t pitch, void* stream = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Host convenience for tools and tests: upload, filter, download. `in_place` filters the uploaded
// buffer onto itself (in == out).
Image filter(Partition p, double sigma, const Image& in, int lines_per_block = kLinesPerBlock,
             bool in_place = false);

}  // namespace rf::lee2014::cuda
