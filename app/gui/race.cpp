#include "app/gui/race.h"

#include <algorithm>
#include <exception>

#include "bench/timer.h"
#include "filters/core/errors.h"
#include "filters/core/filter_table.h"

namespace rf::gui {
namespace {

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

// The Gaussian's FIR method among the contenders (the baseline "fir" is the plain FIR at 6 sigma).
constexpr const char* kFirMethod = "method fir";

}  // namespace

std::vector<bench::Contender> race_contenders(bench::FrameBench& frame_bench,
                                              const FilterSpec& spec, Backend backend) {
  std::vector<bench::Contender> out;
  std::shared_ptr<Engine> engine = frame_bench.make_engine();
  const FrameView in = frame_bench.input(), dst = frame_bench.output();
  void* stream = frame_bench.stream();
  for (Algorithm a : algorithms_for(backend, spec.kind)) {
    if (a == Algorithm::Auto) continue;
    FilterSpec s = spec;
    s.algo = a;
    s.gaussian_method = GaussianMethod::Recursive;
    s.backend = backend;
    bench::Contender c;
    c.name = to_string(a);
    c.label = algorithm_label(a);
    c.prepare = [engine, s, in] { engine->plan(s, in.width, in.height, in.format); };
    c.run = [engine, in, dst, stream] { engine->run(in, dst, stream); };
    out.push_back(std::move(c));
  }
  // The Gaussian's FIR method beside the recursive algorithms.
  if (info(spec.kind).params.has(Param::GaussianMethod)) {
    FilterSpec s = spec;
    s.algo = Algorithm::Auto;
    s.gaussian_method = GaussianMethod::Fir;
    s.backend = backend;
    bench::Contender c;
    c.name = kFirMethod;
    c.label = "--gaussian-method fir: the sampled Gaussian truncated at 4 sigma";
    c.prepare = [engine, s, in] { engine->plan(s, in.width, in.height, in.format); };
    c.run = [engine, in, dst, stream] { engine->run(in, dst, stream); };
    out.push_back(std::move(c));
  }
  for (bench::Contender& c : frame_bench.baselines(spec)) out.push_back(std::move(c));
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
    std::unique_ptr<bench::FrameBench> frame_bench =
        bench::make_frame_bench(r.backend == Backend::Cuda ? Backend::Cuda : Backend::Cpu, r.frame);
    bench::Timer& timer = frame_bench->timer();
    out.device = frame_bench->description();
    out.clock = timer.clock_name();
    std::vector<bench::Contender> list = race_contenders(*frame_bench, r.spec, r.backend);
    list.push_back(frame_bench->copy_floor());
    const double pixels = double(r.frame.width) * r.frame.height;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const bench::Contender& c = list[i];
      RaceEntry e;
      e.name = c.name;
      e.label = c.label;
      e.baseline = c.baseline;
      e.current = !c.baseline && c.name == (r.spec.gaussian_method == GaussianMethod::Fir
                                                ? kFirMethod
                                                : to_string(r.spec.algo));
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
            ms.push_back(timer.time_ms(c.run));
            spent += ms.back();
            // The entry is done when both its minimum runs and its budget are spent, or at the
            // most runs.
            const double runs = double(ms.size());
            const double within =
                std::max(runs / r.max_runs, std::min(runs / r.min_runs, spent / r.budget_ms));
            progress->store(float((double(i) + std::min(within, 1.0)) / double(list.size())));
          }
          e.runs = int(ms.size());
          e.ms = bench::median(ms);
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
