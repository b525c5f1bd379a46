// Baselines the benchmark sets beside the overlapped filter: cuFFT convolution and a CUB-based
// summed-area table. Plain C++ (no CUDA types); device pointers are passed as void*.
#pragma once

#include <memory>
#include <string>

namespace rf::bench {

// Gaussian blur of a w x h float image by multiplying its spectrum (cuFFT R2C, C2R): periodic
// extension only. cuFFT is loaded with dlopen, so a machine without libcufft.so still runs
// everything else; available() says why not.
class CufftGaussian {
 public:
  CufftGaussian(int width, int height, double sigma);
  ~CufftGaussian();
  CufftGaussian(const CufftGaussian&) = delete;
  CufftGaussian& operator=(const CufftGaussian&) = delete;

  static bool available(std::string* why = nullptr);
  // in and out: packed w x h float device buffers (in == out allowed).
  void run(const float* in, float* out, void* stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Summed-area table with CUB block scans: scan the rows, transpose, scan the rows again. The
// result is the transposed table (the layout a following pass would read); the overlapped SAT
// writes it untransposed.
class CubSat {
 public:
  CubSat(int width, int height);
  ~CubSat();
  CubSat(const CubSat&) = delete;
  CubSat& operator=(const CubSat&) = delete;

  // in: packed w x h floats; out: packed h x w floats (device).
  void run(const float* in, float* out, void* stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rf::bench
