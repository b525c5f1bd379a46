// The one 8-bit conversion (core/image.h): every byte decodes to c / 255 correctly rounded and
// encodes back to itself; the CPU engine's RGBA8 path carries every byte through unchanged.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "filters/core/engine.h"
#include "filters/core/image.h"
#include "tests/filters/core/unorm8_frames.h"

TEST_CASE("8-bit conversion: c / 255 correctly rounded, and back to c, for every byte") {
  for (int c = 0; c < 256; ++c) {
    const float f = rf::from_unorm8(std::uint8_t(c));
    // Correctly rounded: no float is nearer to c / 255 than f.
    const double exact = c / 255.0;
    CHECK(std::abs(double(f) - exact) <= std::abs(double(std::nextafter(f, 2.0f)) - exact));
    CHECK(std::abs(double(f) - exact) <= std::abs(double(std::nextafter(f, -1.0f)) - exact));
    CHECK(rf::to_unorm8(f) == c);
  }
  // Rounding to the nearest byte, ties to even; clamped; NaN as 0.
  CHECK(rf::to_unorm8(0.5f / 255.0f) == 0);
  CHECK(rf::to_unorm8(1.5f / 255.0f) == 2);
  CHECK(rf::to_unorm8(-3.0f) == 0);
  CHECK(rf::to_unorm8(7.0f) == 255);
  CHECK(rf::to_unorm8(NAN) == 0);
}

TEST_CASE("8-bit conversion: the CPU engine carries every byte through the identity filter") {
  const std::vector<std::uint8_t> in = rf::test::all_bytes_rgba8();
  auto engine = rf::make_cpu_engine();
  for (rf::Algorithm algo : {rf::Algorithm::Auto, rf::Algorithm::Alg5, rf::Algorithm::Alg6}) {
    engine->plan(rf::test::identity_filter(algo), 256, 3, rf::PixelFormat::RGBA8);
    std::vector<std::uint8_t> out(in.size(), 7);
    rf::FrameView vi{const_cast<std::uint8_t*>(in.data()),
                     0,
                     256,
                     3,
                     256 * 4,
                     rf::PixelFormat::RGBA8,
                     rf::MemorySpace::Host};
    rf::FrameView vo = vi;
    vo.data = out.data();
    engine->run(vi, vo);
    INFO("algo " << std::string(rf::to_string(algo)));
    CHECK(out == in);
  }
}
