// The algorithm race: on the current frame, every algorithm the running backend offers for the
// filter (rf::algorithms_for) and the benchmark's baselines for it (FIR and cuFFT on CUDA), each
// timed the same way, beside the copy floor: the time to read the frame and write it once, which
// no filter can beat. The backend's frame, clock and baselines are the benchmark's
// (bench/frame_bench.h). Runs off the UI thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/latest_job_worker.h"
#include "bench/frame_bench.h"
#include "filters/core/engine.h"
#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf::gui {

// Every algorithm of algorithms_for(backend, spec.kind) but Auto (which picks one of them), then
// the bench's baselines.
std::vector<bench::Contender> race_contenders(bench::FrameBench& frame_bench,
                                              const FilterSpec& spec, Backend backend);

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
