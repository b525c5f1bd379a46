// The benchmark's random cases, the same for the CPU and the CUDA backend: seeded, and never zero
// (a filter of zeros can be fast for the wrong reasons). Floats and float16 are uniform on
// [0.05, 1), bytes on 0..255, uint16 on 0..65535, from a xorshift generator fast enough for 8192^2
// RGBA float frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "filters/core/image.h"

namespace rf::bench {

// `bytes` bytes of samples of `format` (RGBA8: bytes; R16U, R16F: 16-bit; otherwise floats).
void fill_random(void* data, std::size_t bytes, PixelFormat format, std::uint32_t seed);

std::vector<float> random_floats(std::size_t count, std::uint32_t seed);

// A float image of any channel count.
Image random_image(int width, int height, int channels, std::uint32_t seed);

}  // namespace rf::bench
