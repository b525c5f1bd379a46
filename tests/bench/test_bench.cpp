// The benchmark's own parts on the CPU: its one median, its timer and protocol, its random cases,
// the host copy floor, the CPU and edge-aware drivers and the CPU frame bench of the algorithm
// race. Assertions are about structure (how many runs, which rows, positive times), never about
// how fast this machine is.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench.h"
#include "bench/copy.h"
#include "bench/edge_bench.h"
#include "bench/frame_bench.h"
#include "bench/random.h"
#include "bench/timer.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/filter_table.h"
#include "tests/random_data.h"

using namespace rf;

TEST_CASE("bench: the median of an odd and an even count, and the summary") {
  CHECK(bench::median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(bench::median({4.0, 1.0, 3.0, 2.0}) == 2.5);
  CHECK(bench::median({7.0}) == 7.0);
  CHECK_THROWS_AS(bench::median({}), InvalidParameter);
  const bench::Timing t = bench::summarise({5.0, 1.0, 4.0, 2.0});
  CHECK(t.median_ms == 3.0);
  CHECK(t.min_ms == 1.0);
  CHECK(t.runs == 4);
}

TEST_CASE("bench: the host timer runs the warm-up and the timed runs it is asked for") {
  bench::Timer timer(bench::Clock::Host);
  CHECK(timer.clock() == bench::Clock::Host);
  CHECK(std::string(timer.clock_name()) == "host steady clock");
  int calls = 0;
  const bench::Timing t = timer.measure([&] { ++calls; }, bench::Repeats{3, 7});
  CHECK(calls == 3 + 7);
  CHECK(t.runs == 7);
  CHECK(t.min_ms >= 0.0);
  CHECK(t.median_ms >= t.min_ms);
  CHECK_THROWS_AS(timer.measure([] {}, bench::Repeats{0, 0}), InvalidParameter);
  // A run of at least 2 ms against a budget of 10 ms: 100 runs would take 200 ms or more, so the
  // case gets at most 5 timed runs and never fewer than min_runs.
  calls = 0;
  const bench::Timing cut = timer.measure(
      [&] {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      },
      bench::Repeats{10, 100, 10.0, 3});
  CHECK(cut.runs >= 3);
  CHECK(cut.runs <= 5);
  CHECK(cut.min_ms >= 2.0);
  CHECK(calls >= cut.runs + 2);  // the two probe runs count as warm-up
  if (!cuda_available()) {
    CHECK_THROWS_AS(bench::Timer(bench::Clock::CudaEvents), BackendUnavailable);
    CHECK_THROWS_AS(bench::Timer(bench::Clock::CudaHeld), BackendUnavailable);
  }
}

TEST_CASE("bench: random cases are seeded, never zero, and the same for every caller") {
  const std::vector<float> a = bench::random_floats(10000, 7), b = bench::random_floats(10000, 7);
  CHECK(a == b);
  CHECK(a != bench::random_floats(10000, 8));
  CHECK(*std::min_element(a.begin(), a.end()) >= 0.05f);
  CHECK(*std::max_element(a.begin(), a.end()) < 1.0f);
  const Image img = bench::random_image(13, 5, 4, 7);
  CHECK(img.pixels.size() == std::size_t(13 * 5 * 4));
  CHECK(std::vector<float>(img.pixels.begin(), img.pixels.begin() + 100) ==
        std::vector<float>(a.begin(), a.begin() + 100));
  std::vector<std::uint8_t> bytes(4096);
  bench::fill_random(bytes.data(), bytes.size(), PixelFormat::RGBA8, 3);
  CHECK(std::set<std::uint8_t>(bytes.begin(), bytes.end()).size() > 200);
}

TEST_CASE("bench: the host copy floor copies every byte with any number of threads") {
  for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(1) << 16})
    for (int threads : {1, 3}) {
      const std::vector<std::uint8_t> src = test::random_bytes(n, n + threads);
      std::vector<std::uint8_t> dst(n, 0);
      bench::host_copy(src.data(), dst.data(), n, threads);
      CHECK(dst == src);
    }
  CHECK(bench::host_copy_threads(1024) == 1);
  CHECK(bench::host_copy_threads(std::size_t(1) << 22) >= 1);
}

TEST_CASE("bench: the CPU driver gives a row per case, then the copy floor") {
  bench::BenchOptions o;
  o.sizes = {16, 9};
  o.include_hd = false;
  o.orders = {1, 3};
  o.exts = {Extension::Mirror, Extension::Zero};
  o.channels = {1, 4};
  o.kinds = {FilterKind::Gaussian, FilterKind::BSpline3};
  o.sigmas = {2.0, 5.0};
  o.iterations = 2;
  o.warmup = 0;
  static int progress_rows = 0;
  progress_rows = 0;
  const std::vector<bench::BenchResult> rows =
      bench::bench_cpu(o, [](const bench::BenchResult&) { ++progress_rows; });
  // Per size and channel count: the Gaussian at 2 sigmas x 2 orders x 2 extensions, the B-spline
  // (no sigma, its own order) at 2 extensions.
  CHECK(rows.size() == 2 * 2 * (8 + 2) + 1);
  CHECK(progress_rows == int(rows.size()));
  for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
    const bench::BenchResult& r = rows[i];
    CAPTURE(i);
    CHECK(r.impl == "cpu");
    CHECK(r.runs == 2);
    CHECK(r.ms > 0.0);
    CHECK(r.gips == doctest::Approx(bench::gips(r.width, r.height, r.ms)));
    CHECK(r.format == (r.channels == 1 ? "f32" : "f32x4"));
    if (r.filter == "bspline3") CHECK(r.sigma == 0.0);
  }
  const bench::BenchResult& copy = rows.back();
  CHECK(copy.impl == "copy");
  CHECK(copy.width == 16);
  CHECK(copy.channels == 4);
  CHECK(copy.gbps > 0.0);
}

TEST_CASE("bench: the algorithms a case is timed with") {
  bench::BenchOptions o;
  const std::vector<Algorithm> all = bench::bench_algorithms(o, FilterKind::Gaussian);
  CHECK(std::find(all.begin(), all.end(), Algorithm::Auto) == all.end());
  CHECK(all.size() + 1 == algorithms_for(Backend::Cuda, FilterKind::Gaussian).size());
  o.algos = {Algorithm::Alg5, Algorithm::EdgeC};
  CHECK(bench::bench_algorithms(o, FilterKind::Gaussian) ==
        std::vector<Algorithm>{Algorithm::Alg5});
  CHECK(bench::bench_algorithms(o, FilterKind::EdgeAware) ==
        std::vector<Algorithm>{Algorithm::EdgeC});
  CHECK(bench::uses_sigma(FilterKind::Yvrg));
  CHECK_FALSE(bench::uses_sigma(FilterKind::Sat));
  // The CPU: its auto unless asked, and only what it offers (no alg4).
  CHECK(bench::bench_algorithms({}, FilterKind::Gaussian, Backend::Cpu) ==
        std::vector<Algorithm>{Algorithm::Auto});
  o.algos = {Algorithm::Alg4, Algorithm::Alg5, Algorithm::Alg6};
  CHECK(bench::bench_algorithms(o, FilterKind::Gaussian, Backend::Cpu) ==
        std::vector<Algorithm>{Algorithm::Alg5, Algorithm::Alg6});
}

TEST_CASE("bench: the CPU times the algorithms it is asked for") {
  bench::BenchOptions o;
  o.sizes = {67};
  o.include_hd = false;
  o.kinds = {FilterKind::Gaussian};
  o.orders = {3};
  o.exts = {Extension::Mirror};
  o.channels = {1};
  o.sigmas = {4.0};
  o.iterations = 2;
  o.warmup = 1;
  o.algos = {Algorithm::RT, Algorithm::Alg5, Algorithm::Alg6};
  std::vector<std::string> timed;
  for (const bench::BenchResult& r : bench::bench_cpu(o, nullptr))
    if (r.impl == "cpu") {
      timed.push_back(r.algo);
      CHECK(r.ms > 0.0);
    }
  CHECK(timed == std::vector<std::string>{"rt", "alg5", "alg6"});
}

TEST_CASE("bench: the cases of a kind follow the filter table") {
  bench::BenchOptions o;
  o.orders = {1, 2, 3};
  o.exts = {Extension::Ignore, Extension::Mirror};
  o.sigmas = {2.0, 8.0};
  // A Gaussian at every sigma, order and extension.
  CHECK(bench::bench_cases(o, FilterKind::Gaussian, Backend::Cpu).size() == 2 * 3 * 2);
  // Deriche's design offers orders 2 and 4: only 2 of the list.
  const std::vector<FilterSpec> deriche = bench::bench_cases(o, FilterKind::Deriche, Backend::Cpu);
  REQUIRE(deriche.size() == 2 * 2);
  for (const FilterSpec& s : deriche) CHECK(s.order == 2);
  // A kind of one fixed order and no sigma: once per extension, at its own order.
  const std::vector<FilterSpec> b5 = bench::bench_cases(o, FilterKind::BSpline5, Backend::Cpu);
  REQUIRE(b5.size() == 2);
  CHECK(b5[0].order == 2);
  CHECK(b5[0].ext == Extension::Ignore);
  CHECK(b5[1].ext == Extension::Mirror);
  // The SAT takes zero (and ignore, the same for it): once, at zero, its row saying "-".
  const std::vector<FilterSpec> sat = bench::bench_cases(o, FilterKind::Sat, Backend::Cpu);
  REQUIRE(sat.size() == 1);
  CHECK(sat[0].ext == Extension::Zero);
  const bench::BenchResult row = bench::case_row(sat[0], 8, 4, 1, "f32");
  CHECK(row.ext == "-");
  CHECK(row.sigma == 0.0);
  CHECK(row.order == 1);
  CHECK(row.filter == "sat");
  // On CUDA every algorithm it offers but auto, last in the loop.
  o.algos = {Algorithm::Alg5, Algorithm::RT};
  const std::vector<FilterSpec> cuda = bench::bench_cases(o, FilterKind::Gaussian, Backend::Cuda);
  REQUIRE(cuda.size() == 2 * 3 * 2 * 2);
  CHECK(cuda[0].algo == Algorithm::Alg5);
  CHECK(cuda[1].algo == Algorithm::RT);
  CHECK(cuda[0].ext == cuda[1].ext);
  // Every case is one rfcli filter would take.
  for (const KindInfo& k : kind_table())
    if (k.kind != FilterKind::EdgeAware)
      for (const FilterSpec& s :
           bench::bench_cases(bench::with_defaults({}), k.kind, Backend::Cuda))
        CHECK_NOTHROW(parse_spec(to_args(s)));
}

TEST_CASE("bench: the edge-aware case, its images and its CPU timing") {
  const Image photo = test::random_image(5, 4, 4, 11u);
  const Image tiled = bench::mirror_tile(photo, 12, 9);
  CHECK(tiled.channels == 3);
  // Mirrored copies: x = 5..9 reads 4..0, x = 10 reads 0 again.
  CHECK(tiled.at(5, 0, 1) == photo.at(4, 0, 1));
  CHECK(tiled.at(9, 8, 2) == photo.at(0, 0, 2));
  CHECK(tiled.at(10, 4, 0) == photo.at(0, 3, 0));
  const Image gray = test::random_image(3, 3, 1, 12u);
  CHECK(bench::mirror_tile(gray, 4, 4).at(3, 3, 2) == gray.at(2, 2, 0));
  const Image rectangles = bench::edge_image(nullptr, 40, 30);
  CHECK(rectangles.pixels == bench::edge_image(nullptr, 40, 30).pixels);
  CHECK(bench::edge_image(&photo, 12, 9).pixels == tiled.pixels);

  const bench::EdgeCase paper;
  const FilterSpec spec = bench::edge_spec(paper, 50.0, Algorithm::EdgeC);
  CHECK(spec.kind == FilterKind::EdgeAware);
  CHECK(spec.sigma_r == doctest::Approx(50.0 / 255.0));
  CHECK(spec.iterations == 2);
  CHECK(spec.kappa == 2.0);
  const bench::Timing t = bench::time_edge_aware_cpu(spec, rectangles, bench::Repeats{1, 3});
  CHECK(t.runs == 3);
  CHECK(t.median_ms > 0.0);

  bench::BenchOptions o;
  o.sizes = {24};
  o.include_hd = false;
  const std::vector<bench::BenchResult> rows =
      bench::bench_edge(o, paper, nullptr, {Algorithm::EdgeA, Algorithm::EdgeExact}, true, false,
                        bench::Repeats{0, 2}, bench::Repeats{5, 2});
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].algo == "a");
  CHECK(rows[1].algo == "exact");
  for (const bench::BenchResult& r : rows) {
    CHECK(r.impl == "cpu");
    CHECK(r.filter == "edge-aware");
    CHECK(r.ext == "clamp");
    CHECK(r.channels == 3);
    CHECK(r.runs == 2);
  }
  if (!cuda_available())
    CHECK_THROWS_AS(bench::time_edge_aware_cuda(spec, rectangles, bench::Repeats{}),
                    BackendUnavailable);
}

TEST_CASE("bench: the CPU frame bench of the race, and the CUDA one or why not") {
  const Image frame = test::random_image(33, 17, 4, 21u);
  const auto fb = bench::make_frame_bench(Backend::Cpu, frame);
  CHECK(std::string(fb->timer().clock_name()) == "host steady clock");
  CHECK(fb->input().space == MemorySpace::Host);
  CHECK(fb->input().width == 33);
  CHECK(fb->stream() == nullptr);
  FilterSpec spec;
  for (const bench::Contender& c : fb->baselines(spec)) {
    CHECK(c.baseline);
    CHECK(c.skipped == "on the CUDA backend only");
  }
  spec.kind = FilterKind::BSpline3;
  CHECK(fb->baselines(spec).empty());
  bench::Contender copy = fb->copy_floor();
  CHECK(copy.name == "copy");
  copy.prepare();
  copy.run();
  const FrameView out = fb->output();
  CHECK(std::equal(frame.pixels.begin(), frame.pixels.end(), static_cast<const float*>(out.data)));
  CHECK_THROWS_AS(bench::make_frame_bench(Backend::Cpu, Image(4, 4, 3)), InvalidParameter);
  CHECK_THROWS_AS(bench::make_frame_bench(Backend::Auto, frame), InvalidParameter);
  if (!cuda_available())
    CHECK_THROWS_AS(bench::make_frame_bench(Backend::Cuda, frame), BackendUnavailable);
}
