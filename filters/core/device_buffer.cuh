// One owned device allocation, shared by the CUDA plans.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>

#include "cuda_check.cuh"

namespace rf::cuda {

// Owns one device allocation (linear or pitched); frees it without throwing.
struct DeviceBuffer {
  void* ptr = nullptr;
  std::size_t pitch = 0;
  std::size_t bytes = 0;

  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }

  void reset() {
    if (ptr) {
      const cudaError_t err = cudaFree(ptr);
      if (err != cudaSuccess)
        std::fprintf(stderr, "rf: cudaFree failed: %s\n", cudaGetErrorName(err));
    }
    ptr = nullptr;
    pitch = bytes = 0;
  }
  // n == 0 leaves the buffer empty (ptr == nullptr).
  void allocate(std::size_t n) {
    reset();
    if (n == 0) return;
    CUDA_CHECK(cudaMalloc(&ptr, n));
    bytes = n;
  }
  void allocate_pitched(std::size_t row_bytes, std::size_t rows) {
    reset();
    CUDA_CHECK(cudaMallocPitch(&ptr, &pitch, row_bytes, rows));
    bytes = pitch * rows;
  }
  float* f() const { return static_cast<float*>(ptr); }
};

}  // namespace rf::cuda
