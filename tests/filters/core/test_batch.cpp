// Batches of frames on the CPU engine (batch_frames.h).
#include "tests/filters/core/batch_frames.h"

TEST_CASE("cpu: a batch of frames filters each frame as it is filtered alone") {
  auto engine = rf::make_cpu_engine();
  CHECK(rf::test::check_batches(*engine, rf::Backend::Cpu) > 0);
}
