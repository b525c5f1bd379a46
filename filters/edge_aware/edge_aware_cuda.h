// The edge-aware recursive Gaussian (domain transform) on CUDA, no CUDA types here: Algorithms A,
// C, D and the exact block-parallel variant, planned once per spec and size. Without CUDA every
// entry point throws BackendUnavailable.
#pragma once

#include <cstddef>
#include <memory>

#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf::cuda {

// Layouts of the device images a plan reads and writes, rows `pitch` bytes apart: one float per
// pixel (1 channel), three (RGB), four (RGBA; pitch and data 16-byte aligned) or four bytes (RGBA8,
// read as c / 255, written clamped and rounded).
enum class EdgeFormat { Gray32F, Rgb32F, Rgba32F, Rgba8 };

struct EdgeImage {
  const void* data = nullptr;
  std::size_t pitch = 0;
  EdgeFormat format = EdgeFormat::Rgba32F;
};

struct EdgeOutput {
  void* data = nullptr;
  std::size_t pitch = 0;
  EdgeFormat format = EdgeFormat::Rgba32F;
};

// A plan on the device for frames of one size with 1, 3 or 4 channels. One channel is Gray32F; 3
// filters the colours of Rgb32F, Rgba32F or Rgba8 (a fourth component is written as 0); 4 filters
// Rgba32F or Rgba8 with alpha like a colour. Alpha never enters eq. (2). The kernels read and write
// these layouts directly where they can; the plan holds the spacings of eq. (2) along rows and
// columns, float intermediates, and staging where a kernel takes floats only.
class EdgeAwarePlan {
 public:
  EdgeAwarePlan(const FilterSpec& spec, int width, int height, int channels);
  ~EdgeAwarePlan();
  EdgeAwarePlan(const EdgeAwarePlan&) = delete;
  EdgeAwarePlan& operator=(const EdgeAwarePlan&) = delete;

  // Filters `in` into `out` (in == out allowed) on `stream` (a cudaStream_t; nullptr: the
  // default stream). The guide of eq. (2) is `in`.
  void run(const EdgeImage& in, const EdgeOutput& out, void* stream = nullptr);

  // The same launches for callers that capture them in a graph (the CUDA engine does, once per
  // pair of frames): prepare() first, outside the capture, allocates what these formats need,
  // and enqueue() then only launches.
  void prepare(EdgeFormat in, EdgeFormat out);
  void enqueue(const EdgeImage& in, const EdgeOutput& out, void* stream = nullptr);

  // Float rows: Gray32F for 1 channel, Rgba32F for 3 or 4.
  void run(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
           void* stream = nullptr);
  void enqueue(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
               void* stream = nullptr);

  int channels() const;
  Algorithm algorithm() const;  // spec.algo, auto resolved

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Host convenience for tools and tests: upload (RGB as three floats per pixel), filter the image's
// own channels, download. 1, 3 or 4 channels.
Image edge_aware_filter(const FilterSpec& spec, const Image& in);

// The same with the image on the device in `format` (Rgba8: each value clamped to [0, 1] and
// rounded to a step of 1/255 on upload, read back as c / 255).
Image edge_aware_filter(const FilterSpec& spec, const Image& in, EdgeFormat format);

}  // namespace rf::cuda
