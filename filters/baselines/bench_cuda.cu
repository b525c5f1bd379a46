// rf::bench_cuda: the benchmark protocol of DESIGN.md on the CUDA backend. CUDA events around the
// filter alone (no upload, no readback), warm-up runs first, the median of the timed runs; random
// data. Every case at every sigma of the list and with every algorithm asked for; beside the
// engine, in the same run and at the same sigma: the plain FIR (float and double), the tuned FIR,
// NPP's separable filter, cuFFT convolution, then the CUB summed-area table and the device copy
// floor. The FIR, NPP and cuFFT outputs are checked against the double FIR with the same taps and
// extension, so a baseline that is fast because it is wrong shows.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "filters/baselines/baselines_cuda.h"
#include "filters/baselines/bench.h"
#include "filters/baselines/fir_cuda.h"
#include "filters/baselines/fir_tuned_cuda.h"
#include "filters/baselines/npp_cuda.h"
#include "filters/core/cuda_check.cuh"
#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"

namespace rf {
namespace {

// Owns a packed device buffer.
struct Buffer {
  void* ptr = nullptr;
  explicit Buffer(std::size_t bytes) { CUDA_CHECK(cudaMalloc(&ptr, bytes)); }
  ~Buffer() { cudaFree(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  float* f() const { return static_cast<float*>(ptr); }
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

// max |a - b| over n floats into *result (as the bits of a non-negative float, whose order is
// that of unsigned ints); NaN counts as infinity.
__global__ void max_abs_diff_kernel(const float* a, const float* b, std::size_t n,
                                    unsigned* result) {
  float m = 0.f;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float d = fabsf(a[i] - b[i]);
    if (!(d <= m)) m = isnan(d) ? INFINITY : d;
  }
  for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(~0u, m, offset));
  if ((threadIdx.x & 31) == 0) atomicMax(result, __float_as_uint(m));
}

class Comparer {
 public:
  Comparer() { CUDA_CHECK(cudaMalloc(&result_, sizeof(unsigned))); }
  ~Comparer() { cudaFree(result_); }
  Comparer(const Comparer&) = delete;
  Comparer& operator=(const Comparer&) = delete;
  double max_abs_diff(const float* a, const float* b, std::size_t n, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(result_, 0, sizeof(unsigned), stream));
    max_abs_diff_kernel<<<264, 256, 0, stream>>>(a, b, n, result_);
    CUDA_CHECK_LAUNCH();
    unsigned bits = 0;
    CUDA_CHECK(cudaMemcpyAsync(&bits, result_, sizeof bits, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    float v;
    static_assert(sizeof v == sizeof bits);
    std::memcpy(&v, &bits, sizeof v);
    return double(v);
  }

 private:
  unsigned* result_ = nullptr;
};

// The protocol's timing: warm-up, then the median of the timed runs. A case whose runs would take
// longer than case_ms (estimated from one run) gets fewer, at least kBenchMinRuns: the slow
// baselines (RT, the plain FIR at large sigma) then cost seconds, not minutes.
class Timer {
 public:
  Timer(cudaStream_t stream, int warmup, int iterations, double case_ms)
      : stream_(stream),
        warmup_(std::max(0, warmup)),
        iterations_(std::max(1, iterations)),
        case_ms_(case_ms) {
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~Timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  // Median milliseconds of fn(); *runs receives the number of timed runs.
  double median_ms(const std::function<void()>& fn, int* runs) {
    int timed = iterations_;
    int warm = warmup_;
    if (case_ms_ > 0.0) {
      // Two untimed runs (the first may initialise lazily) give the estimate; both count as
      // warm-up.
      fn();
      const double probe = time_one(fn);
      if (probe * timed > case_ms_)
        timed = std::min(timed, std::max(kBenchMinRuns, int(case_ms_ / std::max(probe, 1e-3))));
      warm = std::max(0, std::min(warmup_, std::max(2, timed / 10)) - 2);
    }
    for (int i = 0; i < warm; ++i) fn();
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<double> ms(static_cast<std::size_t>(timed));
    for (double& t : ms) t = time_one(fn);
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    *runs = timed;
    return ms[ms.size() / 2];
  }

 private:
  double time_one(const std::function<void()>& fn) {
    CUDA_CHECK(cudaEventRecord(start_, stream_));
    fn();
    CUDA_CHECK(cudaEventRecord(stop_, stream_));
    CUDA_CHECK(cudaEventSynchronize(stop_));
    float t = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&t, start_, stop_));
    return double(t);
  }

  cudaStream_t stream_;
  int warmup_, iterations_;
  double case_ms_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

const char* format_name(PixelFormat f) {
  return f == PixelFormat::R32F ? "f32" : f == PixelFormat::RGBA32F ? "f32x4" : "rgba8";
}

std::string sigma_text(double sigma) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", sigma);
  return buf;
}

struct Shape {
  int w, h;
  bool hd;
};

}  // namespace

std::vector<BenchResult> bench_cuda(const BenchOptions& o, void (*progress)(const BenchResult&),
                                    void (*note_fn)(const std::string&)) {
  std::string why;
  if (!cuda_available(&why)) throw BackendUnavailable("CUDA benchmark unavailable: " + why);
  auto note = [&](const std::string& line) {
    if (note_fn)
      note_fn(line);
    else
      std::fprintf(stderr, "bench: %s\n", line.c_str());
  };

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
  const std::vector<double> sigmas = o.sigmas.empty() ? std::vector<double>{4.0} : o.sigmas;

  std::string npp_why, cufft_why;
  const bool npp = o.baselines && cuda::NppGaussian::available(&npp_why);
  const bool cufft = o.baselines && cuda::CufftGaussian::available(&cufft_why);
  if (o.baselines) {
    note(npp ? "NPP baseline: " + cuda::NppGaussian::version()
             : "NPP baseline skipped: " + npp_why);
    if (!cufft) note("cuFFT baseline skipped: " + cufft_why);
  }

  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<BenchResult> results;
  auto emit = [&](BenchResult r, double ms, int runs) {
    r.ms = ms;
    r.runs = runs;
    r.gips = double(r.width) * r.height / (ms * 1e-3) / double(1ull << 30);
    if (progress) progress(r);
    results.push_back(r);
  };

  try {
    Timer timer(stream, o.warmup, o.iterations, o.case_ms);
    Comparer comparer;
    int runs = 0;
    if (o.baselines) {
      // The bandwidth floor: a 1 GiB device-to-device copy, read + write counted.
      const std::size_t bytes = std::size_t(1) << 30;
      Buffer a(bytes), b(bytes);
      CUDA_CHECK(cudaMemset(a.ptr, 1, bytes));
      const double ms = timer.median_ms(
          [&] {
            CUDA_CHECK(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice, stream));
          },
          &runs);
      BenchResult r;
      r.impl = "copy";
      r.filter = "copy";
      r.ext = "-";
      r.width = 16384;
      r.height = 16384;
      r.format = "f32";
      r.gbps = 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
      emit(r, ms, runs);
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
        const std::string where =
            std::to_string(shape.w) + "x" + std::to_string(shape.h) + " " + format_name(format);

        auto engine = make_cuda_engine();
        for (FilterKind kind : kinds) {
          const std::vector<Algorithm> algos = bench_algorithms(o, kind);
          const bool fixed_order = kind != FilterKind::Gaussian && kind != FilterKind::Deriche;
          const bool no_ext = kind == FilterKind::Sat;
          for (double sigma : uses_sigma(kind) ? sigmas : std::vector<double>{0.0})
            for (int order : fixed_order ? std::vector<int>{orders.front()} : orders)
              for (Extension ext : no_ext ? std::vector<Extension>{Extension::Zero} : exts)
                for (Algorithm algo : algos) {
                  FilterSpec spec;
                  spec.kind = kind;
                  if (sigma > 0.0) spec.sigma = sigma;
                  spec.order = order;
                  spec.ext = ext;
                  spec.algo = algo;
                  BenchResult r = base;
                  r.impl = "rfstudio";
                  r.algo = to_string(algo);
                  r.filter = to_string(kind);
                  r.sigma = sigma;
                  r.ext = no_ext ? "-" : to_string(ext);
                  try {
                    r.order = design(spec).order();
                    engine->plan(spec, shape.w, shape.h, format);
                  } catch (const InvalidParameter& e) {
                    note(std::string(to_string(kind)) + " " + r.algo + " order " +
                         std::to_string(order) + " " + r.ext + " sigma " + sigma_text(sigma) +
                         ", " + where + ": " + e.what());
                    continue;
                  }
                  emit(r, timer.median_ms([&] { engine->run(src, dst, stream); }, &runs), runs);
                }
        }
        if (!o.baselines) continue;

        Buffer truth(bytes);
        // The double FIR into `truth`: the reference the float baselines are checked against.
        auto reference = [&](double sigma, Extension ext, int radius) {
          cuda::FirGaussian fir;
          fir.plan(sigma, ext, shape.w, shape.h, format, cuda::FirPrecision::Double, radius);
          FrameView t = dst;
          t.data = truth.ptr;
          fir.run(src, t, stream);
          CUDA_CHECK(cudaStreamSynchronize(stream));
        };
        const bool float_frames = format != PixelFormat::RGBA8;
        const std::size_t floats = std::size_t(shape.w) * shape.h * c;

        for (double sigma : sigmas) {
          BenchResult fb = base;
          fb.filter = "gaussian";
          fb.sigma = sigma;

          // The plain FIR (radius 6 sigma, mirror): double accumulation first, so that its output
          // checks the float one.
          const int truth_radius = cuda::fir_radius(sigma, kBenchTruthSigmas);
          for (auto precision : {cuda::FirPrecision::Double, cuda::FirPrecision::Float}) {
            cuda::FirGaussian fir;
            fir.plan(sigma, Extension::Mirror, shape.w, shape.h, format, precision, truth_radius);
            BenchResult r = fb;
            r.impl = precision == cuda::FirPrecision::Float ? "fir" : "fir-f64";
            r.ext = "mirror";
            r.radius = truth_radius;
            const double ms = timer.median_ms([&] { fir.run(src, dst, stream); }, &runs);
            if (float_frames) {
              if (precision == cuda::FirPrecision::Double)
                CUDA_CHECK(
                    cudaMemcpyAsync(truth.ptr, out.ptr, bytes, cudaMemcpyDeviceToDevice, stream));
              else
                r.max_error = comparer.max_abs_diff(out.f(), truth.f(), floats, stream);
            }
            emit(r, ms, runs);
          }
          if (c != 1) continue;

          // The tuned FIR (radius 3 sigma, mirror), each kernel that takes the radius.
          const int radius = cuda::fir_radius(sigma, kBenchFastFirSigmas);
          reference(sigma, Extension::Mirror, radius);
          for (auto kernel : {cuda::FirTunedKernel::Fused, cuda::FirTunedKernel::TwoPass}) {
            if (kernel == cuda::FirTunedKernel::Fused && radius > cuda::kFirFusedMaxRadius)
              continue;
            cuda::FirTuned fir;
            try {
              fir.plan(sigma, radius, Extension::Mirror, shape.w, shape.h, kernel);
            } catch (const InvalidParameter& e) {
              note("fir-tuned sigma " + sigma_text(sigma) + ", " + where + ": " + e.what());
              continue;
            }
            BenchResult r = fb;
            r.impl = "fir-tuned";
            r.algo = cuda::to_string(kernel);
            r.ext = "mirror";
            r.radius = radius;
            const double ms =
                timer.median_ms([&] { fir.run(in.f(), 0, out.f(), 0, stream); }, &runs);
            r.max_error = comparer.max_abs_diff(out.f(), truth.f(), floats, stream);
            emit(r, ms, runs);
          }

          // NPP (radius 3 sigma, replicate border = clamp).
          if (npp) {
            reference(sigma, Extension::Clamp, radius);
            try {
              cuda::NppGaussian filter(shape.w, shape.h, sigma, radius);
              BenchResult r = fb;
              r.impl = "npp";
              r.ext = "clamp";
              r.radius = radius;
              const double ms =
                  timer.median_ms([&] { filter.run(in.f(), 0, out.f(), 0, stream); }, &runs);
              r.max_error = comparer.max_abs_diff(out.f(), truth.f(), floats, stream);
              emit(r, ms, runs);
            } catch (const std::exception& e) {
              note("npp sigma " + sigma_text(sigma) + ", " + where + ": " + e.what());
            }
          }

          // cuFFT: the periodic Gaussian (radius unbounded), checked against the FIR with repeat.
          if (cufft) {
            reference(sigma, Extension::Repeat, truth_radius);
            cuda::CufftGaussian fft(shape.w, shape.h, sigma);
            BenchResult r = fb;
            r.impl = "cufft";
            r.ext = "repeat";
            const double ms = timer.median_ms([&] { fft.run(in.f(), out.f(), stream); }, &runs);
            r.max_error = comparer.max_abs_diff(out.f(), truth.f(), floats, stream);
            emit(r, ms, runs);
          }
        }

        if (c != 1) continue;
        cuda::CubSat sat(shape.w, shape.h);
        BenchResult r = base;
        r.impl = "cub-sat";
        r.filter = "sat";
        r.order = 1;
        r.ext = "-";
        emit(r, timer.median_ms([&] { sat.run(in.f(), out.f(), stream); }, &runs), runs);
      }
  } catch (...) {
    cudaStreamDestroy(stream);
    throw;
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return results;
}

}  // namespace rf
