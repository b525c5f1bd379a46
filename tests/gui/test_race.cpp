// The algorithm race: on the CPU backend (CI has no GPU) every algorithm the backend offers is
// timed, the GPU-only baselines are listed as such, the copy floor is measured; the worker never
// blocks its caller and can be cancelled; rfstudio draws the bars.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <set>
#include <thread>

#include "app/gui/race.h"
#include "filters/core/engine.h"
#include "studio_run.h"

using namespace rf;
using namespace rf::gui;

namespace {

Image random_rgba(int w, int h, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Image img(w, h, 4);
  for (float& v : img.pixels) v = u(rng);
  return img;
}

RaceRequest request(FilterKind kind, Backend backend, const Image& frame) {
  RaceRequest r;
  r.spec.kind = kind;
  r.spec.sigma = 3.0;
  r.spec.order = 3;
  r.spec.ext = Extension::Mirror;
  r.backend = backend;
  r.frame = frame;
  r.budget_ms = 5.0;
  r.min_runs = 3;
  r.max_runs = 20;
  return r;
}

std::set<std::string> names(const RaceResult& r) {
  std::set<std::string> out;
  for (const RaceEntry& e : r.entries) out.insert(e.name);
  return out;
}

}  // namespace

TEST_CASE("race: the CPU backend's algorithms, timed on the frame, beside a memcpy floor") {
  const Image frame = random_rgba(97, 61, 7);
  std::atomic<float> progress{0};
  std::atomic<bool> cancel{false};
  RaceRequest r = request(FilterKind::Gaussian, Backend::Cpu, frame);
  r.spec.algo = Algorithm::RT;
  const RaceResult race = run_race(r, &progress, &cancel);
  REQUIRE(race.error.empty());
  CHECK(progress.load() == 1.0f);
  CHECK(race.width == 97);
  CHECK(race.clock == "host steady clock");
  // Every algorithm rf::algorithms_for offers but auto, then the baselines.
  std::set<std::string> expected;
  for (Algorithm a : algorithms_for(Backend::Cpu, FilterKind::Gaussian))
    if (a != Algorithm::Auto) expected.insert(to_string(a));
  expected.insert("method fir");  // the Gaussian's FIR method, on this backend
  expected.insert("fir");         // the baselines
  expected.insert("cufft");
  CHECK(names(race) == expected);
  const double pixels = 97.0 * 61.0;
  for (const RaceEntry& e : race.entries) {
    CAPTURE(e.name);
    CHECK(e.error.empty());
    if (e.baseline) {
      CHECK(e.skipped == "on the CUDA backend only");  // FIR and cuFFT run on the GPU
      CHECK(e.runs == 0);
      continue;
    }
    CHECK(e.skipped.empty());
    CHECK(e.runs >= 3);
    CHECK(e.ms > 0);
    CHECK(e.gips == doctest::Approx(pixels / (e.ms * 1e-3) / double(1 << 30)).epsilon(1e-12));
    CHECK(e.current == (e.name == "rt"));
  }
  CHECK(race.floor.name == "copy");
  CHECK(race.floor.runs >= 3);
  CHECK(race.floor.ms > 0);
  CHECK(race.floor.gips ==
        doctest::Approx(pixels / (race.floor.ms * 1e-3) / double(1 << 30)).epsilon(1e-12));
}

TEST_CASE("race: edge-aware and yvrg bring their own algorithms") {
  const Image frame = random_rgba(40, 33, 9);
  std::atomic<float> progress{0};
  std::atomic<bool> cancel{false};
  const RaceResult edge =
      run_race(request(FilterKind::EdgeAware, Backend::Cpu, frame), &progress, &cancel);
  REQUIRE(edge.error.empty());
  CHECK(names(edge) == std::set<std::string>{"a", "c", "d", "exact"});
  for (const RaceEntry& e : edge.entries) CHECK(e.runs >= 3);
  const RaceResult yvrg =
      run_race(request(FilterKind::Yvrg, Backend::Cpu, frame), &progress, &cancel);
  REQUIRE(yvrg.error.empty());
  CHECK(names(yvrg).count("one-way") == 1);
  CHECK(names(yvrg).count("two-way") == 1);
  // A bad parameter fails each entry by name, not the race.
  RaceRequest bad = request(FilterKind::Exponential, Backend::Cpu, frame);
  bad.spec.pole = 1.5;
  const RaceResult refused = run_race(bad, &progress, &cancel);
  REQUIRE(refused.error.empty());
  for (const RaceEntry& e : refused.entries) CHECK(e.error.find("pole") != std::string::npos);
}

TEST_CASE("race: on CUDA, or saying why not") {
  const Image frame = random_rgba(64, 48, 11);
  std::atomic<float> progress{0};
  std::atomic<bool> cancel{false};
  const RaceResult race =
      run_race(request(FilterKind::Gaussian, Backend::Cuda, frame), &progress, &cancel);
  if (!cuda_available()) {
    CHECK(race.error.find("CUDA") != std::string::npos);
    CHECK(race.entries.empty());
    return;
  }
  REQUIRE(race.error.empty());
  CHECK(race.clock == "CUDA events");
  for (const char* name : {"rt", "alg4", "alg5", "alg6", "fir", "cufft"}) {
    CAPTURE(name);
    CHECK(names(race).count(name) == 1);
  }
  for (const RaceEntry& e : race.entries) {
    CAPTURE(e.name);
    CHECK(e.error.empty());
    if (e.skipped.empty()) CHECK(e.ms > 0);
  }
  CHECK(race.floor.ms > 0);
}

TEST_CASE("race: the worker never blocks, reports progress, and can be cancelled") {
  const Image frame = random_rgba(128, 96, 13);
  RaceWorker worker;
  RaceRequest r = request(FilterKind::Gaussian, Backend::Cpu, frame);
  r.budget_ms = 60000.0;  // a race that would take minutes
  r.max_runs = 1000000;
  // request() hands the race to the worker and returns while it runs: had it waited, the race
  // would be over, and the worker idle with a finished result instead of a cancelled one.
  worker.request(r);
  CHECK(worker.busy());
  CHECK_FALSE(worker.take().has_value());
  while (worker.progress() <= 0.0f) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  worker.cancel();
  worker.wait_idle();
  CHECK_FALSE(worker.busy());
  const auto cancelled = worker.take();
  REQUIRE(cancelled.has_value());
  CHECK(cancelled->error == "cancelled");

  r.budget_ms = 2.0;
  r.max_runs = 5;
  r.key = 42;
  worker.request(r);
  worker.wait_idle();
  const auto done = worker.take();
  REQUIRE(done.has_value());
  CHECK(done->error.empty());
  CHECK(done->key == 42);
  CHECK(done->floor.runs >= 3);
}

TEST_CASE("offscreen: the race view draws bars and the copy floor") {
  const test::StudioRun run = test::run_offscreen(
      "race", "--hide-ui --view race --race --pattern noise --pattern-size 160x120 --sigma 3", 800,
      600);
  CAPTURE(run.log);
  REQUIRE(run.status == 0);
  CHECK(run.log.find("algorithm race: ") == std::string::npos);  // no error posted
  CHECK(run.log.find("algorithm race on 160x120, CPU") != std::string::npos);
  CHECK(run.log.find(" rt ") != std::string::npos);
  CHECK(run.log.find("copy floor") != std::string::npos);
  const test::Rgb8 algorithm{86, 156, 214}, floor{110, 220, 110};
  // Two charts: bars of the algorithms in each half of the picture, the floor's line in both.
  // The GiP/s bars are scaled with the copy floor, which dwarfs them where the filter is slow
  // (a sanitized build: 69 pixels of bars there).
  CHECK(test::count_colour(run.shot, 0, 0, 400, 600, algorithm, 10) > 300);
  CHECK(test::count_colour(run.shot, 400, 0, 800, 600, algorithm, 10) > 30);
  CHECK(test::count_colour(run.shot, 0, 0, 400, 600, floor, 20) > 30);
  CHECK(test::count_colour(run.shot, 400, 0, 800, 600, floor, 20) > 30);
}
