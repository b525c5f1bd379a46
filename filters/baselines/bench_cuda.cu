// rf::bench_cuda: the benchmark protocol of DESIGN.md on the CUDA backend. CUDA events around the
// filter alone (no upload, no readback), warm-up runs first, the median of the timed runs; random
// data. Beside the overlapped filter, in the same run: RT, direct FIR (float and double), cuFFT
// convolution, the CUB summed-area table and the device copy floor.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "filters/baselines/baselines_cuda.h"
#include "filters/baselines/bench.h"
#include "filters/baselines/fir_cuda.h"
#include "filters/core/cuda_check.cuh"
#include "filters/core/engine.h"
#include "filters/core/errors.h"

namespace rf {
namespace {

// Owns a pitched (packed) device buffer.
struct Buffer {
  void* ptr = nullptr;
  explicit Buffer(std::size_t bytes) { CUDA_CHECK(cudaMalloc(&ptr, bytes)); }
  ~Buffer() { cudaFree(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

// Random samples in [0.05, 1) from a counter hash (fast enough for 8192^2 x 4 on the host).
void fill_random(Buffer& b, std::size_t bytes, PixelFormat format, std::uint32_t seed) {
  std::vector<std::uint8_t> host(bytes);
  std::uint64_t state = 0x9E3779B97F4A7C15ull ^ seed;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  if (format == PixelFormat::RGBA8) {
    for (auto& v : host) v = std::uint8_t(next() >> 56);
  } else {
    float* f = reinterpret_cast<float*>(host.data());
    for (std::size_t i = 0; i < bytes / sizeof(float); ++i)
      f[i] = 0.05f + 0.95f * float(next() >> 40) / float(1 << 24);
  }
  CUDA_CHECK(cudaMemcpy(b.ptr, host.data(), bytes, cudaMemcpyHostToDevice));
}

class Timer {
 public:
  Timer(cudaStream_t stream, int warmup, int iterations)
      : stream_(stream), warmup_(warmup), iterations_(std::max(1, iterations)) {
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~Timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  // Median milliseconds of fn() over the timed runs.
  double median_ms(const std::function<void()>& fn) {
    for (int i = 0; i < warmup_; ++i) fn();
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<float> ms(static_cast<std::size_t>(iterations_), 0.f);
    for (float& t : ms) {
      CUDA_CHECK(cudaEventRecord(start_, stream_));
      fn();
      CUDA_CHECK(cudaEventRecord(stop_, stream_));
      CUDA_CHECK(cudaEventSynchronize(stop_));
      CUDA_CHECK(cudaEventElapsedTime(&t, start_, stop_));
    }
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    return double(ms[ms.size() / 2]);
  }

 private:
  cudaStream_t stream_;
  int warmup_, iterations_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

const char* format_name(PixelFormat f) {
  return f == PixelFormat::R32F ? "f32" : f == PixelFormat::RGBA32F ? "f32x4" : "rgba8";
}

struct Shape {
  int w, h;
  bool hd;
};

}  // namespace

std::vector<BenchResult> bench_cuda(const BenchOptions& o, void (*progress)(const BenchResult&)) {
  std::string why;
  if (!cuda_available(&why)) throw BackendUnavailable("CUDA benchmark unavailable: " + why);

  std::vector<Shape> shapes;
  for (int s : o.sizes.empty() ? std::vector<int>{512, 1024, 2048, 4096, 8192} : o.sizes)
    shapes.push_back({s, s, false});
  if (o.include_hd) {
    shapes.push_back({1920, 1080, true});
    shapes.push_back({3840, 2160, true});
  }
  const std::vector<int> orders = o.orders.empty() ? std::vector<int>{1, 2, 3, 4, 5} : o.orders;
  const std::vector<Extension> exts =
      o.exts.empty() ? std::vector<Extension>(std::begin(kAllExtensions), std::end(kAllExtensions))
                     : o.exts;
  const std::vector<int> channels = o.channels.empty() ? std::vector<int>{1, 4} : o.channels;
  const std::vector<FilterKind> kinds =
      o.kinds.empty() ? std::vector<FilterKind>{FilterKind::Gaussian, FilterKind::Sat} : o.kinds;

  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<BenchResult> results;
  auto emit = [&](BenchResult r, double ms) {
    r.ms = ms;
    r.gips = double(r.width) * r.height / (ms * 1e-3) / double(1ull << 30);
    if (progress) progress(r);
    results.push_back(r);
  };

  try {
    Timer timer(stream, o.warmup, o.iterations);
    if (o.baselines) {
      // The bandwidth floor: a 1 GiB device-to-device copy, read + write counted.
      const std::size_t bytes = std::size_t(1) << 30;
      Buffer a(bytes), b(bytes);
      CUDA_CHECK(cudaMemset(a.ptr, 1, bytes));
      const double ms = timer.median_ms([&] {
        CUDA_CHECK(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice, stream));
      });
      BenchResult r;
      r.impl = "copy";
      r.filter = "copy";
      r.ext = "-";
      r.width = 16384;
      r.height = 16384;
      r.format = "f32";
      r.gbps = 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
      emit(r, ms);
    }

    for (const Shape& shape : shapes)
      for (int c : channels) {
        const PixelFormat format = c == 1     ? PixelFormat::R32F
                                   : shape.hd ? PixelFormat::RGBA8
                                              : PixelFormat::RGBA32F;
        const std::size_t bytes = std::size_t(shape.w) * shape.h * bytes_per_pixel(format);
        Buffer in(bytes), out(bytes);
        fill_random(in, bytes, format, std::uint32_t(shape.w * 7 + shape.h + c));
        FrameView src, dst;
        src.width = dst.width = shape.w;
        src.height = dst.height = shape.h;
        src.format = dst.format = format;
        src.space = dst.space = MemorySpace::Device;
        src.pitch = dst.pitch = std::size_t(shape.w) * bytes_per_pixel(format);
        src.data = in.ptr;
        dst.data = out.ptr;

        BenchResult base;
        base.width = shape.w;
        base.height = shape.h;
        base.channels = c;
        base.format = format_name(format);

        auto engine = make_cuda_engine();
        auto time_engine = [&](const FilterSpec& spec, const char* impl) {
          engine->plan(spec, shape.w, shape.h, format);
          BenchResult r = base;
          r.impl = impl;
          r.filter = to_string(spec.kind);
          r.order = spec.kind == FilterKind::Sat ? 1 : spec.order;
          r.ext = spec.kind == FilterKind::Sat ? "-" : to_string(spec.ext);
          emit(r, timer.median_ms([&] { engine->run(src, dst, stream); }));
        };

        for (FilterKind kind : kinds) {
          FilterSpec spec;
          spec.kind = kind;
          spec.sigma = o.sigma;
          if (kind == FilterKind::Sat) {
            spec.order = 1;
            spec.ext = Extension::Zero;
            time_engine(spec, "rfstudio");
            continue;
          }
          for (int order : orders)
            for (Extension ext : exts) {
              spec.order = order;
              spec.ext = ext;
              try {
                time_engine(spec, "rfstudio");
              } catch (const InvalidParameter& e) {
                std::fprintf(stderr, "bench: %s order %d: %s\n", to_string(kind), order, e.what());
              }
            }
        }
        if (!o.baselines) continue;

        // RT, one thread per line: orders 1 and 3, mirror, up to 4096^2 (it is slow beyond).
        if (std::max(shape.w, shape.h) <= 4096)
          for (int order : {1, 3}) {
            FilterSpec spec;
            spec.algo = Algorithm::RT;
            spec.order = order;
            spec.sigma = o.sigma;
            spec.ext = Extension::Mirror;
            time_engine(spec, "rt");
          }

        // Direct FIR Gaussian (radius 6 sigma), mirror, float and double accumulation.
        for (auto precision : {cuda::FirPrecision::Float, cuda::FirPrecision::Double}) {
          cuda::FirGaussian fir;
          fir.plan(o.sigma, Extension::Mirror, shape.w, shape.h, format, precision);
          BenchResult r = base;
          r.impl = precision == cuda::FirPrecision::Float ? "fir" : "fir-f64";
          r.filter = "gaussian";
          r.ext = "mirror";
          emit(r, timer.median_ms([&] { fir.run(src, dst, stream); }));
        }

        if (c != 1) continue;
        std::string cufft_why;
        if (cuda::CufftGaussian::available(&cufft_why)) {
          cuda::CufftGaussian fft(shape.w, shape.h, o.sigma);
          BenchResult r = base;
          r.impl = "cufft";
          r.filter = "gaussian";
          r.ext = "repeat";
          emit(r, timer.median_ms([&] {
            fft.run(static_cast<float*>(in.ptr), static_cast<float*>(out.ptr), stream);
          }));
        } else {
          std::fprintf(stderr, "bench: cuFFT baseline unavailable: %s\n", cufft_why.c_str());
        }
        cuda::CubSat sat(shape.w, shape.h);
        BenchResult r = base;
        r.impl = "cub-sat";
        r.filter = "sat";
        r.order = 1;
        r.ext = "-";
        emit(r, timer.median_ms([&] {
          sat.run(static_cast<float*>(in.ptr), static_cast<float*>(out.ptr), stream);
        }));
      }
  } catch (...) {
    cudaStreamDestroy(stream);
    throw;
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return results;
}

}  // namespace rf
