// The algorithm race on the CUDA backend: the frame in device memory, CUDA events around each run
// on a private stream (no upload, no readback), the library's GPU baselines, and a device copy of
// the frame as the floor.
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "app/gui/race.h"
#include "filters/baselines/baselines_cuda.h"
#include "filters/baselines/fir_cuda.h"
#include "filters/core/cuda_check.cuh"
#include "filters/core/errors.h"
#include "filters/core/response.h"

namespace rf::gui {
namespace {

struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { CUDA_CHECK(cudaMalloc(&ptr, bytes)); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* floats() const { return static_cast<float*>(ptr); }
};

struct Stream {
  cudaStream_t stream = nullptr;
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

struct Event {
  cudaEvent_t event = nullptr;
  Event() { CUDA_CHECK(cudaEventCreate(&event)); }
  ~Event() { cudaEventDestroy(event); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

// The frame's four channels as packed planes on the device, for baselines that take one float
// channel: they run once per plane, and the race times all four.
struct Planes {
  DeviceBuffer in, out;
  std::size_t plane;  // floats per plane
  explicit Planes(const Image& frame)
      : in(frame.pixels.size() * sizeof(float)),
        out(frame.pixels.size() * sizeof(float)),
        plane(std::size_t(frame.width) * frame.height) {
    std::vector<float> host(frame.pixels.size());
    for (std::size_t i = 0; i < plane; ++i)
      for (int c = 0; c < 4; ++c) host[c * plane + i] = frame.pixels[4 * i + c];
    CUDA_CHECK(
        cudaMemcpy(in.ptr, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
};

class CudaRaceBench final : public RaceBench {
 public:
  explicit CudaRaceBench(const Image& frame)
      : frame_(frame), bytes_(frame.pixels.size() * sizeof(float)), in_(bytes_), out_(bytes_) {
    CUDA_CHECK(cudaMemcpy(in_.ptr, frame.pixels.data(), bytes_, cudaMemcpyHostToDevice));
    description_ = make_cuda_engine()->description();
  }
  ~CudaRaceBench() override { cudaStreamSynchronize(stream_.stream); }

  std::string description() const override { return description_; }
  std::string clock() const override { return "CUDA events"; }
  std::unique_ptr<Engine> make_engine() const override { return make_cuda_engine(); }
  FrameView input() const override { return view(in_.ptr); }
  FrameView output() const override { return view(out_.ptr); }
  void* stream() const override { return stream_.stream; }

  double time_ms(const std::function<void()>& run) override {
    CUDA_CHECK(cudaEventRecord(start_.event, stream_.stream));
    run();
    CUDA_CHECK(cudaEventRecord(stop_.event, stream_.stream));
    CUDA_CHECK(cudaEventSynchronize(stop_.event));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_.event, stop_.event));
    return double(ms);
  }

  // The library's GPU baselines, one entry each (filters/baselines). An NPP baseline, where the
  // toolkit has one, is one more entry here.
  std::vector<Contender> baselines(const FilterSpec& spec) override {
    std::vector<Contender> out;
    const int w = frame_.width, h = frame_.height;
    cudaStream_t stream = stream_.stream;
    if (approximates_gaussian(spec.kind)) {
      auto fir = std::make_shared<cuda::FirGaussian>();
      Contender c;
      c.name = "fir";
      c.label = "direct FIR Gaussian, radius ceil(6 sigma), float";
      c.baseline = true;
      c.prepare = [fir, spec, w, h] {
        fir->plan(spec.sigma, spec.ext, w, h, PixelFormat::RGBA32F, cuda::FirPrecision::Float);
      };
      c.run = [fir, this, stream] { fir->run(input(), output(), stream); };
      out.push_back(std::move(c));

      Contender fft;
      fft.name = "cufft";
      fft.label = "cuFFT convolution (periodic extension), 4 channel planes";
      fft.baseline = true;
      std::string why;
      if (!cuda::CufftGaussian::available(&why)) {
        fft.skipped = "cuFFT unavailable: " + why;
      } else {
        auto state = std::make_shared<
            std::pair<std::unique_ptr<Planes>, std::unique_ptr<cuda::CufftGaussian>>>();
        fft.prepare = [state, this, spec, w, h] {
          state->first = std::make_unique<Planes>(frame_);
          state->second = std::make_unique<cuda::CufftGaussian>(w, h, spec.sigma);
        };
        fft.run = [state, stream] {
          const Planes& p = *state->first;
          for (int c = 0; c < 4; ++c)
            state->second->run(p.in.floats() + c * p.plane, p.out.floats() + c * p.plane, stream);
        };
      }
      out.push_back(std::move(fft));
    }
    if (spec.kind == FilterKind::Sat) {
      auto state =
          std::make_shared<std::pair<std::unique_ptr<Planes>, std::unique_ptr<cuda::CubSat>>>();
      Contender c;
      c.name = "cub-sat";
      c.label = "CUB block scans, transposed table, 4 channel planes";
      c.baseline = true;
      c.prepare = [state, this, w, h] {
        state->first = std::make_unique<Planes>(frame_);
        state->second = std::make_unique<cuda::CubSat>(w, h);
      };
      c.run = [state, stream] {
        const Planes& p = *state->first;
        for (int ch = 0; ch < 4; ++ch)
          state->second->run(p.in.floats() + ch * p.plane, p.out.floats() + ch * p.plane, stream);
      };
      out.push_back(std::move(c));
    }
    return out;
  }

  Contender copy_floor() override {
    Contender c;
    c.name = "copy";
    c.label = "device copy of the frame (read + write)";
    c.prepare = [] {};
    c.run = [this] {
      CUDA_CHECK(
          cudaMemcpyAsync(out_.ptr, in_.ptr, bytes_, cudaMemcpyDeviceToDevice, stream_.stream));
    };
    return c;
  }

 private:
  FrameView view(void* data) const {
    FrameView v;
    v.data = data;
    v.width = frame_.width;
    v.height = frame_.height;
    v.pitch = std::size_t(frame_.width) * 4 * sizeof(float);
    v.format = PixelFormat::RGBA32F;
    v.space = MemorySpace::Device;
    return v;
  }

  const Image& frame_;
  std::size_t bytes_;
  DeviceBuffer in_, out_;
  Stream stream_;
  Event start_, stop_;
  std::string description_;
};

}  // namespace

std::unique_ptr<RaceBench> make_cuda_race_bench(const Image& frame) {
  std::string why;
  if (!cuda_available(&why)) throw BackendUnavailable("CUDA race unavailable: " + why);
  return std::make_unique<CudaRaceBench>(frame);
}

}  // namespace rf::gui
