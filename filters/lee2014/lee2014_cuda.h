// Lee et al. 2014 on CUDA (no CUDA types here): the one-way kernel (one thread per line) and the
// two-way kernel (three threads per line in the first pass, two in the second, Fig. 6), rows then
// columns, and their timing. Without CUDA every entry point throws BackendUnavailable.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

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

// Milliseconds of one filter, by CUDA events around the launches only (upload and readback
// excluded), after warm-up; median and minimum over `runs` runs on seeded random data.
struct Timing {
  double median_ms = 0.0;
  double min_ms = 0.0;
  int runs = 0;
};

Timing time_lee(Partition p, double sigma, int width, int height, int channels, int runs = 100,
                int lines_per_block = kLinesPerBlock);

// The same protocol around rf::Engine::run of the CUDA engine on device frames (e.g. yvrg with
// the overlapped algorithm), so every algorithm is timed the same way in one run.
Timing time_engine(const FilterSpec& spec, int width, int height, int channels, int runs = 100);

// "NVIDIA H100 80GB HBM3, 132 SMs".
std::string device_summary(int* sm_count = nullptr);

}  // namespace rf::lee2014::cuda
