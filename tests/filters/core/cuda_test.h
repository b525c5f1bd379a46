// CUDA tests report themselves skipped (CTest matches "[skipped]") when no device can be used.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#ifdef RF_HAVE_CUDA
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#endif

#include "filters/core/engine.h"

#define RF_REQUIRE_CUDA()                                               \
  do {                                                                  \
    std::string rf_why_;                                                \
    if (!rf::cuda_available(&rf_why_)) {                                \
      std::printf("[skipped] CUDA unavailable: %s\n", rf_why_.c_str()); \
      return;                                                           \
    }                                                                   \
  } while (0)

#ifdef RF_HAVE_CUDA
namespace rf::cuda_test {

// Takes the device's free memory but `leave` bytes, in pieces of 64 MiB down to 1 MiB, as another
// process or a huge frame would, and gives it back when it goes out of scope.
class DeviceMemoryHog {
 public:
  explicit DeviceMemoryHog(std::size_t leave) {
    for (std::size_t chunk = std::size_t(64) << 20; chunk >= (std::size_t(1) << 20);) {
      std::size_t free = 0, total = 0;
      REQUIRE(cudaMemGetInfo(&free, &total) == cudaSuccess);
      void* p = nullptr;
      if (free < leave + chunk || cudaMalloc(&p, chunk) != cudaSuccess) {
        cudaGetLastError();
        chunk /= 2;
        continue;
      }
      blocks_.push_back(p);
    }
  }
  ~DeviceMemoryHog() {
    for (void* p : blocks_) cudaFree(p);
  }
  DeviceMemoryHog(const DeviceMemoryHog&) = delete;
  DeviceMemoryHog& operator=(const DeviceMemoryHog&) = delete;

 private:
  std::vector<void*> blocks_;
};

}  // namespace rf::cuda_test
#endif
