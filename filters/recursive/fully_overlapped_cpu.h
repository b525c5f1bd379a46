// The fully overlapped filter (fully_overlapped.h) on the CPU: the stages of the CUDA kernels run
// with the same data layout, arithmetic and shared math (fully_overlapped_math.h), one block or
// line at a time under OpenMP. The CPU backend offers it as alg5 and alg6, as the CUDA backend
// does.
#pragma once

#include <memory>

#include "filters/core/design.h"
#include "filters/core/extension.h"
#include "filters/recursive/fully_overlapped.h"

namespace rf::fully_overlapped {

class CpuFilter {
 public:
  // Columns run filters.y, rows filters.x; cval is the constant extension's value. Throws
  // InvalidParameter as make_plan does.
  CpuFilter(const AxisDesigns& filters, Extension ext, int width, int height, int channels,
            FixPlace place, double cval = 0.0);
  ~CpuFilter();
  CpuFilter(CpuFilter&&) noexcept;
  CpuFilter& operator=(CpuFilter&&) noexcept;

  // Filters `channels` interleaved floats per pixel, rows packed; in == out allowed. The carries
  // live in the filter, so one call at a time.
  void run(const float* in, float* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rf::fully_overlapped
