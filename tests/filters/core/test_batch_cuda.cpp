// Batches of frames on the CUDA engine (batch_frames.h): alg5 and alg6 in one set of launches,
// the others frame by frame; and a batch in device memory.
#include <cstring>
#include <vector>

#include "filters/core/device_frame.h"
#include "tests/filters/core/batch_frames.h"
#include "tests/filters/core/cuda_test.h"

TEST_CASE("cuda: a batch of frames filters each frame as it is filtered alone") {
  RF_REQUIRE_CUDA();
  auto engine = rf::make_cuda_engine();
  CHECK(rf::test::check_batches(*engine, rf::Backend::Cuda) > 0);
}

TEST_CASE("cuda: a batch in device memory, and none on surfaces") {
  RF_REQUIRE_CUDA();
  auto engine = rf::make_cuda_engine();
  const int w = 70, h = 33, frames = 5;
  const rf::Image all = rf::test::random_image(w, h * frames, 1, 77, 0.05f, 1.0f);
  rf::FilterSpec spec;
  spec.sigma = 7.0;
  spec.algo = rf::Algorithm::Alg5;
  // The batch as one device frame of frames x h rows, packed.
  rf::cuda::DeviceFrame src(w, h * frames, rf::PixelFormat::R32F, rf::MemorySpace::Device);
  rf::cuda::DeviceFrame dst(w, h * frames, rf::PixelFormat::R32F, rf::MemorySpace::Device);
  src.upload(all.pixels.data(), std::size_t(w) * sizeof(float));
  dst.poison();
  rf::FrameView in = src.view(), out = dst.view();
  for (rf::FrameView* v : {&in, &out}) {
    v->height = h;
    v->frames = frames;
  }
  engine->plan_batch(spec, w, h, frames, rf::PixelFormat::R32F);
  engine->run(in, out);
  std::vector<float> got(all.pixels.size());
  dst.download(got.data(), std::size_t(w) * sizeof(float));
  rf::Image want = all;
  const rf::FrameView host = rf::test::batch_view(want, frames);
  engine->run(host, host);
  CHECK(std::memcmp(got.data(), want.pixels.data(), got.size() * sizeof(float)) == 0);
  rf::cuda::DeviceFrame surface(w, h, rf::PixelFormat::R32F, rf::MemorySpace::CudaSurface);
  rf::FrameView s = surface.view();
  s.frames = frames;
  CHECK_THROWS_AS(engine->run(s, s), rf::InvalidParameter);
}
