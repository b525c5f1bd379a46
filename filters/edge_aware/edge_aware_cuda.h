// The edge-aware recursive Gaussian (domain transform) on CUDA, no CUDA types here: Algorithms A,
// C, D and the exact block-parallel variant, planned once per spec and size. Without CUDA every
// entry point throws BackendUnavailable.
#pragma once

#include <cstddef>
#include <memory>

#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf::cuda {

// A plan on the device for frames of one size with 1, 3 or 4 channels of interleaved floats. RGB
// lives on the device as RGBA float: with channels 3 only the colours are filtered and alpha is
// written as 0; with 4 alpha is filtered like a colour. Alpha never enters eq. (2). It holds the
// spacings of eq. (2) along rows and columns, a float intermediate and the segment composites of
// the exact variant, and captures one frame's launches in a CUDA graph per pair of buffers.
class EdgeAwarePlan {
 public:
  EdgeAwarePlan(const FilterSpec& spec, int width, int height, int channels);
  ~EdgeAwarePlan();
  EdgeAwarePlan(const EdgeAwarePlan&) = delete;
  EdgeAwarePlan& operator=(const EdgeAwarePlan&) = delete;

  // Filters device rows of width floats (1 channel) or width float4 (3 or 4), `pitch` bytes apart
  // (a multiple of 16 for float4 rows; in == out allowed) on `stream` (a cudaStream_t; nullptr: the
  // default stream). The guide of eq. (2) is `in`.
  void run(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
           void* stream = nullptr);

  // The same launches issued directly on `stream`, for callers that capture them in a graph of
  // their own.
  void enqueue(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
               void* stream = nullptr);

  int channels() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Host convenience for tools and tests: upload (RGB padded to RGBA), filter the image's own
// channels, download. 1, 3 or 4 channels.
Image edge_aware_filter(const FilterSpec& spec, const Image& in);

// Milliseconds of one filter of `in` (RGB padded to RGBA on the device, three channels filtered),
// by CUDA events around the graph launch only (upload and readback excluded), after warm-up;
// median and minimum of `runs`.
struct EdgeAwareTiming {
  double median_ms = 0.0;
  double min_ms = 0.0;
  int runs = 0;
};

EdgeAwareTiming time_edge_aware(const FilterSpec& spec, const Image& in, int runs = 100);

}  // namespace rf::cuda
