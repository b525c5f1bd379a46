// The benchmark on CUDA: CUDA events time what a run queues on the timer's stream, the drivers of
// `rfcli bench`, `lee-bench` and `edge-study --timing` give the rows and runs they promise, and the
// race's CUDA frame bench times the engine and its baselines. Only structure is asserted (runs,
// rows, positive medians, the baselines' errors), never speed.
#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench.h"
#include "bench/edge_bench.h"
#include "bench/frame_bench.h"
#include "bench/lee_bench.h"
#include "bench/timer.h"
#include "filters/core/device_frame.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/random_data.h"

using namespace rf;

TEST_CASE("cuda bench: events time the work queued on the stream") {
  RF_REQUIRE_CUDA();
  cuda::DeviceFrame a(1024, 1024, PixelFormat::RGBA32F, MemorySpace::Device);
  cuda::DeviceFrame b(1024, 1024, PixelFormat::RGBA32F, MemorySpace::Device);
  auto engine = make_cuda_engine();
  FilterSpec spec;
  engine->plan(spec, 1024, 1024, PixelFormat::RGBA32F);
  bench::Timer timer(bench::Clock::CudaEvents);
  CHECK(std::string(timer.clock_name()) == "CUDA events");
  int calls = 0;
  const bench::Timing t = timer.measure(
      [&] {
        ++calls;
        engine->run(a.view(), b.view(), nullptr);
      },
      bench::Repeats{2, 9});
  CHECK(calls == 11);
  CHECK(t.runs == 9);
  CHECK(t.min_ms > 0.0);
  CHECK(t.median_ms >= t.min_ms);
}

TEST_CASE("cuda bench: a held stream leaves the host's part of a run out of its time") {
  RF_REQUIRE_CUDA();
  cuda::DeviceFrame a(64, 64, PixelFormat::R32F, MemorySpace::Device);
  cuda::DeviceFrame b(64, 64, PixelFormat::R32F, MemorySpace::Device);
  auto engine = make_cuda_engine();
  engine->plan(FilterSpec{}, 64, 64, PixelFormat::R32F);
  // A run whose host side takes 3 ms before it queues a small frame: from the call on, the
  // events see the 3 ms; with the stream held, only the frame's GPU time.
  auto slow_host = [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    engine->run(a.view(), b.view(), nullptr);
  };
  bench::Timer call(bench::Clock::CudaEvents), held(bench::Clock::CudaHeld);
  CHECK(std::string(held.clock_name()) == "CUDA events, stream held");
  const bench::Timing from_call = call.measure(slow_host, bench::Repeats{1, 5});
  const bench::Timing gpu_only = held.measure(slow_host, bench::Repeats{1, 5});
  CHECK(from_call.median_ms >= 3.0);
  CHECK(gpu_only.median_ms > 0.0);
  CHECK(gpu_only.median_ms < 1.0);
  CHECK(gpu_only.clock == "CUDA events, stream held");

  // A run that waits on its own stream outlasts the hold once; the clock then stops holding and
  // says so in its name, and the run still completes.
  int calls = 0;
  const bench::Timing waited = held.measure(
      [&] {
        ++calls;
        engine->run(a.view(), b.view(), nullptr);
        cuda::synchronize(nullptr);
      },
      bench::Repeats{0, 3});
  CHECK(calls == 3);
  CHECK(waited.clock == "CUDA events, hold outlasted");
  CHECK(std::string(held.clock_name()) == "CUDA events, hold outlasted");
}

TEST_CASE("cuda bench: Lee et al. 2014 and the engine timed the same way") {
  RF_REQUIRE_CUDA();
  for (lee2014::Partition p : {lee2014::Partition::OneWay, lee2014::Partition::TwoWay}) {
    const bench::Timing t = bench::time_lee(p, 4.0, 257, 131, 4, 9, 32);
    CHECK(t.runs == 9);
    CHECK(t.min_ms > 0.0);
    CHECK(t.median_ms >= t.min_ms);
  }
  CHECK_THROWS_AS(bench::time_lee(lee2014::Partition::TwoWay, 4.0, 64, 64, 1, 5, 400),
                  InvalidParameter);
  FilterSpec spec;
  spec.kind = FilterKind::Yvrg;
  spec.ext = Extension::Clamp;
  const bench::Timing e = bench::time_cuda_engine(spec, 257, 131, 4, 7);
  CHECK(e.runs == 7);
  CHECK(e.min_ms > 0.0);
  CHECK_THROWS_AS(bench::time_cuda_engine(spec, 64, 64, 3, 5), InvalidParameter);
  int sms = 0;
  CHECK(!bench::device_summary(&sms).empty());
  CHECK(sms > 0);
}

TEST_CASE("cuda bench: the edge-aware filter timed per algorithm, RGB as RGBA float") {
  RF_REQUIRE_CUDA();
  const bench::EdgeCase paper;
  const Image rgb = bench::edge_image(nullptr, 96, 64);
  for (Algorithm a : {Algorithm::EdgeA, Algorithm::EdgeC, Algorithm::EdgeD, Algorithm::EdgeExact}) {
    const bench::Timing t =
        bench::time_edge_aware_cuda(bench::edge_spec(paper, 20.0, a), rgb, bench::Repeats{5, 6});
    CAPTURE(to_string(a));
    CHECK(t.runs == 6);
    CHECK(t.min_ms > 0.0);
  }
  bench::BenchOptions o;
  o.sizes = {48};
  o.include_hd = false;
  const std::vector<bench::BenchResult> rows =
      bench::bench_edge(o, paper, nullptr, {Algorithm::EdgeExact}, true, true, bench::Repeats{0, 2},
                        bench::Repeats{1, 3});
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].impl == "cpu");
  CHECK(rows[1].impl == "rfstudio");
  CHECK(rows[1].format == "f32x4");
  CHECK(rows[1].runs == 3);
}

TEST_CASE("cuda bench: a small protocol run gives every row, the baselines checked") {
  RF_REQUIRE_CUDA();
  bench::BenchOptions o;
  o.sizes = {96};
  o.include_hd = false;
  o.orders = {1, 3};
  o.exts = {Extension::Mirror};
  o.channels = {1};
  o.sigmas = {2.0};
  o.algos = {Algorithm::Alg5, Algorithm::RT};
  o.iterations = 12;
  o.warmup = 2;
  o.case_ms = 0.0;
  std::vector<std::string> notes;
  static std::vector<std::string>* note_sink = nullptr;
  note_sink = &notes;
  const std::vector<bench::BenchResult> rows =
      bench::bench_cuda(o, nullptr, [](const std::string& line) { note_sink->push_back(line); });
  std::map<std::string, int> count;
  for (const bench::BenchResult& r : rows) {
    CAPTURE(r.impl);
    CAPTURE(r.algo);
    ++count[r.impl];
    CHECK(r.ms > 0.0);
    CHECK(r.runs == 12);
    if (r.impl == "fir" || r.impl == "fir-tuned" || r.impl == "npp" || r.impl == "cufft") {
      CHECK(r.max_error >= 0.0);
      CHECK(r.max_error <= 1e-5);
    }
  }
  CHECK(rows.front().impl == "copy");
  CHECK(rows.front().gbps > 0.0);
  // Gaussian at orders 1 and 3 and the SAT, each with both algorithms.
  CHECK(count["rfstudio"] == 2 * 2 + 2);
  CHECK(count["fir"] == 1);
  CHECK(count["fir-f64"] == 1);
  CHECK(count["fir-tuned"] == 2);  // fused and two-pass at radius 6
  CHECK(count["cub-sat"] == 1);
  CHECK(count["cufft"] + count["npp"] <= 2);
}

TEST_CASE("cuda bench: the race's CUDA frame bench times the engine and its baselines") {
  RF_REQUIRE_CUDA();
  const Image frame = test::random_image(64, 48, 4, 31u);
  const auto fb = bench::make_frame_bench(Backend::Cuda, frame);
  CHECK(std::string(fb->timer().clock_name()) == "CUDA events");
  CHECK(fb->input().space == MemorySpace::Device);
  FilterSpec spec;
  std::set<std::string> names;
  for (bench::Contender& c : fb->baselines(spec)) {
    names.insert(c.name);
    if (!c.skipped.empty()) continue;
    c.prepare();
    CHECK(fb->timer().time_ms(c.run) > 0.0);
  }
  CHECK(names == std::set<std::string>{"fir", "cufft"});
  spec.kind = FilterKind::Sat;
  spec.ext = Extension::Zero;
  std::vector<bench::Contender> sat = fb->baselines(spec);
  REQUIRE(sat.size() == 1);
  CHECK(sat[0].name == "cub-sat");
  sat[0].prepare();
  CHECK(fb->timer().time_ms(sat[0].run) > 0.0);
  bench::Contender copy = fb->copy_floor();
  copy.prepare();
  CHECK(fb->timer().time_ms(copy.run) > 0.0);
}
