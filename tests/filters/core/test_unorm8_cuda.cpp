// The one 8-bit conversion on CUDA: an RGBA8 frame read by every CUDA path decodes to the very
// floats the host decodes (core/image.h), and an RGBA8 plan gives every byte back.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "filters/core/device_frame.h"
#include "filters/core/engine.h"
#include "filters/core/image.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/filters/core/unorm8_frames.h"

TEST_CASE("8-bit conversion on CUDA: every path decodes bytes to the host's floats") {
  RF_REQUIRE_CUDA();
  const std::vector<std::uint8_t> bytes = rf::test::all_bytes_rgba8();
  rf::cuda::DeviceFrame in(256, 3, rf::PixelFormat::RGBA8, rf::MemorySpace::Device);
  in.upload(bytes.data());
  auto engine = rf::make_cuda_engine();
  // alg5, alg6 and rt read the byte frame through the frame readers of io.cuh, as alg4 does; alg4
  // is left out because its float window step (direct_form_math.h) rounds the identity itself.
  for (rf::Algorithm algo : {rf::Algorithm::Auto, rf::Algorithm::Alg6, rf::Algorithm::RT}) {
    INFO("algo " << std::string(rf::to_string(algo)));
    engine->plan(rf::test::identity_filter(algo), 256, 3, rf::PixelFormat::RGBA32F);
    rf::cuda::DeviceFrame out(256, 3, rf::PixelFormat::RGBA32F, rf::MemorySpace::Device);
    out.poison();
    engine->run(in.view(), out.view());
    std::vector<float> got(bytes.size());
    out.download(got.data());
    int mismatches = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const float want = rf::from_unorm8(bytes[i]);
      if (std::memcmp(&got[i], &want, sizeof want) != 0) ++mismatches;
    }
    CHECK(mismatches == 0);
  }
  // Bytes in, bytes out: the encode of the device gives back every byte.
  for (rf::MemorySpace space : {rf::MemorySpace::Device, rf::MemorySpace::CudaSurface}) {
    rf::cuda::DeviceFrame src(256, 3, rf::PixelFormat::RGBA8, space);
    rf::cuda::DeviceFrame dst(256, 3, rf::PixelFormat::RGBA8, space);
    src.upload(bytes.data());
    dst.poison();
    engine->plan(rf::test::identity_filter(rf::Algorithm::Auto), 256, 3, rf::PixelFormat::RGBA8);
    engine->run(src.view(), dst.view());
    std::vector<std::uint8_t> got(bytes.size());
    dst.download(got.data());
    INFO((space == rf::MemorySpace::Device ? "device buffers" : "surfaces"));
    CHECK(got == bytes);
  }
}
