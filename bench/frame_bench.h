// One frame in a backend's memory with that backend's clock, baselines and copy floor: what the
// studio's algorithm race times the engine's algorithms beside. Plain C++.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/timer.h"
#include "filters/core/engine.h"
#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf::bench {

// One thing to time. `prepare` plans and allocates (not timed); `run` filters the frame once,
// queueing its work on the bench's stream. A contender the backend cannot run here says why in
// `skipped` and is listed, not run.
struct Contender {
  std::string name;   // "rt", "alg5", "fir", "cufft", "copy"
  std::string label;  // for people: "RT, one thread per line"
  bool baseline = false;
  std::string skipped;
  std::function<void()> prepare;
  std::function<void()> run;
};

class FrameBench {
 public:
  virtual ~FrameBench() = default;
  virtual std::string description() const = 0;  // the device, as its engine names it
  virtual std::unique_ptr<Engine> make_engine() const = 0;
  virtual FrameView input() const = 0;  // the frame, RGBA32F, in the backend's memory
  virtual FrameView output() const = 0;
  virtual void* stream() const = 0;
  // The backend's clock: the host's steady clock or CUDA events on stream().
  virtual Timer& timer() = 0;
  // The baselines for `spec` on this backend, one entry each; skipped ones say why.
  virtual std::vector<Contender> baselines(const FilterSpec& spec) = 0;
  // A copy of the frame within the backend's memory: read once, written once.
  virtual Contender copy_floor() = 0;
};

// The frame is float RGBA on [0, 1]. `backend` is Cpu (the frame copied) or Cuda (uploaded, and
// read again for the baselines that take one channel, so it must outlive the bench); Cuda throws
// BackendUnavailable without a usable device.
std::unique_ptr<FrameBench> make_frame_bench(Backend backend, const Image& frame);

// The CUDA one alone (frame_bench_cuda.cu; without CUDA it throws BackendUnavailable).
std::unique_ptr<FrameBench> make_cuda_frame_bench(const Image& frame);

}  // namespace rf::bench
