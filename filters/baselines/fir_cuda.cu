// Direct separable FIR Gaussian: one thread per output sample, columns then rows, taps read
// through the extension's index function (extension.h).
#include "filters/baselines/fir_cuda.h"

#include <cuda_runtime.h>

#include <cmath>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/errors.h"
#include "filters/core/io.cuh"

namespace rf::cuda {
namespace {

// Reads channel-typed samples from a T-typed scratch (float or double Vec<C, T>).
template <int C, class T>
__device__ __forceinline__ Vec<C, T> read_any(const Io& io, int x, int y) {
  if constexpr (std::is_same_v<T, double>) {
    return reinterpret_cast<const Vec<C, double>*>(io.ptr + std::size_t(y) * io.pitch)[x];
  } else {
    return read<C>(io, x, y);
  }
}

// One pass along columns (rows == false) or rows; src is a frame (pass 1) or the T scratch.
template <int C, class T, bool FromScratch, bool ToScratch>
__global__ void __launch_bounds__(256)
    fir_pass_kernel(Io src, Io dst, int w, int h, bool rows, Extension ext, const double* taps,
                    int radius) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const int n = rows ? w : h;
  const int pos = rows ? x : y;
  Vec<C, T> acc = zero_vec<C, T>();
  for (int k = -radius; k <= radius; ++k) {
    const int j = extend_index(pos + k, n, ext);
    if (j < 0) continue;
    const int sx = rows ? j : x, sy = rows ? y : j;
    Vec<C, T> v;
    if constexpr (FromScratch)
      v = read_any<C, T>(src, sx, sy);
    else
      v = convert<T>(read<C>(src, sx, sy));
    fma_into(acc, T(taps[k + radius]), v);
  }
  if constexpr (ToScratch)
    reinterpret_cast<Vec<C, T>*>(dst.ptr + std::size_t(y) * dst.pitch)[x] = acc;
  else
    write<C>(dst, x, y, convert<float>(acc));
}

template <int C, class T>
void fir_passes(const Io& src, const Io& tmp, const Io& dst, int w, int h, Extension ext,
                const double* taps, int radius, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((w + 31) / 32, (h + 7) / 8);
  fir_pass_kernel<C, T, false, true>
      <<<grid, block, 0, stream>>>(src, tmp, w, h, false, ext, taps, radius);
  CUDA_CHECK_LAUNCH();
  fir_pass_kernel<C, T, true, false>
      <<<grid, block, 0, stream>>>(tmp, dst, w, h, true, ext, taps, radius);
  CUDA_CHECK_LAUNCH();
}

IoKind kind_of(const FrameView& v) {
  const bool s = v.space == MemorySpace::CudaSurface;
  switch (v.format) {
    case PixelFormat::R32F:
      return s ? IoKind::SurfF32 : IoKind::F32;
    case PixelFormat::RGBA32F:
      return s ? IoKind::SurfF32x4 : IoKind::F32x4;
    default:
      return s ? IoKind::SurfU8x4 : IoKind::U8x4;
  }
}

}  // namespace

struct FirGaussian::Impl {
  int width = 0, height = 0, radius = 0;
  PixelFormat format = PixelFormat::R32F;
  FirPrecision precision = FirPrecision::Float;
  Extension ext = Extension::Zero;
  double* taps = nullptr;
  void* tmp = nullptr;
  std::size_t tmp_pitch = 0;
  void* staging = nullptr;
  std::size_t staging_pitch = 0;

  void release() {
    cudaFree(taps);
    cudaFree(tmp);
    cudaFree(staging);
    taps = nullptr;
    tmp = staging = nullptr;
  }
};

FirGaussian::FirGaussian() : impl_(std::make_unique<Impl>()) {}
FirGaussian::~FirGaussian() {
  impl_->release();
}

void FirGaussian::plan(double sigma, Extension ext, int width, int height, PixelFormat format,
                       FirPrecision precision, int radius) {
  if (!(sigma > 0.0) || !std::isfinite(sigma))
    throw InvalidParameter("sigma must be a finite number > 0");
  if (width <= 0 || height <= 0) throw InvalidParameter("image size must be positive");
  Impl& d = *impl_;
  d.release();
  d.width = width;
  d.height = height;
  d.format = format;
  d.precision = precision;
  d.ext = ext == Extension::Ignore ? Extension::Zero : ext;
  d.radius = radius < 0 ? int(std::ceil(6.0 * sigma)) : radius;
  std::vector<double> taps(std::size_t(2 * d.radius + 1));
  double sum = 0.0;
  for (int k = -d.radius; k <= d.radius; ++k)
    sum += taps[std::size_t(k + d.radius)] = std::exp(-0.5 * k * k / (sigma * sigma));
  for (double& t : taps) t /= sum;
  CUDA_CHECK(cudaMalloc(&d.taps, taps.size() * sizeof(double)));
  CUDA_CHECK(cudaMemcpy(d.taps, taps.data(), taps.size() * sizeof(double), cudaMemcpyHostToDevice));
  const std::size_t sample = std::size_t(channel_count(format)) *
                             (precision == FirPrecision::Double ? sizeof(double) : sizeof(float));
  CUDA_CHECK(
      cudaMallocPitch(&d.tmp, &d.tmp_pitch, sample * std::size_t(width), std::size_t(height)));
}

int FirGaussian::radius() const {
  return impl_->radius;
}

void FirGaussian::run(const FrameView& in, const FrameView& out, void* stream_handle) {
  Impl& d = *impl_;
  if (!d.tmp) throw std::logic_error("FirGaussian::run before plan");
  for (const FrameView* v : {&in, &out})
    if (v->width != d.width || v->height != d.height || v->format != d.format)
      throw InvalidParameter("the frame does not match the planned size and format");
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  const std::size_t row_bytes = std::size_t(d.width) * bytes_per_pixel(d.format);
  const bool host = in.space == MemorySpace::Host || out.space == MemorySpace::Host;
  if (host && !d.staging)
    CUDA_CHECK(cudaMallocPitch(&d.staging, &d.staging_pitch, row_bytes, std::size_t(d.height)));
  auto io = [&](const FrameView& v) {
    Io r{kind_of(v), static_cast<char*>(v.data), v.pitch ? v.pitch : row_bytes, v.surface};
    if (v.space == MemorySpace::Host) {
      r.ptr = static_cast<char*>(d.staging);
      r.pitch = d.staging_pitch;
    }
    return r;
  };
  if (in.space == MemorySpace::Host)
    CUDA_CHECK(cudaMemcpy2DAsync(d.staging, d.staging_pitch, in.data,
                                 in.pitch ? in.pitch : row_bytes, row_bytes, std::size_t(d.height),
                                 cudaMemcpyHostToDevice, stream));
  const Io src = io(in), dst = io(out);
  const int c = channel_count(d.format);
  const bool dbl = d.precision == FirPrecision::Double;
  const Io tmp{c == 1 ? IoKind::F32 : IoKind::F32x4, static_cast<char*>(d.tmp), d.tmp_pitch, 0};
  if (c == 1)
    (dbl ? fir_passes<1, double> : fir_passes<1, float>)(src, tmp, dst, d.width, d.height, d.ext,
                                                         d.taps, d.radius, stream);
  else
    (dbl ? fir_passes<4, double> : fir_passes<4, float>)(src, tmp, dst, d.width, d.height, d.ext,
                                                         d.taps, d.radius, stream);
  if (out.space == MemorySpace::Host) {
    CUDA_CHECK(cudaMemcpy2DAsync(out.data, out.pitch ? out.pitch : row_bytes, d.staging,
                                 d.staging_pitch, row_bytes, std::size_t(d.height),
                                 cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}

Image fir_gaussian(const Image& in, double sigma, Extension ext, FirPrecision precision,
                   int radius) {
  if (in.channels != 1 && in.channels != 4)
    throw InvalidParameter("fir_gaussian: images of 1 or 4 channels");
  Image out(in.width, in.height, in.channels);
  FirGaussian fir;
  const FrameView src = const_cast<Image&>(in).view();
  fir.plan(sigma, ext, in.width, in.height, src.format, precision, radius);
  fir.run(src, out.view());
  return out;
}

}  // namespace rf::cuda
