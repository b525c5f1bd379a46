#include "filters/core/device_frame.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/errors.h"

namespace rf::cuda {

struct DeviceFrame::Impl {
  int width = 0, height = 0;
  PixelFormat format = PixelFormat::R32F;
  MemorySpace space = MemorySpace::Device;
  void* ptr = nullptr;
  std::size_t pitch = 0;
  cudaArray_t array = nullptr;
  cudaSurfaceObject_t surface = 0;

  std::size_t row_bytes() const { return std::size_t(width) * bytes_per_pixel(format); }
};

DeviceFrame::DeviceFrame(int width, int height, PixelFormat format, MemorySpace space)
    : impl_(std::make_unique<Impl>()) {
  if (width <= 0 || height <= 0) throw InvalidParameter("frame size must be positive");
  if (space == MemorySpace::Host) throw InvalidParameter("a DeviceFrame lives on the device");
  Impl& d = *impl_;
  d.width = width;
  d.height = height;
  d.format = format;
  d.space = space;
  if (space == MemorySpace::Device) {
    CUDA_CHECK(cudaMallocPitch(&d.ptr, &d.pitch, d.row_bytes(), std::size_t(height)));
    return;
  }
  if (format != PixelFormat::R32F && format != PixelFormat::RGBA32F && format != PixelFormat::RGBA8)
    throw InvalidParameter(std::string("a surface holds R32F, RGBA32F or RGBA8 frames, not ") +
                           to_string(format));
  const cudaChannelFormatDesc desc = format == PixelFormat::R32F ? cudaCreateChannelDesc<float>()
                                     : format == PixelFormat::RGBA32F
                                         ? cudaCreateChannelDesc<float4>()
                                         : cudaCreateChannelDesc<uchar4>();
  CUDA_CHECK(cudaMallocArray(&d.array, &desc, std::size_t(width), std::size_t(height),
                             cudaArraySurfaceLoadStore));
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = d.array;
  CUDA_CHECK(cudaCreateSurfaceObject(&d.surface, &res));
}

DeviceFrame::~DeviceFrame() {
  Impl& d = *impl_;
  if (d.surface) cudaDestroySurfaceObject(d.surface);
  if (d.array) cudaFreeArray(d.array);
  if (d.ptr) cudaFree(d.ptr);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    std::fprintf(stderr, "rf: freeing a DeviceFrame: %s\n", cudaGetErrorName(err));
}

void DeviceFrame::upload(const void* host, std::size_t pitch) {
  const Impl& d = *impl_;
  const std::size_t hp = pitch ? pitch : d.row_bytes();
  if (d.array)
    CUDA_CHECK(cudaMemcpy2DToArray(d.array, 0, 0, host, hp, d.row_bytes(), std::size_t(d.height),
                                   cudaMemcpyHostToDevice));
  else
    CUDA_CHECK(cudaMemcpy2D(d.ptr, d.pitch, host, hp, d.row_bytes(), std::size_t(d.height),
                            cudaMemcpyHostToDevice));
}

void DeviceFrame::download(void* host, std::size_t pitch) const {
  const Impl& d = *impl_;
  const std::size_t hp = pitch ? pitch : d.row_bytes();
  CUDA_CHECK(cudaDeviceSynchronize());
  if (d.array)
    CUDA_CHECK(cudaMemcpy2DFromArray(host, hp, d.array, 0, 0, d.row_bytes(), std::size_t(d.height),
                                     cudaMemcpyDeviceToHost));
  else
    CUDA_CHECK(cudaMemcpy2D(host, hp, d.ptr, d.pitch, d.row_bytes(), std::size_t(d.height),
                            cudaMemcpyDeviceToHost));
}

void DeviceFrame::poison() {
  const Impl& d = *impl_;
  if (d.array) {
    const std::vector<unsigned char> ones(d.row_bytes() * std::size_t(d.height), 0xFF);
    CUDA_CHECK(cudaMemcpy2DToArray(d.array, 0, 0, ones.data(), d.row_bytes(), d.row_bytes(),
                                   std::size_t(d.height), cudaMemcpyHostToDevice));
  } else {
    CUDA_CHECK(cudaMemset2D(d.ptr, d.pitch, 0xFF, d.row_bytes(), std::size_t(d.height)));
  }
}

FrameView DeviceFrame::view() const {
  const Impl& d = *impl_;
  FrameView v;
  v.width = d.width;
  v.height = d.height;
  v.format = d.format;
  v.space = d.space;
  v.data = d.ptr;
  v.pitch = d.pitch;
  v.surface = d.surface;
  return v;
}

void synchronize(void* stream) {
  CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

int current_device() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

int pointer_device(const void* p) {
  cudaPointerAttributes attr{};
  CUDA_CHECK(cudaPointerGetAttributes(&attr, p));
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ? attr.device : -1;
}

}  // namespace rf::cuda

namespace rf::cuda {
namespace {

// One thread per float of a frame row: o * inner + i of row j (blockIdx.y).
template <bool Gather>
__global__ void axis_kernel(const float* src, float* dst, std::size_t pitch, std::int64_t outer,
                            int n, std::int64_t inner, int j0) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= outer * inner) return;
  const int j = j0 + int(blockIdx.y);
  const std::int64_t o = k / inner, i = k - o * inner;
  const std::size_t array_index = std::size_t((o * n + j) * inner + i);
  if constexpr (Gather)
    reinterpret_cast<float*>(reinterpret_cast<char*>(dst) + std::size_t(j) * pitch)[k] =
        src[array_index];
  else
    dst[array_index] = reinterpret_cast<const float*>(reinterpret_cast<const char*>(src) +
                                                      std::size_t(j) * pitch)[k];
}

template <bool Gather>
void launch_axis(const float* src, float* dst, std::size_t pitch, std::int64_t outer, int n,
                 std::int64_t inner, void* stream) {
  const std::int64_t row = outer * inner;
  // Rows in launches of at most 65535 (the grid's y limit).
  for (int j0 = 0; j0 < n; j0 += 65535) {
    const dim3 grid(unsigned((row + 255) / 256), unsigned(std::min(65535, n - j0)));
    axis_kernel<Gather>
        <<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(src, dst, pitch, outer, n, inner, j0);
    CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

void gather_axis(const float* src, float* frame, std::size_t frame_pitch, std::int64_t outer, int n,
                 std::int64_t inner, void* stream) {
  launch_axis<true>(src, frame, frame_pitch, outer, n, inner, stream);
}

void scatter_axis(const float* frame, std::size_t frame_pitch, float* dst, std::int64_t outer,
                  int n, std::int64_t inner, void* stream) {
  launch_axis<false>(frame, dst, frame_pitch, outer, n, inner, stream);
}

void copy_on_device(const float* src, float* dst, std::size_t count, void* stream) {
  CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(float), cudaMemcpyDeviceToDevice,
                             static_cast<cudaStream_t>(stream)));
}

}  // namespace rf::cuda
