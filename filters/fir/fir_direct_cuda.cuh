// The direct separable FIR Gaussian on the GPU: one thread per output sample, columns then rows,
// taps read through the extension's index function (extension.h) and accumulated in T. The
// library runs it in double as the GPU ground truth (truth_cuda.cu) and in float as the FIR
// method on the frames the tuned kernels do not take (fir_cuda.cu); the benchmark also times it.
// Device helpers, kernels, then the host plan.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/device_buffer.cuh"
#include "filters/core/errors.h"
#include "filters/core/extension.h"
#include "filters/core/image.h"
#include "filters/core/io.cuh"

namespace rf::cuda {
namespace fir {

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
    pass_kernel(Io src, Io dst, int w, int h, bool rows, Extension ext, T outside,
                const double* taps, int radius) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const int n = rows ? w : h;
  const int pos = rows ? x : y;
  Vec<C, T> acc = zero_vec<C, T>();
  for (int k = -radius; k <= radius; ++k) {
    const int j = extend_index(pos + k, n, ext);
    if (j < 0) {  // zero, or the constant (`outside`, 0 for the others)
      fma_into(acc, T(taps[k + radius]), filled<C, T>(outside));
      continue;
    }
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

// Columns with taps_y (radius_y), then rows with taps_x; `outside` is the constant extension's
// value, which the rows see too: the taps sum to one.
template <int C, class T>
void passes(const Io& src, const Io& tmp, const Io& dst, int w, int h, Extension ext,
            double outside, const double* taps_y, int radius_y, const double* taps_x, int radius_x,
            cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((w + 31) / 32, (h + 7) / 8);
  const T k = ext == Extension::Constant ? T(outside) : T(0);
  pass_kernel<C, T, false, true>
      <<<grid, block, 0, stream>>>(src, tmp, w, h, false, ext, k, taps_y, radius_y);
  CUDA_CHECK_LAUNCH();
  pass_kernel<C, T, true, false>
      <<<grid, block, 0, stream>>>(tmp, dst, w, h, true, ext, k, taps_x, radius_x);
  CUDA_CHECK_LAUNCH();
}

}  // namespace fir

// The FIR Gaussian with accumulation in T (float or double), planned once per sigma, extension,
// size and format. Taps exp(-k^2 / (2 sigma^2)) for |k| <= radius, normalised to unit sum in
// double; by default radius = ceil(6 sigma), the truncation of ref::fir_gaussian. Ignore is
// treated as Zero, as the reference does.
template <class T>
class SeparableFir {
 public:
  // radius < 0: ceil(6 sigma). Throws InvalidParameter for a bad sigma or size.
  void plan(double sigma, Extension ext, int width, int height, PixelFormat format,
            int radius = -1) {
    plan(sigma, sigma, ext, 0.0, width, height, format, radius, radius);
  }

  // A sigma per axis: sigma_x along the rows, sigma_y down the columns; radius < 0: ceil(6
  // sigma) of that axis; cval: the constant extension's value.
  void plan(double sigma_x, double sigma_y, Extension ext, double cval, int width, int height,
            PixelFormat format, int radius_x = -1, int radius_y = -1) {
    for (double sigma : {sigma_x, sigma_y})
      if (!(sigma > 0.0) || !std::isfinite(sigma))
        throw InvalidParameter("sigma must be a finite number > 0");
    if (width <= 0 || height <= 0) throw InvalidParameter("image size must be positive");
    width_ = width;
    height_ = height;
    format_ = format;
    ext_ = ext == Extension::Ignore ? Extension::Zero : ext;
    cval_ = cval;
    x_.plan(sigma_x, radius_x);
    y_.plan(sigma_y, radius_y);
    const std::size_t sample = std::size_t(channel_count(format)) * sizeof(T);
    tmp_.allocate_pitched(sample * std::size_t(width), std::size_t(height));
    staging_.reset();
  }

  int radius() const { return x_.radius; }

  // The passes from one device frame into another (src == dst allowed), as the CUDA engine runs
  // them: columns into the scratch, then rows.
  void enqueue(const Io& src, const Io& dst, cudaStream_t stream) {
    const int c = channel_count(format_);
    const Io tmp{c == 1 ? IoKind::F32 : IoKind::F32x4, static_cast<char*>(tmp_.ptr), tmp_.pitch, 0};
    const double* tx = static_cast<const double*>(x_.taps.ptr);
    const double* ty = static_cast<const double*>(y_.taps.ptr);
    if (c == 1)
      fir::passes<1, T>(src, tmp, dst, width_, height_, ext_, cval_, ty, y_.radius, tx, x_.radius,
                        stream);
    else
      fir::passes<4, T>(src, tmp, dst, width_, height_, ext_, cval_, ty, y_.radius, tx, x_.radius,
                        stream);
  }

  // Frames as for Engine::run (Host, Device or CudaSurface); no allocation for device frames.
  // Host frames go through a staging buffer, and the call waits for their result.
  void run(const FrameView& in, const FrameView& out, cudaStream_t stream) {
    if (!tmp_.ptr) throw std::logic_error("SeparableFir::run before plan");
    for (const FrameView* v : {&in, &out})
      if (v->width != width_ || v->height != height_ || v->format != format_)
        throw InvalidParameter("the frame does not match the planned size and format");
    const std::size_t row_bytes = std::size_t(width_) * bytes_per_pixel(format_);
    const bool host = in.space == MemorySpace::Host || out.space == MemorySpace::Host;
    if (host && !staging_.ptr) staging_.allocate_pitched(row_bytes, std::size_t(height_));
    auto io = [&](const FrameView& v) {
      Io r{kind_of(v), static_cast<char*>(v.data), v.pitch ? v.pitch : row_bytes, v.surface};
      if (v.space == MemorySpace::Host) {
        r.ptr = static_cast<char*>(staging_.ptr);
        r.pitch = staging_.pitch;
      }
      return r;
    };
    if (in.space == MemorySpace::Host)
      CUDA_CHECK(cudaMemcpy2DAsync(staging_.ptr, staging_.pitch, in.data,
                                   in.pitch ? in.pitch : row_bytes, row_bytes, std::size_t(height_),
                                   cudaMemcpyHostToDevice, stream));
    enqueue(io(in), io(out), stream);
    if (out.space == MemorySpace::Host) {
      CUDA_CHECK(cudaMemcpy2DAsync(out.data, out.pitch ? out.pitch : row_bytes, staging_.ptr,
                                   staging_.pitch, row_bytes, std::size_t(height_),
                                   cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  }

 private:
  // The taps of one axis on the device.
  struct Taps {
    int radius = 0;
    DeviceBuffer taps;
    void plan(double sigma, int r) {
      radius = r < 0 ? int(std::ceil(6.0 * sigma)) : r;
      std::vector<double> t(std::size_t(2 * radius + 1));
      double sum = 0.0;
      for (int k = -radius; k <= radius; ++k)
        sum += t[std::size_t(k + radius)] = std::exp(-0.5 * k * k / (sigma * sigma));
      for (double& v : t) v /= sum;
      taps.allocate(t.size() * sizeof(double));
      CUDA_CHECK(cudaMemcpy(taps.ptr, t.data(), t.size() * sizeof(double), cudaMemcpyHostToDevice));
    }
  };

  int width_ = 0, height_ = 0;
  PixelFormat format_ = PixelFormat::R32F;
  Extension ext_ = Extension::Zero;
  double cval_ = 0.0;
  Taps x_, y_;
  DeviceBuffer tmp_, staging_;
};

}  // namespace rf::cuda
