// Seeded random test data: the one place the suites make random images, frames and lines, so a
// failing case can be replayed from its seed. Never zeros: values are drawn from [lo, hi).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "filters/core/image.h"

namespace rf::test {

// A float image of `channels` interleaved channels with samples uniform on [lo, hi).
inline Image random_image(int width, int height, int channels, std::uint64_t seed, float lo = 0.0f,
                          float hi = 1.0f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  Image img(width, height, channels);
  for (float& v : img.pixels) v = u(rng);
  return img;
}

// The samples of a C-contiguous array of `shape`, in double, uniform on [0.05, 1).
inline std::vector<double> random_array(const std::vector<std::int64_t>& shape,
                                        std::uint64_t seed) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.05, 1.0);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (double& v : out) v = u(rng);
  return out;
}

// `count` bytes uniform on [0, 255] (8-bit frames, encoded images).
inline std::vector<std::uint8_t> random_bytes(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> u(0, 255);
  std::vector<std::uint8_t> out(count);
  for (auto& v : out) v = std::uint8_t(u(rng));
  return out;
}

// A float image of random 8-bit levels k / 255: the same k as random_bytes(width * height *
// channels, seed), so an RGBA8 frame and its float copy come from one seed. Exact through 8-bit
// files and frames.
inline Image random_image_8bit(int width, int height, int channels, std::uint64_t seed) {
  const std::vector<std::uint8_t> levels =
      random_bytes(std::size_t(width) * std::size_t(height) * std::size_t(channels), seed);
  Image img(width, height, channels);
  for (std::size_t i = 0; i < levels.size(); ++i) img.pixels[i] = float(levels[i]) / 255.0f;
  return img;
}

// A line of n samples uniform on [lo, hi), in double (the references' precision).
inline std::vector<double> random_line(int n, std::uint64_t seed, double lo = -1.0,
                                       double hi = 1.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> x(std::size_t(n > 0 ? n : 0));
  for (double& v : x) v = u(rng);
  return x;
}

}  // namespace rf::test
