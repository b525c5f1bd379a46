#include "bench/timer.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "bench/cuda_clock.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"

namespace rf::bench {

double median(std::vector<double> v) {
  if (v.empty()) throw InvalidParameter("the median of no samples");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Timing summarise(const std::vector<double>& ms) {
  Timing t;
  t.median_ms = median(ms);
  t.min_ms = *std::min_element(ms.begin(), ms.end());
  t.runs = int(ms.size());
  return t;
}

struct Timer::Impl {
  Clock clock;
  std::unique_ptr<CudaClock> cuda;  // the CUDA clocks only
};

Timer::Timer(Clock clock, void* stream) : impl_(std::make_unique<Impl>()) {
  impl_->clock = clock;
  if (clock != Clock::Host) {
    std::string why;
    if (!cuda_available(&why)) throw BackendUnavailable("CUDA events unavailable: " + why);
    impl_->cuda = std::make_unique<CudaClock>(stream, clock == Clock::CudaHeld);
  }
}

Timer::~Timer() = default;

Clock Timer::clock() const {
  return impl_->clock;
}

const char* Timer::clock_name() const {
  switch (impl_->clock) {
    case Clock::Host:
      return "host steady clock";
    case Clock::CudaEvents:
      return "CUDA events";
    case Clock::CudaHeld:
      return impl_->cuda->held_out() ? "CUDA events, hold outlasted" : "CUDA events, stream held";
  }
  return "";
}

double Timer::time_ms(const std::function<void()>& run) {
  if (impl_->cuda) return impl_->cuda->time_ms(run);
  const auto t0 = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

Timing Timer::measure(const std::function<void()>& run, const Repeats& r) {
  if (r.runs < 1) throw InvalidParameter("timed runs must be >= 1");
  int timed = r.runs;
  int warm = std::max(0, r.warmup);
  if (r.budget_ms > 0.0) {
    // Two untimed runs (the first may initialise lazily) give the estimate; both count as
    // warm-up.
    run();
    const double probe = time_ms(run);
    if (probe * timed > r.budget_ms)
      timed = std::min(timed, std::max(r.min_runs, int(r.budget_ms / std::max(probe, 1e-3))));
    warm = std::max(0, std::min(warm, std::max(2, timed / 10)) - 2);
  }
  for (int i = 0; i < warm; ++i) run();
  if (impl_->cuda) impl_->cuda->synchronize();
  std::vector<double> ms(static_cast<std::size_t>(timed));
  for (double& t : ms) t = time_ms(run);
  Timing t = summarise(ms);
  t.clock = clock_name();
  return t;
}

}  // namespace rf::bench
