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
class ImagePlan {
 public:
  ImagePlan(const Recursive& f, Extension ext, int width, int height, int channels);
  ~ImagePlan();
  ImagePlan(ImagePlan&&) noexcept;
  ImagePlan& operator=(ImagePlan&&) noexcept;

  void run(float* data) const;  // in place, rows packed: width * channels floats per row

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rf::cpu
