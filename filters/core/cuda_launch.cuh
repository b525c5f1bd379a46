// Programmatic dependent launches (compute capability 9.0 and up): a kernel launched as a
// dependent of the stream's previous kernel starts before that kernel has ended, runs its own
// prologue (what it reads of the plan), and waits for the previous kernel's results, complete and
// visible, only where it reads them (wait_for_previous_stage). The previous kernel lets it start
// early with let_next_stage_start, or else as it ends. A kernel that was not launched as a
// dependent waits for everything before it in the stream, as any launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "filters/core/cuda_check.cuh"

namespace rf::cuda {

__device__ __forceinline__ void let_next_stage_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

// A no-op in a kernel not launched as a dependent.
__device__ __forceinline__ void wait_for_previous_stage() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Whether the current device takes programmatic dependent launches.
inline bool overlapping_launches() {
  return device_attribute(cudaDevAttrComputeCapabilityMajor) >= 9;
}

// kernel<<<grid, block, shared, stream>>>(args...), with `overlap` a programmatic dependent
// launch on the stream's previous kernel.
template <class... Params, class... Ts>
void launch(bool overlap, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared,
            cudaStream_t stream, const Ts&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = overlap ? 1 : 0;
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args...));
}

}  // namespace rf::cuda
