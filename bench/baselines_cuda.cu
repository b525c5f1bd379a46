// cuFFT Gaussian convolution (loaded at run time) and the CUB summed-area table.
#include "bench/baselines_cuda.h"

#include <cuda_runtime.h>
#include <cufft.h>
#include <dlfcn.h>
#include <cub/block/block_scan.cuh>

#include <cmath>
#include <mutex>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/device_buffer.cuh"
#include "filters/core/errors.h"

namespace rf::bench {

using cuda::DeviceBuffer;

namespace {

// ---------------------------------------------------------------------------------------------
// cuFFT through dlopen

struct CufftApi {
  void* lib = nullptr;
  std::string error;
  cufftResult (*plan2d)(cufftHandle*, int, int, cufftType) = nullptr;
  cufftResult (*set_stream)(cufftHandle, cudaStream_t) = nullptr;
  cufftResult (*exec_r2c)(cufftHandle, cufftReal*, cufftComplex*) = nullptr;
  cufftResult (*exec_c2r)(cufftHandle, cufftComplex*, cufftReal*) = nullptr;
  cufftResult (*destroy)(cufftHandle) = nullptr;
};

const CufftApi& cufft_api() {
  static CufftApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    for (const char* name :
         {"libcufft.so.12", "libcufft.so", "/usr/local/cuda/lib64/libcufft.so.12",
          "/usr/local/cuda/lib64/libcufft.so"}) {
      api.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (api.lib) break;
    }
    if (!api.lib) {
      const char* e = dlerror();
      api.error = std::string("libcufft.so.12 not found: ") + (e ? e : "dlopen failed");
      return;
    }
    auto sym = [](const char* s) { return dlsym(api.lib, s); };
    api.plan2d = reinterpret_cast<decltype(api.plan2d)>(sym("cufftPlan2d"));
    api.set_stream = reinterpret_cast<decltype(api.set_stream)>(sym("cufftSetStream"));
    api.exec_r2c = reinterpret_cast<decltype(api.exec_r2c)>(sym("cufftExecR2C"));
    api.exec_c2r = reinterpret_cast<decltype(api.exec_c2r)>(sym("cufftExecC2R"));
    api.destroy = reinterpret_cast<decltype(api.destroy)>(sym("cufftDestroy"));
    if (!api.plan2d || !api.set_stream || !api.exec_r2c || !api.exec_c2r || !api.destroy)
      api.error = "libcufft.so lacks the cufft* entry points";
  });
  return api;
}

void check_cufft(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS)
    throw std::runtime_error(std::string("cuFFT error ") + std::to_string(int(r)) + " in " + what);
}

// Multiplies the half spectrum by the (real) transfer function, scaled by 1 / (w h).
__global__ void scale_spectrum_kernel(cufftComplex* s, const float* gain, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  s[i].x *= gain[i];
  s[i].y *= gain[i];
}

// ---------------------------------------------------------------------------------------------
// CUB summed-area table

constexpr int kScanThreads = 256;
constexpr int kScanItems = 8;

// Running prefix across the tiles of one row for cub::BlockScan.
struct RowPrefix {
  float total;
  __device__ float operator()(float tile_sum) {
    const float before = total;
    total += tile_sum;
    return before;
  }
};

// One CTA per row: inclusive prefix sums of the row, tile by tile.
__global__ void __launch_bounds__(kScanThreads)
    scan_rows_kernel(const float* in, float* out, int w) {
  using Scan = cub::BlockScan<float, kScanThreads>;
  __shared__ typename Scan::TempStorage storage;
  const float* row_in = in + std::size_t(blockIdx.x) * w;
  float* row_out = out + std::size_t(blockIdx.x) * w;
  RowPrefix prefix{0.f};
  for (int base = 0; base < w; base += kScanThreads * kScanItems) {
    float items[kScanItems];
#pragma unroll
    for (int i = 0; i < kScanItems; ++i) {
      const int x = base + threadIdx.x * kScanItems + i;
      items[i] = x < w ? row_in[x] : 0.f;
    }
    Scan(storage).InclusiveSum(items, items, prefix);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kScanItems; ++i) {
      const int x = base + threadIdx.x * kScanItems + i;
      if (x < w) row_out[x] = items[i];
    }
  }
}

// 32 x 32 tiles through shared memory: out (h x w... transposed) = in^T.
__global__ void transpose_kernel(const float* in, float* out, int w, int h) {
  __shared__ float tile[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {
    const int y = blockIdx.y * 32 + j;
    if (x < w && y < h) tile[j][threadIdx.x] = in[std::size_t(y) * w + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {
    const int oy = blockIdx.x * 32 + j;
    if (ox < h && oy < w) out[std::size_t(oy) * h + ox] = tile[threadIdx.x][j];
  }
}

}  // namespace

struct CufftGaussian::Impl {
  int w = 0, h = 0;
  cufftHandle forward = 0, inverse = 0;
  DeviceBuffer spectrum;  // cufftComplex
  DeviceBuffer gain;      // float
  ~Impl() {
    const CufftApi& api = cufft_api();
    if (forward) api.destroy(forward);
    if (inverse) api.destroy(inverse);
  }
  cufftComplex* spectrum_data() const { return static_cast<cufftComplex*>(spectrum.ptr); }
};

bool CufftGaussian::available(std::string* why) {
  const CufftApi& api = cufft_api();
  if (why) *why = api.error;
  return api.error.empty();
}

CufftGaussian::CufftGaussian(int width, int height, double sigma)
    : impl_(std::make_unique<Impl>()) {
  std::string why;
  if (!available(&why)) throw BackendUnavailable("cuFFT unavailable: " + why);
  const CufftApi& api = cufft_api();
  Impl& d = *impl_;
  d.w = width;
  d.h = height;
  const int half = width / 2 + 1;
  const std::size_t count = std::size_t(height) * half;
  check_cufft(api.plan2d(&d.forward, height, width, CUFFT_R2C), "cufftPlan2d R2C");
  check_cufft(api.plan2d(&d.inverse, height, width, CUFFT_C2R), "cufftPlan2d C2R");
  d.spectrum.allocate(count * sizeof(cufftComplex));
  d.gain.allocate(count * sizeof(float));
  // The DFT of the periodised sampled Gaussian is close to exp(-2 pi^2 sigma^2 f^2) per axis.
  std::vector<float> gain(count);
  const double pi = 3.14159265358979323846;
  for (int v = 0; v < height; ++v) {
    const double fy = double(v <= height / 2 ? v : v - height) / height;
    for (int u = 0; u < half; ++u) {
      const double fx = double(u) / width;
      gain[std::size_t(v) * half + u] =
          float(std::exp(-2.0 * pi * pi * sigma * sigma * (fx * fx + fy * fy)) /
                (double(width) * height));
    }
  }
  CUDA_CHECK(cudaMemcpy(d.gain.ptr, gain.data(), count * sizeof(float), cudaMemcpyHostToDevice));
}

CufftGaussian::~CufftGaussian() = default;

void CufftGaussian::run(const float* in, float* out, void* stream_handle) {
  const CufftApi& api = cufft_api();
  Impl& d = *impl_;
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  check_cufft(api.set_stream(d.forward, stream), "cufftSetStream");
  check_cufft(api.set_stream(d.inverse, stream), "cufftSetStream");
  check_cufft(api.exec_r2c(d.forward, const_cast<float*>(in), d.spectrum_data()), "cufftExecR2C");
  const int count = d.h * (d.w / 2 + 1);
  scale_spectrum_kernel<<<(count + 255) / 256, 256, 0, stream>>>(d.spectrum_data(), d.gain.f(),
                                                                 count);
  CUDA_CHECK_LAUNCH();
  check_cufft(api.exec_c2r(d.inverse, d.spectrum_data(), out), "cufftExecC2R");
}

struct CubSat::Impl {
  int w = 0, h = 0;
  DeviceBuffer rows, transposed;
};

CubSat::CubSat(int width, int height) : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.w = width;
  d.h = height;
  d.rows.allocate(std::size_t(width) * height * sizeof(float));
  d.transposed.allocate(std::size_t(width) * height * sizeof(float));
}

CubSat::~CubSat() = default;

void CubSat::run(const float* in, float* out, void* stream_handle) {
  const Impl& d = *impl_;
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  scan_rows_kernel<<<d.h, kScanThreads, 0, stream>>>(in, d.rows.f(), d.w);
  CUDA_CHECK_LAUNCH();
  transpose_kernel<<<dim3((d.w + 31) / 32, (d.h + 31) / 32), dim3(32, 8), 0, stream>>>(
      d.rows.f(), d.transposed.f(), d.w, d.h);
  CUDA_CHECK_LAUNCH();
  scan_rows_kernel<<<d.w, kScanThreads, 0, stream>>>(d.transposed.f(), out, d.h);
  CUDA_CHECK_LAUNCH();
}

}  // namespace rf::bench
