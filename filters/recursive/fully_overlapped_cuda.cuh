// The fully overlapped filter (fully_overlapped.h) on CUDA: four launches per frame. Perimeters
// read the image once; two scans complete the column and then the row carries (algorithm 6 fixes
// the row perimeters up inside the column scan, algorithm 5 inside the row scan); the output
// reads the image again and writes it. 2 reads + 1 write of the frame plus r floats per line per
// block of carries. From compute capability 9.0 the scans and the output are dependent launches
// that start before the stage they wait for has ended (fully_overlapped_device.cuh).
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "filters/core/frame_filter.cuh"
#include "filters/core/io.cuh"
#include "filters/recursive/fully_overlapped.h"

namespace rf::fully_overlapped {

class CudaFilter final : public cuda::FrameFilter {
 public:
  // Plans for batches of `frames` frames of this size with 1 or 4 channels, each launch taking
  // the whole batch; cval is the constant extension's value; `diff`, a difference the output
  // stage takes (OutputDifference), one frame at a time, with padded rows on a plan two rows
  // taller than the frames it reads and writes. Throws InvalidParameter as make_plan, and for a
  // difference takes_difference refuses, a causal filter's or a batch's.
  CudaFilter(const AxisDesigns& filters, Extension ext, int width, int height, int channels,
             FixPlace place, double cval = 0.0, int frames = 1, const OutputDifference& diff = {});
  ~CudaFilter() override;
  CudaFilter(const CudaFilter&) = delete;
  CudaFilter& operator=(const CudaFilter&) = delete;

  // Every storage kind, through io.cuh; a batch in one launch each.
  bool reads(cuda::IoKind) const override { return true; }
  bool writes(cuda::IoKind) const override { return true; }
  bool batches() const override;  // planned for more than one frame

  // With a difference along y alone (a measure's second term: partials, filters/core/spec.h):
  // each output sample combined with the same sample of `other`, a float buffer of the frame's
  // size and channels holding another term of a measure (filters/core/derivative.h), as the root
  // of their squares' sum (the gradient magnitude) or their sum (the Laplacian); it saves the
  // measure a pass of its own.
  void combine_with(const cuda::Io& other, bool squares);

  // Enqueues the four launches on `stream` (src == dst allowed). `marks`, when given, are
  // recorded after each launch (for per-stage timing).
  void enqueue(const cuda::Io& src, const cuda::Io& dst, cudaStream_t stream,
               cudaEvent_t* marks = nullptr) override;

  std::string algorithm() const override;  // "alg5" or "alg6"
  // perimeters, column carries, row carries, output.
  std::vector<std::string> stage_names() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rf::fully_overlapped
