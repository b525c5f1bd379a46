// The CPU backend's recursive filtering: float math, exact extensions, OpenMP.
#pragma once

#include <memory>

#include "filters/core/design.h"
#include "filters/core/extension.h"

namespace rf::cpu {

// A recursive filter planned for interleaved float images of one size and channel count:
// float coefficients, the exact initial-feedback maps of the extension (precomputed in double)
// and scratch. run() filters columns (down, up) then rows (right, left), every channel
// independently, multithreaded, with no allocation.
//
// Where AxisDesigns::axes leaves an axis alone, its pass is not run.
//
// Both passes filter many independent lines at once, one SIMD lane per line, with the recursions
// in double: the column pass streams whole row segments down and up the image, the row pass
// transposes bands of rows into per-thread scratch. The exact extension enters each line only
// through its initial windows (direct_form::LineMaps), so the recursions never see padding.
class ImagePlan {
 public:
  // Columns run filters.y, rows filters.x (one order for both).
  // cval: the value outside the image under Extension::Constant (design.h, constant_values).
  ImagePlan(const AxisDesigns& filters, Extension ext, int width, int height, int channels,
            double cval = 0.0);
  ~ImagePlan();
  ImagePlan(ImagePlan&&) noexcept;
  ImagePlan& operator=(ImagePlan&&) noexcept;

  struct Impl;

  // In place, rows packed: width * channels floats per row. The scratch lives in the plan, so one
  // call at a time per plan.
  void run(float* data) const;

  // The two halves of run(), for per-stage timings; each does nothing where its axis is left
  // alone (AxisDesigns::axes).
  void run_columns(float* data) const;
  void run_rows(float* data) const;
  // The same on samples of double, which stay double between the passes (float64 frames).
  void run_columns(double* data) const;
  void run_rows(double* data) const;
  bool filters_columns() const;
  bool filters_rows() const;

  int threads() const;  // OpenMP threads used by run()

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace rf::cpu
