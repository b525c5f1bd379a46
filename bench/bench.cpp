// The protocol's helpers and its CPU driver (built with and without CUDA; bench_cuda.cu has the
// CUDA driver).
#include "bench/bench.h"

#include <algorithm>
#include <cstdint>

#include "bench/copy.h"
#include "bench/random.h"
#include "bench/timer.h"
#include "filters/core/design.h"
#include "filters/core/engine.h"

namespace rf::bench {

double gips(int width, int height, double ms) {
  return double(width) * height / (ms * 1e-3) / double(1ull << 30);
}

bool uses_sigma(FilterKind kind) {
  return kind == FilterKind::Gaussian || kind == FilterKind::Deriche || kind == FilterKind::Yvrg ||
         kind == FilterKind::EdgeAware;
}

std::vector<Algorithm> bench_algorithms(const BenchOptions& options, FilterKind kind) {
  const std::vector<Algorithm> offered = algorithms_for(Backend::Cuda, kind);
  std::vector<Algorithm> out;
  if (options.algos.empty()) {
    for (Algorithm a : offered)
      if (a != Algorithm::Auto) out.push_back(a);
    return out;
  }
  for (Algorithm a : options.algos)
    if (std::find(offered.begin(), offered.end(), a) != offered.end()) out.push_back(a);
  return out;
}

namespace {

struct Case {
  int width, height;
};

// Read + write bandwidth of a copy of `floats` floats: the floor no filter that reads and writes
// the image once can go below.
BenchResult cpu_copy_floor(std::size_t floats, int width, int height, int channels,
                           int iterations) {
  std::vector<float> a(floats, 1.0f), b(floats, 0.0f);
  const std::size_t bytes = floats * sizeof(float);
  const int threads = host_copy_threads(bytes);
  Timer timer(Clock::Host);
  const Timing t =
      timer.measure([&] { host_copy(a.data(), b.data(), bytes, threads); }, Repeats{2, iterations});
  BenchResult r;
  r.impl = "copy";
  r.filter = "copy";
  r.ext = "-";
  r.width = width;
  r.height = height;
  r.channels = channels;
  r.format = channels == 1 ? "f32" : "f32x4";
  r.ms = t.median_ms;
  r.runs = t.runs;
  r.gips = gips(width, height, r.ms);
  r.gbps = 2.0 * double(bytes) / (r.ms * 1e-3) / 1e9;
  return r;
}

}  // namespace

std::vector<BenchResult> bench_cpu(const BenchOptions& o, void (*progress)(const BenchResult&)) {
  std::vector<Case> cases;
  for (int s : o.sizes) cases.push_back({s, s});
  if (o.include_hd) {
    cases.push_back({1920, 1080});
    cases.push_back({3840, 2160});
  }
  std::vector<BenchResult> results;
  auto emit = [&](const BenchResult& r) {
    if (progress) progress(r);
    results.push_back(r);
  };
  auto engine = make_cpu_engine();
  std::size_t largest = 0;
  Case largest_case{0, 0};
  int largest_channels = 1;
  for (const Case& c : cases)
    for (int channels : o.channels) {
      const std::size_t floats = std::size_t(c.width) * c.height * channels;
      if (floats > largest) {
        largest = floats;
        largest_case = c;
        largest_channels = channels;
      }
      Image in = random_image(c.width, c.height, channels,
                              std::uint32_t(c.width * 7 + c.height + channels));
      Image out(c.width, c.height, channels);
      for (FilterKind kind : o.kinds)
        for (double sigma : uses_sigma(kind) ? o.sigmas : std::vector<double>{0.0})
          for (int order : o.orders)
            for (Extension ext : o.exts) {
              FilterSpec spec;
              spec.kind = kind;
              spec.order = order;
              if (sigma > 0.0) spec.sigma = sigma;
              spec.ext = ext;
              const bool fixed_order = kind != FilterKind::Gaussian && kind != FilterKind::Deriche;
              if (fixed_order && order != o.orders.front()) continue;
              if (kind == FilterKind::Deriche && order != 2 && order != 4) continue;
              engine->plan(spec, c.width, c.height,
                           channels == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F);
              // The engine's own stage times: the column and row passes without the staging
              // copies a host frame may need.
              engine->set_timing(true);
              std::vector<double> ms;
              for (int it = -o.warmup; it < o.iterations; ++it) {
                engine->run(in.view(), out.view());
                if (it < 0) continue;
                double filter_ms = 0.0;
                for (const StageTime& t : engine->timings())
                  if (t.stage == "columns" || t.stage == "rows") filter_ms += t.ms;
                ms.push_back(filter_ms);
              }
              BenchResult r;
              r.impl = "cpu";
              r.algo = to_string(spec.algo);
              r.filter = to_string(kind);
              r.sigma = sigma;
              r.runs = int(ms.size());
              r.order = design(spec).order();
              r.ext = to_string(ext);
              r.width = c.width;
              r.height = c.height;
              r.channels = channels;
              r.format = channels == 1 ? "f32" : "f32x4";
              r.ms = median(ms);
              r.gips = gips(c.width, c.height, r.ms);
              emit(r);
            }
    }
  if (largest)
    emit(cpu_copy_floor(largest, largest_case.width, largest_case.height, largest_channels,
                        std::max(o.iterations, 5)));
  return results;
}

}  // namespace rf::bench
