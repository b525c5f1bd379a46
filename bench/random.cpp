#include "bench/random.h"

namespace rf::bench {

void fill_random(void* data, std::size_t bytes, PixelFormat format, std::uint32_t seed) {
  std::uint64_t state = 0x9E3779B97F4A7C15ull ^ seed;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  if (format == PixelFormat::RGBA8) {
    auto* b = static_cast<std::uint8_t*>(data);
    for (std::size_t i = 0; i < bytes; ++i) b[i] = std::uint8_t(next() >> 56);
  } else if (format == PixelFormat::R16U || format == PixelFormat::R16F) {
    // uint16 values on 0..65535; float16 on [0.05, 1) as the floats.
    auto* h = static_cast<std::uint16_t*>(data);
    for (std::size_t i = 0; i < bytes / sizeof(std::uint16_t); ++i)
      h[i] = format == PixelFormat::R16U
                 ? std::uint16_t(next() >> 48)
                 : to_half(0.05f + 0.95f * float(next() >> 40) / float(1 << 24));
  } else {
    auto* f = static_cast<float*>(data);
    for (std::size_t i = 0; i < bytes / sizeof(float); ++i)
      f[i] = 0.05f + 0.95f * float(next() >> 40) / float(1 << 24);
  }
}

std::vector<float> random_floats(std::size_t count, std::uint32_t seed) {
  std::vector<float> v(count);
  fill_random(v.data(), count * sizeof(float), PixelFormat::R32F, seed);
  return v;
}

Image random_image(int width, int height, int channels, std::uint32_t seed) {
  Image img(width, height, channels);
  fill_random(img.pixels.data(), img.pixels.size() * sizeof(float), PixelFormat::R32F, seed);
  return img;
}

}  // namespace rf::bench
