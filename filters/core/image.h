// Images and frame views shared by every backend.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "hd.h"

#ifdef __CUDACC__
#include <cuda_fp16.h>
#endif

namespace rf {

enum class PixelFormat {
  R32F,     // one float channel
  RGBA32F,  // four interleaved float channels
  RGBA8,    // four interleaved 8-bit channels, filtered in float on [0, 1]
  R64F,     // one double channel, filtered in double throughout (the CPU's line filter: rt, auto)
  R16U,     // one 16-bit channel, filtered in float on [0, 1] as RGBA8 is
  R16F,     // one IEEE binary16 channel, filtered in float
};

constexpr int channel_count(PixelFormat f) {
  return f == PixelFormat::RGBA32F || f == PixelFormat::RGBA8 ? 4 : 1;
}
constexpr std::size_t bytes_per_pixel(PixelFormat f) {
  switch (f) {
    case PixelFormat::RGBA32F:
      return 16;
    case PixelFormat::R64F:
      return 8;
    case PixelFormat::R16U:
    case PixelFormat::R16F:
      return 2;
    default:
      return 4;
  }
}
// Whether a frame stores its samples as the float32 the filters compute in.
constexpr bool holds_float32(PixelFormat f) {
  return f == PixelFormat::R32F || f == PixelFormat::RGBA32F;
}
// "R32F", "RGBA8", ...
const char* to_string(PixelFormat f);

// The one 8-bit conversion of the project, host and device alike: a byte c is the float c / 255,
// correctly rounded; a float v goes back to the nearest byte of v * 255, ties to even, clamped to
// [0, 255], NaN as 0. Each side computes the same values its own fast way (the tests check all
// 256 bytes on the host and on the device, through every CUDA path): a division, or a rounding
// instruction behind a conversion, costs a kernel's hot loop more than the memory it moves.
RF_HDI float from_unorm8(std::uint8_t v) {
#ifdef __CUDA_ARCH__
  // 1 / 255 as a sum of two floats, hi + lo: c hi + RN(c lo) is within 2^-47 (relative) of c / 255,
  // far inside the margin below, and rounds to it in one FMA. The plain product c * hi is off by
  // an ulp for 126 bytes (docs/bench/README.md measures what exactness costs alg4's 8-bit rows).
  const float c = float(v);
  constexpr float hi = 1.0f / 255.0f, lo = float(1.0 / 255.0 - double(1.0f / 255.0f));
  return __fmaf_rn(c, hi, __fmul_rn(c, lo));
#else
  // The double product is within 2^-52 (relative) of c / 255, which lies at least 1/510 of a
  // float ulp from any rounding boundary of float: rounding it to float rounds c / 255 correctly.
  return float(double(v) * (1.0 / 255.0));
#endif
}
RF_HDI std::uint8_t to_unorm8(float v) {
#ifdef __CUDA_ARCH__
  float s = __fmul_rn(v, 255.0f);
#else
  float s = v * 255.0f;
#endif
  s = s > 0.0f ? s : 0.0f;  // NaN lands here too
  s = s < 255.0f ? s : 255.0f;
#ifdef __CUDA_ARCH__
  return std::uint8_t(__float2int_rn(s));  // one conversion, ties to even
#else
  return std::uint8_t(std::lrintf(s));  // ties to even in the default rounding mode
#endif
}

// The 16-bit unsigned conversion, the same way: a uint16 c is the float c / 65535, correctly
// rounded (c / 65535 lies at least 2^-17 of a float ulp from any rounding boundary, beyond the
// error of either side's product), and a float v goes back to the nearest uint16 of v * 65535,
// ties to even, clamped to [0, 65535], NaN as 0.
RF_HDI float from_unorm16(std::uint16_t v) {
#ifdef __CUDA_ARCH__
  const float c = float(v);
  constexpr float hi = 1.0f / 65535.0f, lo = float(1.0 / 65535.0 - double(1.0f / 65535.0f));
  return __fmaf_rn(c, hi, __fmul_rn(c, lo));
#else
  return float(double(v) * (1.0 / 65535.0));
#endif
}
RF_HDI std::uint16_t to_unorm16(float v) {
#ifdef __CUDA_ARCH__
  float s = __fmul_rn(v, 65535.0f);
#else
  float s = v * 65535.0f;
#endif
  s = s > 0.0f ? s : 0.0f;  // NaN lands here too
  s = s < 65535.0f ? s : 65535.0f;
#ifdef __CUDA_ARCH__
  return std::uint16_t(__float2int_rn(s));
#else
  return std::uint16_t(std::lrintf(s));
#endif
}

// IEEE binary16 (float16) <-> float, round to nearest even; infinities and NaN kept. The device
// converts in one instruction; the host computes the same values from the bits.
RF_HDI float from_half(std::uint16_t h) {
#ifdef __CUDA_ARCH__
  return __half2float(__ushort_as_half(h));
#else
  const int e = (h >> 10) & 0x1f, mant = h & 0x3ff;
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (e == 0) return sign * std::ldexp(float(mant), -24);
  if (e == 31) return mant ? std::nanf("") : sign * INFINITY;
  return sign * std::ldexp(float(mant | 0x400), e - 25);
#endif
}
RF_HDI std::uint16_t to_half(float f) {
#ifdef __CUDA_ARCH__
  return __half_as_ushort(__float2half_rn(f));
#else
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const std::uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) return std::uint16_t(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (a >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // 65520 and up round to infinity
  if (a < 0x38800000u) {
    // Below 2^-14: a multiple of 2^-24, rounded to nearest even (the scaling is exact).
    float v;
    std::memcpy(&v, &a, sizeof v);
    return std::uint16_t(sign | std::uint32_t(std::nearbyint(v * 16777216.0f)));
  }
  std::uint32_t h = ((((a >> 23) - 127 + 15) << 10) | ((a & 0x7fffffu) >> 13));
  const std::uint32_t rest = a & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry moves into the exponent
  return std::uint16_t(sign | h);
#endif
}

enum class MemorySpace {
  Host,         // pageable or pinned host memory
  Device,       // CUDA device memory (pitched)
  CudaSurface,  // a cudaSurfaceObject_t, e.g. a GL texture mapped through CUDA-GL interop
};

// A non-owning view of one frame, or of a batch of frames. For Host and Device `data` points at
// row 0 and rows are `pitch` bytes apart; for CudaSurface `surface` holds the
// cudaSurfaceObject_t. A batch (Engine::plan_batch) is `frames` frames of `height` rows one after
// another in host or device memory: frame k starts at row k * height (a C-contiguous
// (frames, height, width[, 4]) array).
struct FrameView {
  void* data = nullptr;
  std::uint64_t surface = 0;
  int width = 0;
  int height = 0;
  std::size_t pitch = 0;
  PixelFormat format = PixelFormat::RGBA32F;
  MemorySpace space = MemorySpace::Host;
  int frames = 1;
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
