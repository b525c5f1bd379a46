#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "app/gui/truth.h"
#include "filters/core/engine.h"

using namespace rf;
using namespace rf::gui;

namespace {

Image random_rgba(int w, int h, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Image img(w, h, 4);
  for (float& v : img.pixels) v = u(rng);
  for (std::size_t i = 3; i < img.pixels.size(); i += 4) img.pixels[i] = 1.0f;
  return img;
}

}  // namespace

TEST_CASE("truth: padded recursion and the engine agree for every extension") {
  const Image in = random_rgba(37, 29, 5);
  for (Extension e : {Extension::Zero, Extension::Clamp, Extension::Repeat, Extension::Mirror}) {
    CAPTURE(to_string(e));
    TruthRequest r;
    r.spec.kind = FilterKind::Gaussian;
    r.spec.sigma = 3.0;
    r.spec.order = 3;
    r.spec.ext = e;
    r.mode = TruthMode::Padded;
    r.input = in;
    r.result = filter_image(r.spec, in, Backend::Cpu);
    r.band = 9;
    std::atomic<float> progress{0};
    std::atomic<bool> cancel{false};
    const TruthResult t = compute_truth(r, &progress, &cancel);
    REQUIRE(t.error.empty());
    CHECK(progress.load() == 1.0f);
    // The exact extension makes the CPU engine equal to the padded double recursion up to float.
    CHECK(t.stats.whole.max_abs < 1e-5);
  }
}

TEST_CASE("truth: the edge-aware reference sees the colour edges of all channels at once") {
  // Eq. (2) sums the gradients of every colour channel; a reference filtered channel by channel
  // would put each channel's edges elsewhere and disagree with the engine by ~1e-2.
  const Image in = random_rgba(41, 33, 12);
  TruthRequest r;
  r.spec.kind = FilterKind::EdgeAware;
  r.spec.sigma = 6.0;
  r.spec.sigma_r = 0.2;
  r.spec.algo = Algorithm::EdgeA;
  r.mode = TruthMode::Fir;
  r.input = in;
  r.result = filter_image(r.spec, in, Backend::Cpu);
  r.band = 18;
  std::atomic<float> progress{0};
  std::atomic<bool> cancel{false};
  const TruthResult t = compute_truth(r, &progress, &cancel);
  REQUIRE(t.error.empty());
  CHECK(progress.load() == 1.0f);
  CHECK(t.stats.whole.max_abs < 1e-4);
}

TEST_CASE("truth: ignoring the boundary shows up in the band, not the interior") {
  const Image in = random_rgba(101, 97, 9);
  TruthRequest r;
  r.spec.sigma = 2.0;
  r.spec.ext = Extension::Ignore;
  r.mode = TruthMode::Padded;
  r.truth_ext = Extension::Mirror;
  r.input = in;
  r.result = filter_image(r.spec, in, Backend::Cpu);
  // The zero start's transient decays with the slowest pole: 15 sigma leaves float rounding.
  r.band = 30;
  std::atomic<float> progress{0};
  std::atomic<bool> cancel{false};
  const TruthResult t = compute_truth(r, &progress, &cancel);
  REQUIRE(t.error.empty());
  CHECK(t.label.find("mirror") != std::string::npos);
  CHECK(t.stats.border.max_abs > 0.05);
  CHECK(t.stats.interior.max_abs < 1e-4);
}

TEST_CASE("truth: FIR Gaussian, other extension, and cancellation") {
  const Image in = random_rgba(33, 31, 13);
  TruthRequest r;
  r.spec.sigma = 2.5;
  r.spec.order = 5;
  r.spec.ext = Extension::Clamp;
  r.input = in;
  r.result = filter_image(r.spec, in, Backend::Cpu);
  r.band = 8;
  std::atomic<float> progress{0};
  std::atomic<bool> cancel{false};
  r.mode = TruthMode::Fir;
  TruthResult t = compute_truth(r, &progress, &cancel);
  REQUIRE(t.error.empty());
  // A 5th-order recursive Gaussian is within a few 1e-3 of the sampled Gaussian on [0, 1] data.
  CHECK(t.stats.whole.max_abs < 1e-2);
  CHECK(t.stats.whole.max_abs > 0.0);

  r.mode = TruthMode::OtherExtension;
  r.truth_ext = Extension::Clamp;
  t = compute_truth(r, &progress, &cancel);
  REQUIRE(t.error.empty());
  CHECK(t.stats.whole.max_abs == 0.0);  // the same filter, the same extension

  cancel = true;
  r.mode = TruthMode::Padded;
  t = compute_truth(r, &progress, &cancel);
  CHECK(t.error == "cancelled");
  CHECK(t.truth.empty());
}

TEST_CASE("truth worker: a newer request replaces the running one") {
  TruthWorker worker;
  TruthRequest r;
  r.spec.sigma = 60.0;  // slow enough to be running when replaced
  r.mode = TruthMode::Padded;
  r.input = random_rgba(301, 203, 17);
  r.key = 1;
  worker.request(r);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  r.spec.sigma = 1.0;
  r.input = random_rgba(31, 21, 19);
  r.key = 2;
  worker.request(r);
  worker.wait_idle();
  auto done = worker.take();
  REQUIRE(done.has_value());
  CHECK(done->key == 2);
  CHECK(done->error.empty());
  CHECK(done->truth.width == 31);
  CHECK_FALSE(worker.busy());
}
