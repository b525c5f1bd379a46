// NPP's separable Gaussian as a user would call it: nppiFilterRowBorder_32f_C1R_Ctx, then
// nppiFilterColumnBorder_32f_C1R_Ctx, replicate border (= Extension::Clamp), float taps. NPP is
// loaded with dlopen at run time (libnppif / libnppc of CUDA 13, or unversioned), so machines and
// builds without NPP run everything else; available() says why not. Plain C++ (no CUDA types).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "filters/core/image.h"

namespace rf::bench {

class NppGaussian {
 public:
  // Taps exp(-k^2 / (2 sigma^2)) for |k| <= radius, normalised to unit sum in double and rounded
  // to float. Throws BackendUnavailable without NPP, InvalidParameter for a bad size or sigma.
  NppGaussian(int width, int height, double sigma, int radius);
  ~NppGaussian();
  NppGaussian(const NppGaussian&) = delete;
  NppGaussian& operator=(const NppGaussian&) = delete;

  static bool available(std::string* why = nullptr);
  // "NPP 13.0.1 (libnppif.so.13)" once loaded, else empty.
  static std::string version();

  // in and out: w x h float device rows, `pitch` bytes apart (0: packed); in == out allowed.
  // Throws std::runtime_error naming the NPP call and its status when NPP refuses.
  void run(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
           void* stream = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience for tests: NPP's Gaussian of a one-channel host image.
Image npp_gaussian(const Image& in, double sigma, int radius);

}  // namespace rf::bench
