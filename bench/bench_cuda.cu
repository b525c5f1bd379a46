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
#include "bench/npp_cuda.h"
#include "bench/random.h"
#include "bench/timer.h"
#include "filters/core/array.h"
#include "filters/core/cuda_check.cuh"
#include "filters/core/device_buffer.cuh"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/filter_table.h"
#include "filters/fir/fir_tuned_cuda.h"

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

std::string sigma_text(double sigma) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", sigma);
  return buf;
}

struct Stream {
  cudaStream_t stream = nullptr;
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

// One frame of the protocol on the device: random samples in `in`, the cases write `out`, the
// double FIR that checks the float baselines writes `truth`.
struct Frame {
  Frame(const Shape& s, PixelFormat f)
      : shape(s),
        channels(channel_count(f)),
        format(f),
        bytes(std::size_t(s.width) * s.height * bytes_per_pixel(format)) {
    in.allocate(bytes);
    out.allocate(bytes);
    upload_random(in, bytes, format, std::uint32_t(s.width * 7 + s.height + channels));
    src.width = dst.width = s.width;
    src.height = dst.height = s.height;
    src.format = dst.format = format;
    src.space = dst.space = MemorySpace::Device;
    src.pitch = dst.pitch = std::size_t(s.width) * bytes_per_pixel(format);
    src.data = in.ptr;
    dst.data = out.ptr;
  }

  // The frame's part of every row.
  BenchResult row() const {
    BenchResult r;
    r.width = shape.width;
    r.height = shape.height;
    r.channels = channels;
    r.format = bench_format_name(format);
    return r;
  }
  // "4096x4096 f32", for notes.
  std::string where() const {
    return std::to_string(shape.width) + "x" + std::to_string(shape.height) + " " +
           bench_format_name(format);
  }
  std::size_t floats() const { return std::size_t(shape.width) * shape.height * channels; }
  bool float_samples() const { return holds_float32(format); }
  // Whether the baselines take the frame: float or RGBA8 samples.
  bool baseline_samples() const { return float_samples() || format == PixelFormat::RGBA8; }

  const Shape shape;
  const int channels;
  const PixelFormat format;
  const std::size_t bytes;
  DeviceBuffer in, out, truth;
  FrameView src, dst;
};

// One run of the protocol: the stream and timer every case shares, the rows and the notes.
class CudaBench {
 public:
  CudaBench(const BenchOptions& o, void (*progress)(const BenchResult&),
            void (*note)(const std::string&))
      : o_(with_defaults(o)),
        note_fn_(note),
        timer_(o_.cuda_clock, stream_.stream),
        repeats_{o_.warmup, o_.iterations, o_.case_ms, kBenchMinRuns},
        rows_(progress) {}

  std::vector<BenchResult> run();

 private:
  void note(const std::string& line) const;
  Timing measure(const std::function<void()>& fn) { return timer_.measure(fn, repeats_); }
  bool any_gaussian() const;
  // options.formats, or by channels: one R32F, four RGBA32F (RGBA8 for the HD frames).
  std::vector<PixelFormat> frame_formats(const Shape& shape) const;

  void copy_floor();
  void engine_cases(Frame& f);
  void reference(Frame& f, double sigma, Extension ext, int radius);
  void plain_fir(Frame& f, const BenchResult& base, double sigma);
  void tuned_fir(Frame& f, const BenchResult& base, double sigma);
  void npp(Frame& f, const BenchResult& base, double sigma);
  void cufft(Frame& f, const BenchResult& base, double sigma);
  void gaussian_baselines(Frame& f);
  void cub_sat(Frame& f);
  void volume_cases();

  const BenchOptions o_;
  void (*const note_fn_)(const std::string&);
  Stream stream_;  // before the timer, which records on it
  Timer timer_;
  const Repeats repeats_;
  Comparer comparer_;
  Rows rows_;
  bool npp_ = false, cufft_ = false;
};

void CudaBench::note(const std::string& line) const {
  if (note_fn_)
    note_fn_(line);
  else
    std::fprintf(stderr, "bench: %s\n", line.c_str());
}

// The FIR, NPP and cuFFT baselines are Gaussians: beside a kind designed to approximate one.
bool CudaBench::any_gaussian() const {
  return std::any_of(o_.kinds.begin(), o_.kinds.end(),
                     [](FilterKind k) { return info(k).approximates_gaussian; });
}

// The bandwidth floor: a 1 GiB device-to-device copy, read + write counted.
void CudaBench::copy_floor() {
  const std::size_t bytes = std::size_t(1) << 30;
  DeviceBuffer a, b;
  a.allocate(bytes);
  b.allocate(bytes);
  CUDA_CHECK(cudaMemset(a.ptr, 1, bytes));
  const Timing t = measure([&] {
    CUDA_CHECK(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice, stream_.stream));
  });
  BenchResult r;
  r.impl = "copy";
  r.filter = "copy";
  r.ext = "-";
  r.width = 16384;
  r.height = 16384;
  r.format = "f32";
  r.gbps = 2.0 * double(bytes) / (t.median_ms * 1e-3) / 1e9;
  rows_.add(r, t);
}

// Every case of every kind; a case the engine refuses to plan is a note.
void CudaBench::engine_cases(Frame& f) {
  auto engine = make_cuda_engine();
  for (FilterKind kind : o_.kinds)
    for (const FilterSpec& spec : bench_cases(o_, kind, Backend::Cuda)) {
      BenchResult r =
          case_row(spec, f.shape.width, f.shape.height, f.channels, bench_format_name(f.format));
      r.impl = "rfstudio";
      try {
        engine->plan(spec, f.shape.width, f.shape.height, f.format);
      } catch (const InvalidParameter& e) {
        note(std::string(to_string(kind)) + " " + r.algo + " order " + std::to_string(spec.order) +
             " " + r.ext + " sigma " + sigma_text(r.sigma) + ", " + f.where() + ": " + e.what());
        continue;
      }
      r.method = engine->method();
      r.ran = engine->algorithm();
      rows_.add(r, measure([&] { engine->run(f.src, f.dst, stream_.stream); }));
    }
}

// The double FIR into `truth`: the reference the float baselines are checked against.
void CudaBench::reference(Frame& f, double sigma, Extension ext, int radius) {
  FirGaussian fir;
  fir.plan(sigma, ext, f.shape.width, f.shape.height, f.format, FirPrecision::Double, radius);
  FrameView t = f.dst;
  t.data = f.truth.ptr;
  fir.run(f.src, t, stream_.stream);
  CUDA_CHECK(cudaStreamSynchronize(stream_.stream));
}

// The plain FIR (radius 6 sigma, mirror): double accumulation first, so that its output checks
// the float one.
void CudaBench::plain_fir(Frame& f, const BenchResult& base, double sigma) {
  const int radius = fir_radius(sigma, kBenchTruthSigmas);
  for (auto precision : {FirPrecision::Double, FirPrecision::Float}) {
    FirGaussian fir;
    fir.plan(sigma, Extension::Mirror, f.shape.width, f.shape.height, f.format, precision, radius);
    BenchResult r = base;
    r.impl = precision == FirPrecision::Float ? "fir" : "fir-f64";
    r.ext = to_string(Extension::Mirror);
    r.radius = radius;
    const Timing t = measure([&] { fir.run(f.src, f.dst, stream_.stream); });
    if (f.float_samples()) {
      if (precision == FirPrecision::Double)
        CUDA_CHECK(cudaMemcpyAsync(f.truth.ptr, f.out.ptr, f.bytes, cudaMemcpyDeviceToDevice,
                                   stream_.stream));
      else
        r.max_error = comparer_.max_abs_diff(f.out.f(), f.truth.f(), f.floats(), stream_.stream);
    }
    rows_.add(r, t);
  }
}

// The tuned FIR (radius 3 sigma, mirror), each kernel that takes the radius, on one float
// channel and on four (float or 8-bit pixels; checked against the double FIR where float).
void CudaBench::tuned_fir(Frame& f, const BenchResult& base, double sigma) {
  const int radius = fir_radius(sigma, kBenchFastFirSigmas);
  reference(f, sigma, Extension::Mirror, radius);
  const FirSamples samples = f.channels == 1                  ? FirSamples::F32
                             : f.format == PixelFormat::RGBA8 ? FirSamples::U8x4
                                                              : FirSamples::F32x4;
  for (auto kernel : {FirTunedKernel::Fused, FirTunedKernel::TwoPass}) {
    if (kernel == FirTunedKernel::Fused && radius > kFirFusedMaxRadius) continue;
    FirTuned fir;
    try {
      fir.plan(sigma, radius, sigma, radius, Extension::Mirror, 0.f, f.shape.width, f.shape.height,
               kernel, f.channels);
    } catch (const InvalidParameter& e) {
      note("fir-tuned sigma " + sigma_text(sigma) + ", " + f.where() + ": " + e.what());
      continue;
    }
    BenchResult r = base;
    r.impl = "fir-tuned";
    r.algo = to_string(kernel);
    r.ext = to_string(Extension::Mirror);
    r.radius = radius;
    const Timing t =
        measure([&] { fir.run(f.in.ptr, 0, samples, f.out.ptr, 0, samples, stream_.stream); });
    if (f.float_samples())
      r.max_error = comparer_.max_abs_diff(f.out.f(), f.truth.f(), f.floats(), stream_.stream);
    rows_.add(r, t);
  }
}

// NPP (radius 3 sigma, replicate border = clamp).
void CudaBench::npp(Frame& f, const BenchResult& base, double sigma) {
  const int radius = fir_radius(sigma, kBenchFastFirSigmas);
  reference(f, sigma, Extension::Clamp, radius);
  try {
    NppGaussian filter(f.shape.width, f.shape.height, sigma, radius);
    BenchResult r = base;
    r.impl = "npp";
    r.ext = to_string(Extension::Clamp);
    r.radius = radius;
    const Timing t = measure([&] { filter.run(f.in.f(), 0, f.out.f(), 0, stream_.stream); });
    r.max_error = comparer_.max_abs_diff(f.out.f(), f.truth.f(), f.floats(), stream_.stream);
    rows_.add(r, t);
  } catch (const std::exception& e) {
    note("npp sigma " + sigma_text(sigma) + ", " + f.where() + ": " + e.what());
  }
}

// cuFFT: the periodic Gaussian (radius unbounded), checked against the FIR with repeat.
void CudaBench::cufft(Frame& f, const BenchResult& base, double sigma) {
  reference(f, sigma, Extension::Repeat, fir_radius(sigma, kBenchTruthSigmas));
  CufftGaussian fft(f.shape.width, f.shape.height, sigma);
  BenchResult r = base;
  r.impl = "cufft";
  r.ext = to_string(Extension::Repeat);
  const Timing t = measure([&] { fft.run(f.in.f(), f.out.f(), stream_.stream); });
  r.max_error = comparer_.max_abs_diff(f.out.f(), f.truth.f(), f.floats(), stream_.stream);
  rows_.add(r, t);
}

// At every sigma: the plain FIR, and on one channel the tuned FIR, NPP and cuFFT.
void CudaBench::gaussian_baselines(Frame& f) {
  f.truth.allocate(f.bytes);
  for (double sigma : o_.sigmas) {
    BenchResult base = f.row();
    base.filter = to_string(FilterKind::Gaussian);
    base.sigma = sigma;
    plain_fir(f, base, sigma);
    tuned_fir(f, base, sigma);
    if (f.channels != 1) continue;
    if (npp_) npp(f, base, sigma);
    if (cufft_) cufft(f, base, sigma);
  }
}

void CudaBench::cub_sat(Frame& f) {
  CubSat sat(f.shape.width, f.shape.height);
  BenchResult r = f.row();
  r.impl = "cub-sat";
  r.filter = to_string(FilterKind::Sat);
  r.order = 1;
  r.ext = "-";
  rows_.add(r, measure([&] { sat.run(f.in.f(), f.out.f(), stream_.stream); }));
}

// An n^3 volume in device memory: a copy of its bytes, then the Gaussian along the three axes (one
// 2-D plan of x and y, a pass through the pages), the pages alone, and through them alone.
void CudaBench::volume_cases() {
  const int n = o_.volume;
  const std::size_t count = std::size_t(n) * n * n, bytes = count * sizeof(float);
  DeviceBuffer in, out;
  in.allocate(bytes);
  out.allocate(bytes);
  const std::vector<float> host = random_floats(count, 77);
  CUDA_CHECK(cudaMemcpy(in.ptr, host.data(), bytes, cudaMemcpyHostToDevice));
  BenchResult base;
  base.width = base.height = base.depth = n;
  base.format = "f32";
  {
    BenchResult r = base;
    r.impl = r.filter = "copy";
    r.ext = "-";
    const Timing t = measure([&] {
      CUDA_CHECK(cudaMemcpyAsync(out.ptr, in.ptr, bytes, cudaMemcpyDeviceToDevice, stream_.stream));
    });
    r.gbps = 2.0 * double(bytes) / (t.median_ms * 1e-3) / 1e9;
    rows_.add(r, t);
  }
  const std::pair<const char*, Algorithm> cases[] = {
      {"x,y,z", Algorithm::Auto}, {"x,y,z", Algorithm::RT}, {"x,y,z", Algorithm::Alg4},
      {"x,y", Algorithm::Auto},   {"z", Algorithm::Auto},   {"z", Algorithm::RT},
      {"z", Algorithm::Alg4}};
  const double sigma = o_.sigmas.front();
  for (int order : o_.orders)
    for (Extension ext : o_.exts)
      for (const auto& [axes, algo] : cases) {
        ArraySpec spec;
        spec.filter.order = order;
        spec.filter.algo = algo;
        const std::string names = axes;
        for (int axis = 0; axis < 3; ++axis)
          if (names.find("zyx"[axis]) != std::string::npos)
            spec.passes.push_back({axis, sigma, 0, ext});
        BenchResult r = base;
        r.impl = "rfstudio";
        r.algo = to_string(algo);
        r.filter = to_string(FilterKind::Gaussian);
        r.sigma = sigma;
        r.order = order;
        r.ext = to_string(ext);
        r.axes = axes;
        try {
          ArrayFilter filter(spec, {n, n, n}, Backend::Cuda, MemorySpace::Device);
          r.ran = filter.algorithms();
          const auto* src = static_cast<const float*>(in.ptr);
          auto* dst = static_cast<float*>(out.ptr);
          rows_.add(r, measure([&] { filter.run(src, dst, stream_.stream); }));
        } catch (const InvalidParameter& e) {
          note(std::string("volume ") + axes + " " + r.algo + " order " + std::to_string(order) +
               " " + r.ext + " skipped: " + e.what());
        }
      }
}

std::vector<PixelFormat> CudaBench::frame_formats(const Shape& shape) const {
  if (!o_.formats.empty()) return o_.formats;
  std::vector<PixelFormat> formats;
  for (int c : o_.channels)
    formats.push_back(c == 1     ? PixelFormat::R32F
                      : shape.hd ? PixelFormat::RGBA8
                                 : PixelFormat::RGBA32F);
  return formats;
}

std::vector<BenchResult> CudaBench::run() {
  if (o_.baselines) {
    std::string npp_why, cufft_why;
    npp_ = NppGaussian::available(&npp_why);
    cufft_ = CufftGaussian::available(&cufft_why);
    note(npp_ ? "NPP baseline: " + NppGaussian::version() : "NPP baseline skipped: " + npp_why);
    if (!cufft_) note("cuFFT baseline skipped: " + cufft_why);
    copy_floor();
  }
  if (o_.volume > 0) volume_cases();
  for (const Shape& shape : bench_shapes(o_))
    for (PixelFormat format : frame_formats(shape)) {
      Frame f(shape, format);
      engine_cases(f);
      if (!o_.baselines || !f.baseline_samples()) continue;
      if (any_gaussian()) gaussian_baselines(f);
      if (format == PixelFormat::R32F) cub_sat(f);
    }
  return rows_.take();
}

}  // namespace

std::vector<BenchResult> bench_cuda(const BenchOptions& o, void (*progress)(const BenchResult&),
                                    void (*note)(const std::string&)) {
  std::string why;
  if (!cuda_available(&why)) throw BackendUnavailable("CUDA benchmark unavailable: " + why);
  CudaBench bench(o, progress, note);
  return bench.run();
}

}  // namespace rf::bench
