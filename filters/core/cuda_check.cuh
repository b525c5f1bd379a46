// Error checks for CUDA runtime calls: library code throws, it never exits.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <string_view>

#include "errors.h"

namespace rf::cuda {

// `file` (a __FILE__) as a path in the source tree, "filters/core/device_buffer.cuh", rather
// than in the build machine's checkout: the checkout is this header's own __FILE__ less its path
// in the tree. A file from elsewhere keeps its path. Static, as throw_cuda_error: each
// translation unit keeps its own __FILE__ (one compiled with relative paths, another with absolute
// ones), which one inline definition shared by the linker would not.
static inline const char* tree_path(const char* file) {
  constexpr std::string_view self = __FILE__, in_tree = "filters/core/cuda_check.cuh";
  if (self.size() < in_tree.size() || self.substr(self.size() - in_tree.size()) != in_tree)
    return file;
  const std::string_view root = self.substr(0, self.size() - in_tree.size());
  return std::string_view(file).substr(0, root.size()) == root ? file + root.size() : file;
}

// The runtime also keeps a failed call's error as the "last error" (until read), where the next
// launch check would find it and blame an innocent kernel; it is read here and so cleared. A
// sticky error (a kernel fault) stays: every later call reports it.
[[noreturn]] static inline void throw_cuda_error(cudaError_t err, const char* call,
                                                 const char* file, int line) {
  cudaGetLastError();
  throw DeviceError(std::string("CUDA error ") + cudaGetErrorName(err) + " (" +
                    cudaGetErrorString(err) + ") in " + call + " at " + tree_path(file) + ":" +
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

namespace rf::cuda {

// An attribute of the current device: device_attribute(cudaDevAttrMultiProcessorCount).
inline int device_attribute(cudaDeviceAttr attr) {
  int device = 0, value = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

}  // namespace rf::cuda
