// Images and frame views shared by every backend.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hd.h"

namespace rf {

enum class PixelFormat {
  R32F,     // one float channel
  RGBA32F,  // four interleaved float channels
  RGBA8,    // four interleaved 8-bit channels, filtered in float on [0, 1]
};

constexpr int channel_count(PixelFormat f) {
  return f == PixelFormat::R32F ? 1 : 4;
}
constexpr std::size_t bytes_per_pixel(PixelFormat f) {
  return f == PixelFormat::R32F ? 4 : f == PixelFormat::RGBA32F ? 16 : 4;
}

// The one 8-bit conversion of the project, host and device alike: a byte c is the float c / 255
// (correctly rounded); a float v goes back to the nearest byte of v * 255, ties to even, clamped
// to [0, 255], NaN as 0. Neither divides (a division is a slow subroutine in a kernel's hot loop),
// and each is written so that no compiler can contract it into a different result on either side.
RF_HDI float from_unorm8(std::uint8_t v) {
  // The product with the rounded reciprocal, corrected by one FMA of its exact residual: c / 255
  // correctly rounded for every byte (the tests check all 256, on the host and on the device).
  const float c = float(v), r = 1.0f / 255.0f;
#ifdef __CUDA_ARCH__
  const float q = __fmul_rn(c, r);
#else
  const float q = c * r;
#endif
  return fmaf(fmaf(-q, 255.0f, c), r, q);
}
RF_HDI std::uint8_t to_unorm8(float v) {
  float s = v * 255.0f;
  s = s > 0.0f ? s : 0.0f;  // NaN lands here too
  s = s < 255.0f ? s : 255.0f;
  return std::uint8_t(rintf(s));
}

enum class MemorySpace {
  Host,         // pageable or pinned host memory
  Device,       // CUDA device memory (pitched)
  CudaSurface,  // a cudaSurfaceObject_t, e.g. a GL texture mapped through CUDA-GL interop
};

// A non-owning view of one frame. For Host and Device `data` points at row 0 and rows are
// `pitch` bytes apart; for CudaSurface `surface` holds the cudaSurfaceObject_t.
struct FrameView {
  void* data = nullptr;
  std::uint64_t surface = 0;
  int width = 0;
  int height = 0;
  std::size_t pitch = 0;
  PixelFormat format = PixelFormat::RGBA32F;
  MemorySpace space = MemorySpace::Host;
};

// A host image of 1, 3 or 4 interleaved float channels, rows packed. 8-bit sources are stored
// normalised to [0, 1].
struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<float> pixels;

  Image() = default;
  Image(int w, int h, int c) : width(w), height(h), channels(c), pixels(std::size_t(w) * h * c) {}

  float& at(int x, int y, int c = 0) { return pixels[(std::size_t(y) * width + x) * channels + c]; }
  float at(int x, int y, int c = 0) const {
    return pixels[(std::size_t(y) * width + x) * channels + c];
  }
  bool empty() const { return pixels.empty(); }

  // A host view of this image; channels must be 1 (R32F) or 4 (RGBA32F).
  FrameView view() {
    FrameView v;
    v.data = pixels.data();
    v.width = width;
    v.height = height;
    v.pitch = std::size_t(width) * channels * sizeof(float);
    v.format = channels == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F;
    v.space = MemorySpace::Host;
    return v;
  }
};

}  // namespace rf
