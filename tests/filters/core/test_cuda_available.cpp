#include <doctest/doctest.h>

#include "tests/filters/core/cuda_test.h"

TEST_CASE("cuda engine can be created when a device exists") {
  RF_REQUIRE_CUDA();
  auto engine = rf::make_cuda_engine();
  CHECK(engine->backend() == rf::Backend::Cuda);
}
