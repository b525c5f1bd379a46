// Error checks for CUDA runtime calls: library code throws, it never exits.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "filters/core/errors.h"

namespace rf::cuda {

// The runtime also keeps a failed call's error as the "last error" (until read), where the next
// launch check would find it and blame an innocent kernel; it is read here and so cleared. A
// sticky error (a kernel fault) stays: every later call reports it.
[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file,
                                          int line) {
  cudaGetLastError();
  throw DeviceError(std::string("CUDA error ") + cudaGetErrorName(err) + " (" +
                    cudaGetErrorString(err) + ") in " + call + " at " + file + ":" +
                    std::to_string(line));
}

}  // namespace rf::cuda

#define CUDA_CHECK(call)                                                                          \
  do {                                                                                            \
    const cudaError_t rf_err_ = (call);                                                           \
    if (rf_err_ != cudaSuccess) ::rf::cuda::throw_cuda_error(rf_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch: launch-configuration errors surface here, not at the next sync.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
