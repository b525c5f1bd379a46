// The CUDA side of bench::Timer: a pair of events on one stream (timer_cuda.cu; without CUDA,
// no_cuda.cpp throws BackendUnavailable). Plain C++.
#pragma once

#include <functional>

namespace rf::bench {

class CudaClock {
 public:
  explicit CudaClock(void* stream);
  ~CudaClock();
  CudaClock(const CudaClock&) = delete;
  CudaClock& operator=(const CudaClock&) = delete;

  // Milliseconds between events recorded before and after `run` queues its work.
  double time_ms(const std::function<void()>& run);
  // Waits for the work queued on the stream.
  void synchronize();

 private:
  void* stream_ = nullptr;
  void* start_ = nullptr;
  void* stop_ = nullptr;
};

}  // namespace rf::bench
