// The CUDA frame bench: the frame in device memory, CUDA events around each run on a private
// stream (no upload, no readback), the GPU baselines, and a device copy of the frame as the floor.
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/baselines_cuda.h"
#include "bench/fir_cuda.h"
#include "bench/frame_bench.h"
#include "filters/core/cuda_check.cuh"
#include "filters/core/device_buffer.cuh"
#include "filters/core/errors.h"
#include "filters/core/response.h"

namespace rf::bench {
namespace {

using cuda::DeviceBuffer;

struct Stream {
  cudaStream_t stream = nullptr;
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

// The frame's four channels as packed planes on the device, for baselines that take one float
// channel: they run once per plane, and the bench times all four.
struct Planes {
  DeviceBuffer in, out;
  std::size_t plane;  // floats per plane
  explicit Planes(const Image& frame) : plane(std::size_t(frame.width) * frame.height) {
    in.allocate(frame.pixels.size() * sizeof(float));
    out.allocate(frame.pixels.size() * sizeof(float));
    std::vector<float> host(frame.pixels.size());
    for (std::size_t i = 0; i < plane; ++i)
      for (int c = 0; c < 4; ++c) host[c * plane + i] = frame.pixels[4 * i + c];
    CUDA_CHECK(
        cudaMemcpy(in.ptr, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
};

class CudaFrameBench final : public FrameBench {
 public:
  explicit CudaFrameBench(const Image& frame)
      : frame_(frame),
        bytes_(frame.pixels.size() * sizeof(float)),
        timer_(Clock::CudaEvents, stream_.stream) {
    in_.allocate(bytes_);
    out_.allocate(bytes_);
    CUDA_CHECK(cudaMemcpy(in_.ptr, frame.pixels.data(), bytes_, cudaMemcpyHostToDevice));
    description_ = make_cuda_engine()->description();
  }
  ~CudaFrameBench() override { cudaStreamSynchronize(stream_.stream); }

  std::string description() const override { return description_; }
  std::unique_ptr<Engine> make_engine() const override { return make_cuda_engine(); }
  FrameView input() const override { return view(in_.ptr); }
  FrameView output() const override { return view(out_.ptr); }
  void* stream() const override { return stream_.stream; }
  Timer& timer() override { return timer_; }

  // The GPU baselines, one entry each.
  std::vector<Contender> baselines(const FilterSpec& spec) override {
    std::vector<Contender> out;
    const int w = frame_.width, h = frame_.height;
    void* stream = stream_.stream;
    if (approximates_gaussian(spec.kind)) {
      auto fir = std::make_shared<FirGaussian>();
      Contender c;
      c.name = "fir";
      c.label = "direct FIR Gaussian, radius ceil(6 sigma), float";
      c.baseline = true;
      c.prepare = [fir, spec, w, h] {
        fir->plan(spec.sigma, spec.ext, w, h, PixelFormat::RGBA32F, FirPrecision::Float);
      };
      c.run = [fir, this, stream] { fir->run(input(), output(), stream); };
      out.push_back(std::move(c));

      Contender fft;
      fft.name = "cufft";
      fft.label = "cuFFT convolution (periodic extension), 4 channel planes";
      fft.baseline = true;
      std::string why;
      if (!CufftGaussian::available(&why)) {
        fft.skipped = "cuFFT unavailable: " + why;
      } else {
        auto state =
            std::make_shared<std::pair<std::unique_ptr<Planes>, std::unique_ptr<CufftGaussian>>>();
        fft.prepare = [state, this, spec, w, h] {
          state->first = std::make_unique<Planes>(frame_);
          state->second = std::make_unique<CufftGaussian>(w, h, spec.sigma);
        };
        fft.run = [state, stream] {
          const Planes& p = *state->first;
          for (int c = 0; c < 4; ++c)
            state->second->run(p.in.f() + c * p.plane, p.out.f() + c * p.plane, stream);
        };
      }
      out.push_back(std::move(fft));
    }
    if (spec.kind == FilterKind::Sat) {
      auto state = std::make_shared<std::pair<std::unique_ptr<Planes>, std::unique_ptr<CubSat>>>();
      Contender c;
      c.name = "cub-sat";
      c.label = "CUB block scans, transposed table, 4 channel planes";
      c.baseline = true;
      c.prepare = [state, this, w, h] {
        state->first = std::make_unique<Planes>(frame_);
        state->second = std::make_unique<CubSat>(w, h);
      };
      c.run = [state, stream] {
        const Planes& p = *state->first;
        for (int ch = 0; ch < 4; ++ch)
          state->second->run(p.in.f() + ch * p.plane, p.out.f() + ch * p.plane, stream);
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
  Stream stream_;
  DeviceBuffer in_, out_;
  Timer timer_;
  std::string description_;
};

}  // namespace

std::unique_ptr<FrameBench> make_cuda_frame_bench(const Image& frame) {
  std::string why;
  if (!cuda_available(&why)) throw BackendUnavailable("CUDA unavailable: " + why);
  return std::make_unique<CudaFrameBench>(frame);
}

}  // namespace rf::bench
