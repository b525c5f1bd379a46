// The CPU backend: every algorithm it offers against the double reference (all_algorithms.h).
#include "tests/filters/recursive/all_algorithms.h"

TEST_CASE("cpu: every offered algorithm, order, extension and sigma up to the cap is exact") {
  const auto engine = rf::make_cpu_engine();
  const rf::test::Outcome o = rf::test::check_all_algorithms(*engine, rf::Backend::Cpu);
  CHECK(o.failed == 0);
  // The CPU's algorithms hold every case: none is refused.
  CHECK(o.refused == 0);
  CHECK(o.passed > 0);
}
