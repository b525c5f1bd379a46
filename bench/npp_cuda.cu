// NPP's separable Gaussian through dlopen. The toolkits of CI and of developer machines ship no
// NPP headers or libraries, so the few types and entry points used here are declared from NPP
// 13's public headers (nppdefs.h, nppi_filtering_functions.h) and checked by static_assert where
// their layout matters; a wrong declaration shows as a large error in the benchmark's check
// against the FIR ground truth and in the CUDA tests.
#include "bench/npp_cuda.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cmath>
#include <cstddef>
#include <mutex>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/device_buffer.cuh"
#include "filters/core/errors.h"

namespace rf::bench {

using cuda::DeviceBuffer;

namespace {

// nppdefs.h: NppiSize and NppiPoint are two ints each, passed by value.
struct NppiSizeAbi {
  int width;
  int height;
};
struct NppiPointAbi {
  int x;
  int y;
};

// nppdefs.h's NppStreamContext, filled by the application. NPP 13 dropped nppGetStreamContext,
// so its fields come from cudaGetDeviceProperties and cudaStreamGetFlags.
struct NppStreamContextAbi {
  cudaStream_t hStream;
  int nCudaDeviceId;
  int nMultiProcessorCount;
  int nMaxThreadsPerMultiProcessor;
  int nMaxThreadsPerBlock;
  std::size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor;
  int nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  int nReserved0;
};
static_assert(sizeof(NppStreamContextAbi) == 48, "NppStreamContext is 48 bytes on LP64");
static_assert(offsetof(NppStreamContextAbi, nSharedMemPerBlock) == 24, "NppStreamContext layout");
static_assert(offsetof(NppStreamContextAbi, nStreamFlags) == 40, "NppStreamContext layout");

struct NppLibraryVersionAbi {
  int major;
  int minor;
  int build;
};

// NppiBorderType: NPP_BORDER_REPLICATE repeats the edge sample (GL_CLAMP_TO_EDGE).
constexpr int kNppBorderReplicate = 2;

// NppStatus is an int enum: 0 success, < 0 error, > 0 warning.
using FilterBorder32fFn = int (*)(const float* src, int src_step, NppiSizeAbi src_size,
                                  NppiPointAbi src_offset, float* dst, int dst_step,
                                  NppiSizeAbi roi, const float* kernel, int mask_size, int anchor,
                                  int border, NppStreamContextAbi ctx);

struct NppApi {
  void* core = nullptr;
  void* filtering = nullptr;
  std::string error;
  std::string library;
  std::string version;
  FilterBorder32fFn row = nullptr;
  FilterBorder32fFn column = nullptr;
};

const NppApi& npp_api() {
  static NppApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    // libnppif needs libnppc: open it first, globally, from the same place.
    std::string first_error;  // the most telling: the versioned name on the search path
    for (const char* dir :
         {"", "/usr/local/cuda/lib64/", "/usr/local/cuda/targets/x86_64-linux/lib/"}) {
      for (const char* suffix : {".so.13", ".so"}) {
        const std::string core = std::string(dir) + "libnppc" + suffix;
        const std::string filtering = std::string(dir) + "libnppif" + suffix;
        void* c = dlopen(core.c_str(), RTLD_NOW | RTLD_GLOBAL);
        void* f = c ? dlopen(filtering.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
        if (c && f) {
          api.core = c;
          api.filtering = f;
          api.library = filtering;
          break;
        }
        const char* e = dlerror();
        if (e && first_error.empty()) first_error = e;
        if (c) dlclose(c);
      }
      if (api.filtering) break;
    }
    if (!api.filtering) {
      api.error = first_error.empty() ? "libnppif.so.13 not found" : first_error;
      return;
    }
    api.row = reinterpret_cast<FilterBorder32fFn>(
        dlsym(api.filtering, "nppiFilterRowBorder_32f_C1R_Ctx"));
    api.column = reinterpret_cast<FilterBorder32fFn>(
        dlsym(api.filtering, "nppiFilterColumnBorder_32f_C1R_Ctx"));
    if (!api.row || !api.column) {
      api.error = api.library + " lacks nppiFilterRowBorder_32f_C1R_Ctx or its column twin";
      return;
    }
    using VersionFn = const NppLibraryVersionAbi* (*)();
    const auto version = reinterpret_cast<VersionFn>(dlsym(api.core, "nppGetLibVersion"));
    const NppLibraryVersionAbi* v = version ? version() : nullptr;
    api.version = "NPP " +
                  (v ? std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                           std::to_string(v->build)
                     : std::string("(version unknown)")) +
                  " (" + api.library + ")";
  });
  return api;
}

void check_npp(int status, const char* call) {
  if (status < 0)
    throw std::runtime_error(std::string(call) + " returned NPP status " + std::to_string(status));
}

}  // namespace

struct NppGaussian::Impl {
  int width = 0, height = 0, radius = 0;
  DeviceBuffer taps;
  DeviceBuffer tmp;
  NppStreamContextAbi context{};
};

bool NppGaussian::available(std::string* why) {
  const NppApi& api = npp_api();
  if (why) *why = api.error;
  return api.error.empty();
}

std::string NppGaussian::version() {
  return npp_api().version;
}

NppGaussian::NppGaussian(int width, int height, double sigma, int radius)
    : impl_(std::make_unique<Impl>()) {
  std::string why;
  if (!available(&why)) throw BackendUnavailable("NPP unavailable: " + why);
  if (width <= 0 || height <= 0) throw InvalidParameter("image size must be positive");
  if (!(sigma > 0.0) || !std::isfinite(sigma))
    throw InvalidParameter("sigma must be a finite number > 0");
  if (radius < 0) throw InvalidParameter("FIR radius must be >= 0");
  Impl& d = *impl_;
  d.width = width;
  d.height = height;
  d.radius = radius;
  // NPP reads the kernel reversed; the Gaussian is symmetric, so the order does not matter.
  std::vector<double> g(std::size_t(2 * radius + 1));
  double sum = 0.0;
  for (int k = -radius; k <= radius; ++k)
    sum += g[std::size_t(k + radius)] = std::exp(-0.5 * k * k / (sigma * sigma));
  std::vector<float> taps(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) taps[i] = float(g[i] / sum);
  d.taps.allocate(taps.size() * sizeof(float));
  CUDA_CHECK(
      cudaMemcpy(d.taps.ptr, taps.data(), taps.size() * sizeof(float), cudaMemcpyHostToDevice));
  d.tmp.allocate_pitched(std::size_t(width) * sizeof(float), std::size_t(height));

  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  d.context.nCudaDeviceId = device;
  d.context.nMultiProcessorCount = prop.multiProcessorCount;
  d.context.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  d.context.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  d.context.nSharedMemPerBlock = prop.sharedMemPerBlock;
  d.context.nCudaDevAttrComputeCapabilityMajor = prop.major;
  d.context.nCudaDevAttrComputeCapabilityMinor = prop.minor;
}

NppGaussian::~NppGaussian() = default;

void NppGaussian::run(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                      void* stream_handle) {
  const NppApi& api = npp_api();
  Impl& d = *impl_;
  const std::size_t packed = std::size_t(d.width) * sizeof(float);
  NppStreamContextAbi ctx = d.context;
  ctx.hStream = static_cast<cudaStream_t>(stream_handle);
  ctx.nStreamFlags = 0;  // the legacy default stream's
  if (ctx.hStream) CUDA_CHECK(cudaStreamGetFlags(ctx.hStream, &ctx.nStreamFlags));
  const NppiSizeAbi size{d.width, d.height};
  const NppiPointAbi origin{0, 0};
  const int mask = 2 * d.radius + 1;
  check_npp(api.row(in, int(in_pitch ? in_pitch : packed), size, origin, d.tmp.f(),
                    int(d.tmp.pitch), size, d.taps.f(), mask, d.radius, kNppBorderReplicate, ctx),
            "nppiFilterRowBorder_32f_C1R_Ctx");
  check_npp(api.column(d.tmp.f(), int(d.tmp.pitch), size, origin, out,
                       int(out_pitch ? out_pitch : packed), size, d.taps.f(), mask, d.radius,
                       kNppBorderReplicate, ctx),
            "nppiFilterColumnBorder_32f_C1R_Ctx");
}

Image npp_gaussian(const Image& in, double sigma, int radius) {
  if (in.channels != 1) throw InvalidParameter("npp_gaussian: one-channel images only");
  NppGaussian npp(in.width, in.height, sigma, radius);
  const std::size_t bytes = in.pixels.size() * sizeof(float);
  DeviceBuffer src, dst;
  src.allocate(bytes);
  dst.allocate(bytes);
  CUDA_CHECK(cudaMemcpy(src.ptr, in.pixels.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dst.ptr, 0xFF, bytes));
  npp.run(src.f(), 0, dst.f(), 0, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  Image out(in.width, in.height, 1);
  CUDA_CHECK(cudaMemcpy(out.pixels.data(), dst.ptr, bytes, cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace rf::bench
