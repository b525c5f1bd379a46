// CUDA events around a run: the GPU time of the work it queues on one stream.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>

#include "bench/cuda_clock.h"
#include "filters/core/cuda_check.cuh"

namespace rf::bench {
namespace {

// Nanoseconds of the GPU's global timer.
__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Holds the stream until the host sets flags[0] (after it has queued the run and the stop event)
// or until `limit_ns` has passed, which it reports in flags[1]. The start event then fires on a
// stream whose work is all queued already: the events time the GPU's work, not the host's.
__global__ void hold_kernel(volatile int* flags, unsigned long long limit_ns) {
  const unsigned long long start = global_ns();
  while (flags[0] == 0) {
    if (global_ns() - start > limit_ns) {
      flags[1] = 1;
      return;
    }
  }
}

// Long enough for any run's host side to queue its work; a run that waits on its own stream
// (a synchronising call) runs out the hold instead of deadlocking, and the clock reports it.
constexpr unsigned long long kHoldLimitNs = 50'000'000;

}  // namespace

CudaClock::CudaClock(void* stream, bool hold) : stream_(stream) {
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&start));
  const cudaError_t err = cudaEventCreate(&stop);
  if (err != cudaSuccess) {
    cudaEventDestroy(start);
    CUDA_CHECK(err);
  }
  start_ = start;
  stop_ = stop;
  if (hold) {
    void* flags = nullptr;
    const cudaError_t e = cudaHostAlloc(&flags, 2 * sizeof(int), cudaHostAllocMapped);
    if (e != cudaSuccess) {
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
      CUDA_CHECK(e);
    }
    flags_ = flags;
    CUDA_CHECK(cudaHostGetDevicePointer(&device_flags_, flags_, 0));
  }
}

CudaClock::~CudaClock() {
  cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
  if (flags_) cudaFreeHost(flags_);
}

double CudaClock::time_ms(const std::function<void()>& run) {
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_);
  const cudaEvent_t start = static_cast<cudaEvent_t>(start_);
  const cudaEvent_t stop = static_cast<cudaEvent_t>(stop_);
  // Once a run has outlasted the hold, the clock stops holding: each run would wait it out.
  volatile int* flags = held_out_ ? nullptr : static_cast<volatile int*>(flags_);
  if (flags) {
    flags[0] = 0;
    flags[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    hold_kernel<<<1, 1, 0, stream>>>(static_cast<int*>(device_flags_), kHoldLimitNs);
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaEventRecord(start, stream));
  run();
  CUDA_CHECK(cudaEventRecord(stop, stream));
  if (flags) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    flags[0] = 1;
  }
  CUDA_CHECK(cudaEventSynchronize(stop));
  if (flags && flags[1]) held_out_ = true;
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  return double(ms);
}

void CudaClock::synchronize() {
  CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)));
}

}  // namespace rf::bench
