// The benchmark's one timer and one median. The host is timed by a steady clock around a run; the
// CUDA backend by events recorded on the run's stream before and after it, which time the GPU
// work alone (no upload, no readback). Plain C++: streams travel as void*.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rf::bench {

// The middle sample, or the mean of the two middle ones. Throws InvalidParameter when empty.
double median(std::vector<double> samples);

// Milliseconds of the timed runs of one case.
struct Timing {
  double median_ms = 0.0;
  double min_ms = 0.0;
  int runs = 0;
  std::string clock;  // Timer::clock_name() after the runs; "" from summarise()
};

Timing summarise(const std::vector<double>& ms);

// The protocol of one case: `warmup` untimed runs, then `runs` timed ones, whose median is the
// case's time. With budget_ms > 0, a case whose timed runs would take longer than that
// (estimated from one run) gets fewer, never fewer than min_runs, and the untimed runs shrink
// with them: the slow cases (RT, the plain FIR at large sigma) then cost seconds, not minutes.
struct Repeats {
  int warmup = 10;
  int runs = 100;
  double budget_ms = 0.0;
  int min_runs = 10;
};

// CudaEvents: events recorded on the run's stream before and after it, the start on a stream
// with nothing queued, so the host's launch of the run counts. CudaHeld: the same events with
// the stream held while the run queues its work (cuda_clock.h), which leaves the GPU's time alone.
enum class Clock { Host, CudaEvents, CudaHeld };

class Timer {
 public:
  // The CUDA clocks record on `stream` (a cudaStream_t; nullptr: the default stream), where each
  // run must queue its work; they throw BackendUnavailable without CUDA. Host ignores the stream.
  explicit Timer(Clock clock, void* stream = nullptr);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  Clock clock() const;
  // "host steady clock", "CUDA events", "CUDA events, stream held"; "CUDA events, hold outlasted"
  // once a held run waited on its own stream (its time and every later one's are CudaEvents').
  const char* clock_name() const;

  // Milliseconds of one call of `run`.
  double time_ms(const std::function<void()>& run);
  // The protocol above around `run`; throws InvalidParameter when repeats.runs < 1.
  Timing measure(const std::function<void()>& run, const Repeats& repeats);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rf::bench
