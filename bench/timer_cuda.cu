// CUDA events around a run: the GPU time of the work it queues on one stream.
#include <cuda_runtime.h>

#include "bench/cuda_clock.h"
#include "filters/core/cuda_check.cuh"

namespace rf::bench {

CudaClock::CudaClock(void* stream) : stream_(stream) {
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&start));
  const cudaError_t err = cudaEventCreate(&stop);
  if (err != cudaSuccess) {
    cudaEventDestroy(start);
    CUDA_CHECK(err);
  }
  start_ = start;
  stop_ = stop;
}

CudaClock::~CudaClock() {
  cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
}

double CudaClock::time_ms(const std::function<void()>& run) {
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_);
  const cudaEvent_t start = static_cast<cudaEvent_t>(start_);
  const cudaEvent_t stop = static_cast<cudaEvent_t>(stop_);
  CUDA_CHECK(cudaEventRecord(start, stream));
  run();
  CUDA_CHECK(cudaEventRecord(stop, stream));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  return double(ms);
}

void CudaClock::synchronize() {
  CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)));
}

}  // namespace rf::bench
