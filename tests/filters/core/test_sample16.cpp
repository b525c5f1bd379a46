// 16-bit samples on the host: the one conversion of each (core/image.h), and the CPU engine's
// R16U and R16F frames (sample16_frames.h).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "filters/core/engine.h"
#include "filters/core/image.h"
#include "tests/filters/core/sample16_frames.h"

TEST_CASE("16-bit unsigned samples: c / 65535 correctly rounded, back to the nearest level") {
  for (int c = 0; c < 65536; ++c) {
    const float v = rf::from_unorm16(std::uint16_t(c));
    REQUIRE(v == float(c) / 65535.0f);  // IEEE division: correctly rounded
    REQUIRE(rf::to_unorm16(v) == c);
  }
  CHECK(rf::to_unorm16(0.4f / 65535.0f) == 0);
  CHECK(rf::to_unorm16(1.6f / 65535.0f) == 2);
  CHECK(rf::to_unorm16(-3.0f) == 0);
  CHECK(rf::to_unorm16(1.2f) == 65535);
  CHECK(rf::to_unorm16(std::nanf("")) == 0);
  CHECK(rf::to_unorm16(INFINITY) == 65535);
}

TEST_CASE("cpu: 16-bit frames filter as their decoded samples, every algorithm and extension") {
  auto engine = rf::make_cpu_engine();
  for (rf::PixelFormat f : {rf::PixelFormat::R16U, rf::PixelFormat::R16F}) {
    CHECK(rf::test::check_identity16(*engine, rf::Backend::Cpu, f) > 0);
    CHECK(rf::test::check_filters16(*engine, rf::Backend::Cpu, f) > 0);
    CHECK(rf::test::check_against_float16(*engine, rf::test::converted_specs16(rf::Backend::Cpu),
                                          f) > 0);
  }
}
