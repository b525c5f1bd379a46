#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/lee_bench.h"
#include "bench/random.h"
#include "filters/core/cuda_check.cuh"
#include "filters/core/device_buffer.cuh"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/lee2014/lee2014_cuda.h"

namespace rf::bench {
namespace {

using cuda::DeviceBuffer;

// `count` random floats, packed, on the device.
void upload_random(DeviceBuffer& b, std::size_t count) {
  const std::vector<float> data = random_floats(count, 2014);
  b.allocate(count * sizeof(float));
  CUDA_CHECK(cudaMemcpy(b.ptr, data.data(), count * sizeof(float), cudaMemcpyHostToDevice));
}

}  // namespace

static_assert(kLeeLinesPerBlock == lee2014::cuda::kLinesPerBlock);

Image lee_cuda(lee2014::Partition p, double sigma, const Image& in) {
  return lee2014::cuda::filter(p, sigma, in);
}

Timing time_lee(lee2014::Partition p, double sigma, int width, int height, int channels, int runs,
                int lines_per_block) {
  lee2014::cuda::DevicePlan plan(p, sigma, width, height, channels, lines_per_block);
  const std::size_t count = std::size_t(width) * height * channels;
  const std::size_t pitch = std::size_t(width) * channels * sizeof(float);
  DeviceBuffer src, dst;
  upload_random(src, count);
  dst.allocate(count * sizeof(float));
  Timer timer(Clock::CudaEvents);
  return timer.measure([&] { plan.run(src.f(), pitch, dst.f(), pitch); },
                       Repeats{kLeeWarmup, runs});
}

Timing time_cuda_engine(const FilterSpec& spec, int width, int height, int channels, int runs) {
  if (channels != 1 && channels != 4)
    throw InvalidParameter("the engine filters 1 or 4 channels (got " + std::to_string(channels) +
                           ")");
  auto engine = make_cuda_engine();
  const PixelFormat format = channels == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F;
  engine->plan(spec, width, height, format);
  const std::size_t count = std::size_t(width) * height * channels;
  DeviceBuffer src, dst;
  upload_random(src, count);
  dst.allocate(count * sizeof(float));
  FrameView in;
  in.width = width;
  in.height = height;
  in.pitch = std::size_t(width) * channels * sizeof(float);
  in.format = format;
  in.space = MemorySpace::Device;
  FrameView out = in;
  in.data = src.ptr;
  out.data = dst.ptr;
  engine->set_timing(false);
  Timer timer(Clock::CudaEvents);
  return timer.measure([&] { engine->run(in, out, nullptr); }, Repeats{kLeeWarmup, runs});
}

std::string device_summary(int* sm_count) {
  std::string why;
  if (!cuda_available(&why)) throw BackendUnavailable("CUDA unavailable: " + why);
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  if (sm_count) *sm_count = prop.multiProcessorCount;
  return std::string(prop.name) + ", " + std::to_string(prop.multiProcessorCount) + " SMs";
}

}  // namespace rf::bench
