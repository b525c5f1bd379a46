// The CUDA side of bench::Timer: a pair of events on one stream (timer_cuda.cu; without CUDA,
// no_cuda.cpp throws BackendUnavailable). Plain C++.
//
// With `hold`, a one-thread kernel holds the stream while the run queues its work, and lets go
// once the stop event is queued, as nvbench's blocking kernel does: the events then time the
// GPU's work alone, where without it the start event fires on an idle stream as soon as it is
// recorded and the host's launch latency counts too.
#pragma once

#include <functional>

namespace rf::bench {

class CudaClock {
 public:
  CudaClock(void* stream, bool hold);
  ~CudaClock();
  CudaClock(const CudaClock&) = delete;
  CudaClock& operator=(const CudaClock&) = delete;

  // Milliseconds between events recorded before and after `run` queues its work.
  double time_ms(const std::function<void()>& run);
  // Waits for the work queued on the stream.
  void synchronize();
  // Whether a held run ever outlasted the hold (it waited on its own stream): that run's time
  // and every later one's include the host's part, as without the hold.
  bool held_out() const { return held_out_; }

 private:
  void* stream_ = nullptr;
  void* start_ = nullptr;
  void* stop_ = nullptr;
  void* flags_ = nullptr;  // mapped host memory: release, ran out; with `hold` only
  void* device_flags_ = nullptr;
  bool held_out_ = false;
};

}  // namespace rf::bench
