// BT.601 limited-range YCbCr <-> 8-bit RGB, shared by the CPU conversions and the GPU kernels of
// the live path, so a camera frame converted on either side gives the same bytes.
#pragma once

#include <cstdint>

#include "filters/core/hd.h"

namespace rf::app {

// Y in 16..235, Cb/Cr in 16..240 centred on 128, to full-range RGB:
//   R = 1.164 (Y-16)                 + 1.596 (Cr-128)
//   G = 1.164 (Y-16) - 0.392 (Cb-128) - 0.813 (Cr-128)
//   B = 1.164 (Y-16) + 2.017 (Cb-128)
// in 8.8 fixed point (298, 409, 100, 208, 516 over 256), rounded, then clamped: values outside
// the nominal range saturate rather than wrap. pixel_convert.cpp evaluates the same sums through
// lookup tables.
RF_HDI int clamp_u8(int v) {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

RF_HDI void yuv_to_rgb8(int y, int u, int v, std::uint8_t* r, std::uint8_t* g, std::uint8_t* b) {
  const int c = 298 * (y - 16) + 128;
  *r = std::uint8_t(clamp_u8((c + 409 * (v - 128)) >> 8));
  *g = std::uint8_t(clamp_u8((c - 100 * (u - 128) - 208 * (v - 128)) >> 8));
  *b = std::uint8_t(clamp_u8((c + 516 * (u - 128)) >> 8));
}

// The inverse, for frames sent on as YUYV (camera output, YUYV patterns): BT.601 limited range,
//   Y  =  16 + ( 66 R + 129 G +  25 B) / 256
//   Cb = 128 + (-38 R -  74 G + 112 B) / 256
//   Cr = 128 + (112 R -  94 G -  18 B) / 256
// rounded. Chroma is the mean of the two pixels a YUYV group shares, computed from their sums.
RF_HDI int rgb_to_y(int r, int g, int b) {
  return 16 + ((66 * r + 129 * g + 25 * b + 128) >> 8);
}
// r, g, b: sums over `n` pixels (1 or 2).
RF_HDI int rgb_to_u(int r, int g, int b, int n) {
  return 128 + ((-38 * r - 74 * g + 112 * b + 128 * n) >> (7 + n));
}
RF_HDI int rgb_to_v(int r, int g, int b, int n) {
  return 128 + ((112 * r - 94 * g - 18 * b + 128 * n) >> (7 + n));
}

}  // namespace rf::app
