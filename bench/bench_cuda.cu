// rf::bench::bench_cuda: the protocol of docs/bench/README.md on the CUDA backend. CUDA events
// around the filter alone (no upload, no readback), warm-up runs first, the median of the timed
// runs; random data. Every case at every sigma of the list and with every algorithm asked for;
// beside the engine, in the same run and at the same sigma: the plain FIR (float and double), the
// tuned FIR, NPP's separable filter, cuFFT convolution, then the CUB summed-area table and the
// device copy floor. The FIR, NPP and cuFFT outputs are checked against the double FIR with the
// same taps and extension, so a baseline that is fast because it is wrong shows.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/baselines_cuda.h"
#include "bench/bench.h"
#include "bench/fir_cuda.h"
#include "bench/fir_tuned_cuda.h"
#include "bench/npp_cuda.h"
#include "bench/random.h"
#include "bench/timer.h"
#include "filters/core/cuda_check.cuh"
#include "filters/core/design.h"
#include "filters/core/device_buffer.cuh"
#include "filters/core/engine.h"
#include "filters/core/errors.h"

namespace rf::bench {
namespace {

using cuda::DeviceBuffer;

// A packed device buffer of random samples of `format` (random.h), uploaded once.
void upload_random(DeviceBuffer& b, std::size_t bytes, PixelFormat format, std::uint32_t seed) {
  std::vector<std::uint8_t> host(bytes);
  fill_random(host.data(), bytes, format, seed);
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
  Comparer() { result_.allocate(sizeof(unsigned)); }
  double max_abs_diff(const float* a, const float* b, std::size_t n, cudaStream_t stream) {
    unsigned* result = static_cast<unsigned*>(result_.ptr);
    CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(unsigned), stream));
    max_abs_diff_kernel<<<264, 256, 0, stream>>>(a, b, n, result);
    CUDA_CHECK_LAUNCH();
    unsigned bits = 0;
    CUDA_CHECK(cudaMemcpyAsync(&bits, result, sizeof bits, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    float v;
    static_assert(sizeof v == sizeof bits);
    std::memcpy(&v, &bits, sizeof v);
    return double(v);
  }

 private:
  DeviceBuffer result_;
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
  const bool npp = o.baselines && NppGaussian::available(&npp_why);
  const bool cufft = o.baselines && CufftGaussian::available(&cufft_why);
  if (o.baselines) {
    note(npp ? "NPP baseline: " + NppGaussian::version() : "NPP baseline skipped: " + npp_why);
    if (!cufft) note("cuFFT baseline skipped: " + cufft_why);
  }

  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<BenchResult> results;
  auto emit = [&](BenchResult r, const Timing& t) {
    r.ms = t.median_ms;
    r.runs = t.runs;
    r.gips = gips(r.width, r.height, r.ms);
    if (progress) progress(r);
    results.push_back(r);
  };

  try {
    Timer timer(Clock::CudaEvents, stream);
    const Repeats repeats{o.warmup, o.iterations, o.case_ms, kBenchMinRuns};
    auto measure = [&](const std::function<void()>& fn) { return timer.measure(fn, repeats); };
    Comparer comparer;
    if (o.baselines) {
      // The bandwidth floor: a 1 GiB device-to-device copy, read + write counted.
      const std::size_t bytes = std::size_t(1) << 30;
      DeviceBuffer a, b;
      a.allocate(bytes);
      b.allocate(bytes);
      CUDA_CHECK(cudaMemset(a.ptr, 1, bytes));
      const Timing t = measure([&] {
        CUDA_CHECK(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice, stream));
      });
      BenchResult r;
      r.impl = "copy";
      r.filter = "copy";
      r.ext = "-";
      r.width = 16384;
      r.height = 16384;
      r.format = "f32";
      r.gbps = 2.0 * double(bytes) / (t.median_ms * 1e-3) / 1e9;
      emit(r, t);
    }

    for (const Shape& shape : shapes)
      for (int c : channels) {
        const PixelFormat format = c == 1     ? PixelFormat::R32F
                                   : shape.hd ? PixelFormat::RGBA8
                                              : PixelFormat::RGBA32F;
        const std::size_t bytes = std::size_t(shape.w) * shape.h * bytes_per_pixel(format);
        DeviceBuffer in, out;
        in.allocate(bytes);
        out.allocate(bytes);
        upload_random(in, bytes, format, std::uint32_t(shape.w * 7 + shape.h + c));
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
                  emit(r, measure([&] { engine->run(src, dst, stream); }));
                }
        }
        if (!o.baselines) continue;

        DeviceBuffer truth;
        truth.allocate(bytes);
        // The double FIR into `truth`: the reference the float baselines are checked against.
        auto reference = [&](double sigma, Extension ext, int radius) {
          FirGaussian fir;
          fir.plan(sigma, ext, shape.w, shape.h, format, FirPrecision::Double, radius);
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
          const int truth_radius = fir_radius(sigma, kBenchTruthSigmas);
          for (auto precision : {FirPrecision::Double, FirPrecision::Float}) {
            FirGaussian fir;
            fir.plan(sigma, Extension::Mirror, shape.w, shape.h, format, precision, truth_radius);
            BenchResult r = fb;
            r.impl = precision == FirPrecision::Float ? "fir" : "fir-f64";
            r.ext = "mirror";
            r.radius = truth_radius;
            const Timing t = measure([&] { fir.run(src, dst, stream); });
            if (float_frames) {
              if (precision == FirPrecision::Double)
                CUDA_CHECK(
                    cudaMemcpyAsync(truth.ptr, out.ptr, bytes, cudaMemcpyDeviceToDevice, stream));
              else
                r.max_error = comparer.max_abs_diff(out.f(), truth.f(), floats, stream);
            }
            emit(r, t);
          }
          if (c != 1) continue;

          // The tuned FIR (radius 3 sigma, mirror), each kernel that takes the radius.
          const int radius = fir_radius(sigma, kBenchFastFirSigmas);
          reference(sigma, Extension::Mirror, radius);
          for (auto kernel : {FirTunedKernel::Fused, FirTunedKernel::TwoPass}) {
            if (kernel == FirTunedKernel::Fused && radius > kFirFusedMaxRadius) continue;
            FirTuned fir;
            try {
              fir.plan(sigma, radius, Extension::Mirror, shape.w, shape.h, kernel);
            } catch (const InvalidParameter& e) {
              note("fir-tuned sigma " + sigma_text(sigma) + ", " + where + ": " + e.what());
              continue;
            }
            BenchResult r = fb;
            r.impl = "fir-tuned";
            r.algo = to_string(kernel);
            r.ext = "mirror";
            r.radius = radius;
            const Timing t = measure([&] { fir.run(in.f(), 0, out.f(), 0, stream); });
            r.max_error = comparer.max_abs_diff(out.f(), truth.f(), floats, stream);
            emit(r, t);
          }

          // NPP (radius 3 sigma, replicate border = clamp).
          if (npp) {
            reference(sigma, Extension::Clamp, radius);
            try {
              NppGaussian filter(shape.w, shape.h, sigma, radius);
              BenchResult r = fb;
              r.impl = "npp";
              r.ext = "clamp";
              r.radius = radius;
              const Timing t = measure([&] { filter.run(in.f(), 0, out.f(), 0, stream); });
              r.max_error = comparer.max_abs_diff(out.f(), truth.f(), floats, stream);
              emit(r, t);
            } catch (const std::exception& e) {
              note("npp sigma " + sigma_text(sigma) + ", " + where + ": " + e.what());
            }
          }

          // cuFFT: the periodic Gaussian (radius unbounded), checked against the FIR with repeat.
          if (cufft) {
            reference(sigma, Extension::Repeat, truth_radius);
            CufftGaussian fft(shape.w, shape.h, sigma);
            BenchResult r = fb;
            r.impl = "cufft";
            r.ext = "repeat";
            const Timing t = measure([&] { fft.run(in.f(), out.f(), stream); });
            r.max_error = comparer.max_abs_diff(out.f(), truth.f(), floats, stream);
            emit(r, t);
          }
        }

        if (c != 1) continue;
        CubSat sat(shape.w, shape.h);
        BenchResult r = base;
        r.impl = "cub-sat";
        r.filter = "sat";
        r.order = 1;
        r.ext = "-";
        emit(r, measure([&] { sat.run(in.f(), out.f(), stream); }));
      }
  } catch (...) {
    cudaStreamDestroy(stream);
    throw;
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return results;
}

}  // namespace rf::bench
