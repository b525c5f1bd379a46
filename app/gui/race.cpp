#include "app/gui/race.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>

#include <omp.h>

#include "filters/core/errors.h"

namespace rf::gui {
namespace {

// From this frame size on the CPU's copy floor uses every thread.
constexpr std::size_t kParallelCopyBytes = std::size_t(1) << 22;

struct Cancelled {};

const char* algorithm_label(Algorithm a) {
  switch (a) {
    case Algorithm::RT:
      return "RT: lines in parallel, each sequential (Ruijters-Thevenaz)";
    case Algorithm::Alg4:
      return "alg4: causal-anticausal overlapped per dimension (Nehab et al. 2011)";
    case Algorithm::Alg5:
      return "alg5: rows and columns fully overlapped (Nehab et al. 2011)";
    case Algorithm::Alg6:
      return "alg6: alg5 with parallel fix-ups (Nehab & Maximo 2016)";
    case Algorithm::OneWay:
      return "one-way: forward then backward per line (Lee et al. 2014)";
    case Algorithm::TwoWay:
      return "two-way: Bl / Pc / Br partition (Lee et al. 2014)";
    case Algorithm::EdgeA:
      return "A: exact, line-sequential";
    case Algorithm::EdgeC:
      return "C: blocks warmed up over kappa sigma";
    case Algorithm::EdgeD:
      return "D: every block approximated";
    case Algorithm::EdgeExact:
      return "exact: blocks stitched by a scan of affine maps";
    case Algorithm::Auto:
      break;
  }
  return "auto";
}

class CpuRaceBench final : public RaceBench {
 public:
  explicit CpuRaceBench(const Image& frame) : in_(frame), out_(frame) {}

  std::string description() const override { return make_cpu_engine()->description(); }
  std::string clock() const override { return "host steady clock"; }
  std::unique_ptr<Engine> make_engine() const override { return make_cpu_engine(); }
  FrameView input() const override { return in_.view(); }
  FrameView output() const override { return out_.view(); }
  void* stream() const override { return nullptr; }

  double time_ms(const std::function<void()>& run) override {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  // The library's baselines (FIR, cuFFT) run on the GPU only; they are listed, not run.
  std::vector<Contender> baselines(const FilterSpec& spec) override {
    std::vector<Contender> out;
    if (spec.kind == FilterKind::Gaussian || spec.kind == FilterKind::Deriche ||
        spec.kind == FilterKind::Yvrg) {
      out.push_back({"fir", "direct FIR Gaussian", true, "on the CUDA backend only", {}, {}});
      out.push_back({"cufft", "cuFFT convolution", true, "on the CUDA backend only", {}, {}});
    }
    return out;
  }

  // memcpy of the frame; a large frame is split over the OpenMP threads the engine uses, a small
  // one is copied by one thread (waking the others would cost more than the copy).
  Contender copy_floor() override {
    const std::size_t bytes = in_.pixels.size() * sizeof(float);
    const int threads = bytes >= kParallelCopyBytes ? omp_get_max_threads() : 1;
    Contender c;
    c.name = "copy";
    c.label = "memcpy of the frame (read + write), " + std::to_string(threads) +
              (threads == 1 ? " thread" : " threads");
    c.prepare = [] {};
    c.run = [this, bytes, threads] {
      const char* src = reinterpret_cast<const char*>(in_.pixels.data());
      char* dst = reinterpret_cast<char*>(out_.pixels.data());
      const std::size_t chunk = (bytes + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
      for (int i = 0; i < threads; ++i) {
        const std::size_t begin = std::size_t(i) * chunk;
        if (begin < bytes) std::memcpy(dst + begin, src + begin, std::min(chunk, bytes - begin));
      }
    };
    return c;
  }

 private:
  mutable Image in_, out_;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::unique_ptr<RaceBench> make_cpu_race_bench(const Image& frame) {
  return std::make_unique<CpuRaceBench>(frame);
}

std::vector<Contender> race_contenders(RaceBench& bench, const FilterSpec& spec, Backend backend) {
  std::vector<Contender> out;
  std::shared_ptr<Engine> engine = bench.make_engine();
  const FrameView in = bench.input(), dst = bench.output();
  void* stream = bench.stream();
  for (Algorithm a : algorithms_for(backend, spec.kind)) {
    if (a == Algorithm::Auto) continue;
    FilterSpec s = spec;
    s.algo = a;
    s.backend = backend;
    Contender c;
    c.name = to_string(a);
    c.label = algorithm_label(a);
    c.prepare = [engine, s, in] { engine->plan(s, in.width, in.height, in.format); };
    c.run = [engine, in, dst, stream] { engine->run(in, dst, stream); };
    out.push_back(std::move(c));
  }
  for (Contender& c : bench.baselines(spec)) out.push_back(std::move(c));
  return out;
}

RaceResult run_race(const RaceRequest& r, std::atomic<float>* progress,
                    const std::atomic<bool>* cancel) {
  RaceResult out;
  out.key = r.key;
  out.spec = r.spec;
  out.backend = r.backend;
  out.width = r.frame.width;
  out.height = r.frame.height;
  progress->store(0.0f);
  try {
    if (r.frame.empty() || r.frame.channels != 4)
      throw InvalidParameter("the race needs the current frame as float RGBA");
    std::unique_ptr<RaceBench> bench =
        r.backend == Backend::Cuda ? make_cuda_race_bench(r.frame) : make_cpu_race_bench(r.frame);
    out.device = bench->description();
    out.clock = bench->clock();
    std::vector<Contender> list = race_contenders(*bench, r.spec, r.backend);
    list.push_back(bench->copy_floor());
    const double pixels = double(r.frame.width) * r.frame.height;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Contender& c = list[i];
      RaceEntry e;
      e.name = c.name;
      e.label = c.label;
      e.baseline = c.baseline;
      e.current = !c.baseline && c.name == to_string(r.spec.algo);
      e.skipped = c.skipped;
      if (e.skipped.empty()) {
        try {
          c.prepare();
          c.run();  // warm-up: first-touch, caches, lazily built CUDA graphs
          std::vector<double> ms;
          double spent = 0.0;
          while (int(ms.size()) < r.max_runs &&
                 (int(ms.size()) < r.min_runs || spent < r.budget_ms)) {
            if (cancel->load()) throw Cancelled{};
            ms.push_back(bench->time_ms(c.run));
            spent += ms.back();
            // The entry is done when both its minimum runs and its budget are spent, or at the
            // most runs.
            const double runs = double(ms.size());
            const double within =
                std::max(runs / r.max_runs, std::min(runs / r.min_runs, spent / r.budget_ms));
            progress->store(float((double(i) + std::min(within, 1.0)) / double(list.size())));
          }
          e.runs = int(ms.size());
          e.ms = median(ms);
          e.gips = pixels / (e.ms * 1e-3) / double(1ull << 30);
        } catch (const Cancelled&) {
          throw;
        } catch (const std::exception& ex) {
          e.error = ex.what();
        }
      }
      if (i + 1 == list.size())
        out.floor = e;
      else
        out.entries.push_back(e);
      progress->store(float(i + 1) / float(list.size()));
    }
  } catch (const Cancelled&) {
    out.entries.clear();
    out.error = "cancelled";
  } catch (const std::exception& e) {
    out.entries.clear();
    out.error = e.what();
  }
  progress->store(1.0f);
  return out;
}

}  // namespace rf::gui
