// The CPU backend's recursive filtering: float math, exact extensions, OpenMP.
#pragma once

#include <memory>

#include "filters/design.h"
#include "filters/extension.h"

namespace rf::cpu {

// A recursive filter planned for interleaved float images of one size and channel count:
// float coefficients, the exact initial-feedback maps of the extension (precomputed in double)
// and scratch. run() filters columns (down, up) then rows (right, left), every channel
// independently, multithreaded, with no allocation.
//
// Each pass works on blocks of lines that are independent of one another, one SIMD lane per line:
// the column pass walks down a strip of adjacent columns of the image itself (every row of the
// strip is contiguous), the row pass transposes a band of rows into per-thread scratch first. The
// exact extension enters each line only through its initial feedbacks (BoundaryMaps), so the
// recursions themselves never see padding.
class ImagePlan {
 public:
  ImagePlan(const Recursive& f, Extension ext, int width, int height, int channels);
  ~ImagePlan();
  ImagePlan(ImagePlan&&) noexcept;
  ImagePlan& operator=(ImagePlan&&) noexcept;

  void run(float* data) const;  // in place, rows packed: width * channels floats per row

  // The two halves of run(), for per-stage timings.
  void run_columns(float* data) const;
  void run_rows(float* data) const;

  int threads() const;  // OpenMP threads used by run()

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rf::cpu
