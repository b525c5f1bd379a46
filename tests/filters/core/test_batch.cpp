// Batches of frames on the CPU engine (batch_frames.h).
#include "tests/filters/core/batch_frames.h"

TEST_CASE("cpu: a batch of frames filters each frame as it is filtered alone") {
  auto engine = rf::make_cpu_engine();
  CHECK(rf::test::check_batches(*engine, rf::Backend::Cpu) > 0);
}

// A batch's stage times are the stages of one frame, each summed over the frames.
TEST_CASE("cpu: a batch reports each stage once, its frames' times summed") {
  auto engine = rf::make_cpu_engine();
  engine->set_timing(true);
  rf::FilterSpec spec;
  spec.sigma = 3.0;
  rf::Image one = rf::test::random_image(40, 30, 1, 7, 0.05f, 1.0f);
  engine->plan(spec, 40, 30, rf::PixelFormat::R32F);
  engine->run(one.view(), one.view());
  const std::vector<rf::StageTime> alone = engine->timings();
  rf::Image batch = rf::test::random_image(40, 30 * 3, 1, 8, 0.05f, 1.0f);
  engine->plan_batch(spec, 40, 30, 3, rf::PixelFormat::R32F);
  engine->run(rf::test::batch_view(batch, 3), rf::test::batch_view(batch, 3));
  const std::vector<rf::StageTime> times = engine->timings();
  REQUIRE(times.size() == alone.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    CHECK(times[i].stage == alone[i].stage);
    CHECK(times[i].ms >= 0.0);
  }
}
