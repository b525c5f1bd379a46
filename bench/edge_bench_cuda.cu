// The edge-aware filter on CUDA, timed as the engine runs it: the plan's launches of one frame
// captured in a CUDA graph, whose launches CUDA events time.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "bench/edge_bench.h"
#include "filters/core/cuda_check.cuh"
#include "filters/core/device_buffer.cuh"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/edge_aware/edge_aware_cuda.h"

namespace rf::bench {
namespace {

using cuda::DeviceBuffer;
using cuda::EdgeFormat;

// Owns a stream, and the executable graph captured on it.
struct Captured {
  cudaStream_t stream = nullptr;
  cudaGraphExec_t exec = nullptr;
  Captured() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  ~Captured() {
    if (exec) cudaGraphExecDestroy(exec);
    cudaStreamDestroy(stream);
  }
  Captured(const Captured&) = delete;
  Captured& operator=(const Captured&) = delete;

  template <class Enqueue>
  void capture(Enqueue enqueue) {
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue(stream);
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      if (graph) cudaGraphDestroy(graph);
      throw;
    }
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    const cudaError_t err = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    CUDA_CHECK(err);
  }
};

}  // namespace

Timing time_edge_aware_cuda(const FilterSpec& spec, const Image& rgb, const Repeats& repeats) {
  std::string why;
  if (!cuda_available(&why)) throw BackendUnavailable("CUDA unavailable: " + why);
  const int channels = rgb.channels;
  if (channels != 1 && channels != 3 && channels != 4)
    throw InvalidParameter("edge-aware timing: " + std::to_string(channels) +
                           " channels (1, 3 or 4)");
  cuda::EdgeAwarePlan plan(spec, rgb.width, rgb.height, channels);
  // One float per pixel for gray, four for RGB (the fourth written as 0) and RGBA.
  const int values = channels == 1 ? 1 : 4;
  const EdgeFormat format = channels == 1 ? EdgeFormat::Gray32F : EdgeFormat::Rgba32F;
  const std::size_t pixels = std::size_t(rgb.width) * rgb.height;
  const std::size_t pitch = std::size_t(rgb.width) * values * sizeof(float);
  std::vector<float> host(pixels * values, 0.0f);
  for (std::size_t i = 0; i < pixels; ++i)
    for (int c = 0; c < channels; ++c) host[i * values + c] = rgb.pixels[i * channels + c];
  DeviceBuffer src, dst;
  src.allocate(host.size() * sizeof(float));
  dst.allocate(host.size() * sizeof(float));
  CUDA_CHECK(cudaMemcpy(src.ptr, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));

  Captured graph;
  plan.prepare(format, format);
  graph.capture([&](cudaStream_t stream) {
    plan.enqueue(cuda::EdgeImage{src.ptr, pitch, format}, cuda::EdgeOutput{dst.ptr, pitch, format},
                 stream);
  });
  Timer timer(Clock::CudaEvents, graph.stream);
  return timer.measure([&] { CUDA_CHECK(cudaGraphLaunch(graph.exec, graph.stream)); }, repeats);
}

}  // namespace rf::bench
