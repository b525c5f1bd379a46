#include <doctest/doctest.h>

#include "filters/core/extension.h"
#include "filters/core/spec.h"

using namespace rf;

TEST_CASE("extension names round-trip") {
  for (Extension e : kAllExtensions) CHECK(parse_extension(to_string(e)) == e);
  CHECK_FALSE(parse_extension("wrap").has_value());
}

TEST_CASE("extend_index follows the GL wrap modes") {
  // n = 3, samples a b c at 0 1 2.
  CHECK(extend_index(-1, 3, Extension::Clamp) == 0);
  CHECK(extend_index(5, 3, Extension::Clamp) == 2);
  CHECK(extend_index(-1, 3, Extension::Repeat) == 2);
  CHECK(extend_index(4, 3, Extension::Repeat) == 1);
  // mirror: c b a | a b c | c b a
  CHECK(extend_index(-1, 3, Extension::Mirror) == 0);
  CHECK(extend_index(-3, 3, Extension::Mirror) == 2);
  CHECK(extend_index(-4, 3, Extension::Mirror) == 2);
  CHECK(extend_index(3, 3, Extension::Mirror) == 2);
  CHECK(extend_index(5, 3, Extension::Mirror) == 0);
  CHECK(extend_index(6, 3, Extension::Mirror) == 0);
  CHECK(extend_index(-1, 3, Extension::Zero) == -1);
  CHECK(extend_index(-7, 1, Extension::Mirror) == 0);
}
