// An RGBA8 frame on the device filtered into a float result by an RGBA32F plan (the studio's
// camera and video frames): the same result as the float copy of the frame, for every family and
// the algorithms that read frames differently (block kernels, one thread per line, Lee et al.'s
// staging, the edge-aware filter's own layouts). Random bytes, odd sizes.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "filters/core/device_frame.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/filters/core/rgba8_frames.h"

using namespace rf;

namespace {

// `spec` planned for RGBA32F at the image's size, run on `input` (RGBA8 or RGBA32F device
// frame of the same pixels) into a poisoned float frame.
std::vector<float> run_float_out(Engine& engine, const FilterSpec& spec, const test::Rgba8Image& in,
                                 PixelFormat input) {
  engine.plan(spec, in.w, in.h, PixelFormat::RGBA32F);
  cuda::DeviceFrame src(in.w, in.h, input, MemorySpace::Device);
  cuda::DeviceFrame dst(in.w, in.h, PixelFormat::RGBA32F, MemorySpace::Device);
  if (input == PixelFormat::RGBA8)
    src.upload(in.bytes.data());
  else
    src.upload(in.as_float.pixels.data());
  dst.poison();
  engine.run(src.view(), dst.view());
  std::vector<float> out(in.as_float.pixels.size());
  dst.download(out.data());
  return out;
}

}  // namespace

TEST_CASE("cuda engine: an RGBA8 device frame into a float result equals its float copy") {
  RF_REQUIRE_CUDA();
  struct Case {
    FilterKind kind;
    Algorithm algo;
    int order;
    Extension ext;
  };
  const Case cases[] = {
      {FilterKind::Gaussian, Algorithm::Auto, 3, Extension::Mirror},
      {FilterKind::Gaussian, Algorithm::Alg4, 1, Extension::Clamp},
      {FilterKind::Gaussian, Algorithm::Alg6, 5, Extension::Repeat},
      {FilterKind::Gaussian, Algorithm::RT, 2, Extension::Zero},
      {FilterKind::Yvrg, Algorithm::OneWay, 3, Extension::Clamp},
      {FilterKind::Yvrg, Algorithm::TwoWay, 3, Extension::Clamp},
      {FilterKind::EdgeAware, Algorithm::EdgeExact, 3, Extension::Clamp},
      {FilterKind::EdgeAware, Algorithm::EdgeA, 3, Extension::Clamp},
      {FilterKind::EdgeAware, Algorithm::EdgeC, 3, Extension::Clamp},
  };
  const test::Rgba8Image in(131, 77, 4242);
  auto engine = make_cuda_engine();
  for (const Case& c : cases) {
    FilterSpec spec;
    spec.kind = c.kind;
    spec.algo = c.algo;
    spec.order = c.order;
    spec.ext = c.ext;
    spec.sigma = c.kind == FilterKind::EdgeAware ? 20.0 : 6.0;
    spec.sigma_r = 0.3;
    const std::vector<float> from8 = run_float_out(*engine, spec, in, PixelFormat::RGBA8);
    const std::vector<float> from32 = run_float_out(*engine, spec, in, PixelFormat::RGBA32F);
    double worst = 0.0, peak = 0.0;
    for (std::size_t i = 0; i < from32.size(); ++i) {
      // NaN (an unwritten pixel) makes the difference infinite.
      const double d = std::fabs(double(from8[i]) - double(from32[i]));
      worst = std::isnan(d) ? INFINITY : std::max(worst, d);
      peak = std::max(peak, std::fabs(double(from32[i])));
    }
    INFO(std::string(to_string(c.kind)), " ", std::string(to_string(c.algo)), " order ", c.order,
         ": worst ", worst);
    CHECK(peak > 0.1);
    // The kernels scale bytes by 1/255 where the host divides: inputs a float ulp apart. The block
    // kernels and the edge-aware filter stay within 1e-6 of the peak; Lee et al.'s one-thread-
    // per-line recursions carry the ulp to 3.6e-6 (H100).
    CHECK(worst <= 1e-5 * peak);
  }
}

TEST_CASE("cuda engine: an RGBA8 input needs an RGBA32F plan and device memory") {
  RF_REQUIRE_CUDA();
  const test::Rgba8Image in(33, 21, 7);
  auto engine = make_cuda_engine();
  FilterSpec spec;
  // An R32F plan does not take RGBA8 frames.
  engine->plan(spec, in.w, in.h, PixelFormat::R32F);
  cuda::DeviceFrame src(in.w, in.h, PixelFormat::RGBA8, MemorySpace::Device);
  cuda::DeviceFrame dst(in.w, in.h, PixelFormat::R32F, MemorySpace::Device);
  src.upload(in.bytes.data());
  CHECK_THROWS_AS(engine->run(src.view(), dst.view()), InvalidParameter);
  // Nor does an RGBA32F plan take them from the host.
  engine->plan(spec, in.w, in.h, PixelFormat::RGBA32F);
  FrameView host;
  host.data = const_cast<std::uint8_t*>(in.bytes.data());
  host.width = in.w;
  host.height = in.h;
  host.format = PixelFormat::RGBA8;
  host.space = MemorySpace::Host;
  cuda::DeviceFrame out(in.w, in.h, PixelFormat::RGBA32F, MemorySpace::Device);
  CHECK_THROWS_AS(engine->run(host, out.view()), InvalidParameter);
}
