// Frames holding every 8-bit value, and the identity filter that carries them through an engine
// unchanged: the exponential smoother with pole 0 (b0 = 1, no feedback) from zero initial feedback.
#pragma once

#include <cstdint>
#include <vector>

#include "filters/core/spec.h"

namespace rf::test {

// A 256 x 3 RGBA8 frame: pixel x of row y holds the bytes (x, x + 85y, 255 - x, x ^ 0x5a).
inline std::vector<std::uint8_t> all_bytes_rgba8() {
  std::vector<std::uint8_t> out(256 * 3 * 4);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 256; ++x) {
      std::uint8_t* p = &out[(std::size_t(y) * 256 + x) * 4];
      p[0] = std::uint8_t(x);
      p[1] = std::uint8_t(x + 85 * y);
      p[2] = std::uint8_t(255 - x);
      p[3] = std::uint8_t(x ^ 0x5a);
    }
  return out;
}

inline FilterSpec identity_filter(Algorithm algo) {
  FilterSpec spec;
  spec.kind = FilterKind::Exponential;
  spec.pole = 0.0;
  spec.ext = Extension::Ignore;
  spec.algo = algo;
  return spec;
}

}  // namespace rf::test
