// The CUDA backend: every algorithm it offers against the double reference (all_algorithms.h).
#include "tests/filters/core/cuda_test.h"
#include "tests/filters/recursive/all_algorithms.h"

TEST_CASE("cuda: every offered algorithm, order, extension and sigma up to the cap is exact") {
  RF_REQUIRE_CUDA();
  const auto engine = rf::make_cuda_engine();
  const rf::test::Outcome o = rf::test::check_all_algorithms(*engine, rf::Backend::Cuda);
  CHECK(o.failed == 0);
  CHECK(o.passed > 0);
}
