// RGBA8 frames through the CUDA engine, as the GUI hands them over: random bytes in, the engine's
// output bytes back, and their distance from a float result in 8-bit steps.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "filters/core/device_frame.h"
#include "filters/core/engine.h"
#include "tests/random_data.h"

namespace rf::test {

// w x h RGBA8 bytes, seeded, and the same image as floats on [0, 1].
struct Rgba8Image {
  int w, h;
  std::vector<std::uint8_t> bytes;
  Image as_float;

  Rgba8Image(int width, int height, unsigned seed)
      : w(width),
        h(height),
        bytes(random_bytes(std::size_t(width) * height * 4, seed)),
        as_float(random_image_8bit(width, height, 4, seed)) {}
};

// `spec` on a CUDA engine planned for RGBA8 frames in `space`, output poisoned first; returns
// the output bytes.
inline std::vector<std::uint8_t> run_rgba8(const FilterSpec& spec, const Rgba8Image& in,
                                           MemorySpace space) {
  auto engine = make_cuda_engine();
  engine->plan(spec, in.w, in.h, PixelFormat::RGBA8);
  cuda::DeviceFrame src(in.w, in.h, PixelFormat::RGBA8, space);
  cuda::DeviceFrame dst(in.w, in.h, PixelFormat::RGBA8, space);
  src.upload(in.bytes.data());
  dst.poison();
  engine->run(src.view(), dst.view());
  std::vector<std::uint8_t> out(in.bytes.size());
  dst.download(out.data());
  return out;
}

// The largest |out - 255 clamp(want, 0, 1)|: 0.5 is the rounding any 8-bit result carries.
template <class Values>
double worst_8bit_steps(const std::vector<std::uint8_t>& out, const Values& want) {
  double worst = 0.0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double expect = std::clamp(double(want[i]), 0.0, 1.0) * 255.0;
    worst = std::max(worst, std::fabs(double(out[i]) - expect));
  }
  return worst;
}

}  // namespace rf::test
