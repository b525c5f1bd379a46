// The algorithm race: on the current frame, every algorithm the running backend offers for the
// filter (rf::algorithms_for) and the baselines the library has for it (FIR and cuFFT on CUDA),
// each timed the same way, beside the copy floor: the time to read the frame and write it once,
// which no filter can beat. Runs off the UI thread; plain C++ (the CUDA side is race_cuda.cu).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/latest_job_worker.h"
#include "filters/core/engine.h"
#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf::gui {

// One thing the race times. `prepare` plans and allocates (not timed); `run` filters the frame
// once. A contender the backend cannot run here says why in `skipped` and is listed, not run.
struct Contender {
  std::string name;   // "rt", "alg5", "fir", "cufft", "copy"
  std::string label;  // for people: "RT, one thread per line"
  bool baseline = false;
  std::string skipped;
  std::function<void()> prepare;
  std::function<void()> run;
};

// What a backend brings to the race: the frame in its memory, a clock, its baselines.
class RaceBench {
 public:
  virtual ~RaceBench() = default;
  virtual std::string description() const = 0;  // the device, as its engine names it
  virtual std::string clock() const = 0;        // "host steady clock", "CUDA events"
  virtual std::unique_ptr<Engine> make_engine() const = 0;
  virtual FrameView input() const = 0;  // the frame, RGBA32F, in the backend's memory
  virtual FrameView output() const = 0;
  virtual void* stream() const = 0;
  // Milliseconds of one call of `run`, by this backend's clock.
  virtual double time_ms(const std::function<void()>& run) = 0;
  // The library's baselines for `spec` on this backend, one entry each; skipped ones say why.
  virtual std::vector<Contender> baselines(const FilterSpec& spec) = 0;
  // A copy of the frame within the backend's memory: read once, written once.
  virtual Contender copy_floor() = 0;
};

// The frame is float RGBA on [0, 1]; the CPU bench copies it, the CUDA bench uploads it and
// reads it again for the baselines that take one channel, so it must outlive the bench.
std::unique_ptr<RaceBench> make_cpu_race_bench(const Image& frame);
// Throws BackendUnavailable without CUDA.
std::unique_ptr<RaceBench> make_cuda_race_bench(const Image& frame);

// Every algorithm of algorithms_for(backend, spec.kind) but Auto (which picks one of them), then
// the bench's baselines.
std::vector<Contender> race_contenders(RaceBench& bench, const FilterSpec& spec, Backend backend);

struct RaceEntry {
  std::string name, label;
  bool baseline = false;
  bool current = false;  // the algorithm the view runs now
  std::string skipped, error;
  int runs = 0;
  double ms = 0.0;    // median of the timed runs
  double gips = 0.0;  // 2^30 pixels per second
};

struct RaceRequest {
  FilterSpec spec;
  Backend backend = Backend::Cpu;  // the backend that runs (Cpu or Cuda)
  Image frame;                     // float RGBA
  double budget_ms = 400.0;        // timed runs per entry stop after this much time ...
  int min_runs = 3;                // ... once at least this many have run
  int max_runs = 100;
  std::uint64_t key = 0;
};

struct RaceResult {
  FilterSpec spec;
  Backend backend = Backend::Cpu;
  int width = 0, height = 0;
  std::string device, clock;
  std::vector<RaceEntry> entries;
  RaceEntry floor;    // the copy floor
  std::string error;  // the race could not run at all
  std::uint64_t key = 0;
};

// Synchronous. `progress` in [0, 1] is updated after every timed run and `cancel` polled there;
// a cancelled race returns error "cancelled".
RaceResult run_race(const RaceRequest& request, std::atomic<float>* progress,
                    const std::atomic<bool>* cancel);

// One race at a time on a worker thread (a newer request cancels and replaces the running one);
// the UI polls take() every frame and never waits.
class RaceWorker : public LatestJobWorker<RaceRequest, RaceResult> {
 public:
  RaceWorker() : LatestJobWorker(run_race) {}
};

}  // namespace rf::gui
