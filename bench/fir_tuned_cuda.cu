// The tuned separable FIR Gaussian (fir_tuned_cuda.h): device helpers, the row, column and fused
// kernels, then the host plan.
//
// Every kernel shares one inner loop, fir8: a thread holds eight accumulators for eight
// consecutive outputs and walks its window of 8 + 2 radius input samples four at a time. The tap
// that window sample j contributes to output i is u[j - i + 8], where u is the tap array shifted
// by the window's alignment slack d (u[n] = g[n - 8 - d], zero outside the kernel): for the four
// samples of one step, the taps needed are u[4m + 1 .. 4m + 11], held in three float4 registers
// that slide by one float4 per step. Each step is one 16-byte shared load of samples (or four
// 4-byte loads down a column), one broadcast 16-byte load of taps and 32 FMAs.
#include "bench/fir_tuned_cuda.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/device_buffer.cuh"
#include "filters/core/errors.h"

namespace rf::bench {

using cuda::DeviceBuffer;

namespace {

constexpr int kThreads = 256;
constexpr int kOut = 8;  // outputs per thread and window
// Row pass: 4 rows x 512 columns per CTA; each warp computes 256 outputs of one row.
constexpr int kRowTileRows = 4;
constexpr int kRowTileCols = 512;
// Column pass: 32 columns x 256 rows per CTA; a lane per column, each warp 32 rows (4 windows).
constexpr int kColTileCols = 32;
constexpr int kColTileRows = 256;
// Fused: 64 x 64 outputs per CTA.
constexpr int kFusedTile = 64;

__host__ __device__ constexpr int round_up4(int n) {
  return (n + 3) & ~3;
}
__host__ __device__ constexpr int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}
// Rows of a tile read by 16-byte windows whose starts are 32 bytes apart across a quarter warp:
// 4 floats of padding after every 32 spread those reads over all 32 banks.
__host__ __device__ constexpr int skew(int p) {
  return p + ((p >> 5) << 2);
}
__host__ __device__ constexpr int skewed_length(int n) {
  return round_up4(skew(n - 1) + 1);
}

// What the kernels need of a plan.
struct FirArgs {
  int w, h;
  int radius;
  int ra;  // radius rounded up to a multiple of 4: row tiles start 16-byte aligned
  Extension ext;
  int chunks_row;  // steps of 4 samples per window along rows: 2 + ra / 2
  int chunks_col;  // along columns: 2 + ceil(radius / 2)
  int halo_rows;   // rows above and below a column tile, rounded: 4 ceil(radius / 2)
  const float* u_row;
  const float* u_col;
  int u_row_len, u_col_len;  // multiples of 4
};

__device__ __forceinline__ const float* row_of(const float* p, std::size_t pitch, int y) {
  return reinterpret_cast<const float*>(reinterpret_cast<const char*>(p) + std::size_t(y) * pitch);
}
__device__ __forceinline__ float* row_of(float* p, std::size_t pitch, int y) {
  return reinterpret_cast<float*>(reinterpret_cast<char*>(p) + std::size_t(y) * pitch);
}

// Samples x .. x + 3 of a row extended by `ext`; one 16-byte load where the four lie inside an
// aligned row.
__device__ __forceinline__ float4 load4_extended(const float* row, int x, int w, Extension ext,
                                                 bool aligned) {
  if (aligned && x >= 0 && x + 3 < w) return __ldg(reinterpret_cast<const float4*>(row + x));
  float v[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const int j = extend_index(x + e, w, ext);
    v[e] = j < 0 ? 0.f : __ldg(row + j);
  }
  return make_float4(v[0], v[1], v[2], v[3]);
}

// Samples x .. x + 3 of a row, zero beyond its end (columns no output reads).
__device__ __forceinline__ float4 load4_bounded(const float* row, int x, int w, bool aligned) {
  if (aligned && x + 3 < w) return __ldg(reinterpret_cast<const float4*>(row + x));
  float v[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) v[e] = x + e < w ? __ldg(row + x + e) : 0.f;
  return make_float4(v[0], v[1], v[2], v[3]);
}

// Outputs x .. x + 7 of a row, those inside it.
__device__ __forceinline__ void store8(float* row, int x, int w, const float (&acc)[kOut],
                                       bool aligned) {
  if (aligned && x + 7 < w) {
    reinterpret_cast<float4*>(row + x)[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
    reinterpret_cast<float4*>(row + x)[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
    return;
  }
#pragma unroll
  for (int i = 0; i < kOut; ++i)
    if (x + i < w) row[x + i] = acc[i];
}

__device__ __forceinline__ void copy_taps(float* dst, const float* src, int len) {
  for (int i = threadIdx.x; i < len / 4; i += blockDim.x)
    reinterpret_cast<float4*>(dst)[i] = __ldg(reinterpret_cast<const float4*>(src) + i);
}

// Eight outputs from `chunks` steps of four window samples (load4(m): samples 4m .. 4m + 3);
// u: the shifted taps in shared memory (see the file comment).
template <class Load4>
__device__ __forceinline__ void fir8(const Load4& load4, int chunks, const float* u,
                                     float (&acc)[kOut]) {
  float4 t0 = *reinterpret_cast<const float4*>(u);
  float4 t1 = *reinterpret_cast<const float4*>(u + 4);
  float4 t2 = *reinterpret_cast<const float4*>(u + 8);
  // Unrolled by three, the period of the taps' rotation, so that it costs no register moves.
#pragma unroll 3
  for (int m = 0; m < chunks; ++m) {
    const float4 v = load4(m);
    const float x[4] = {v.x, v.y, v.z, v.w};
    const float t[12] = {t0.x, t0.y, t0.z, t0.w, t1.x, t1.y, t1.z, t1.w, t2.x, t2.y, t2.z, t2.w};
#pragma unroll
    for (int e = 0; e < 4; ++e)
#pragma unroll
      for (int i = 0; i < kOut; ++i) acc[i] = fmaf(t[e - i + 8], x[e], acc[i]);
    t0 = t1;
    t1 = t2;
    t2 = *reinterpret_cast<const float4*>(u + 4 * m + 12);
  }
}

// Rows: a tile of kRowTileRows x (kRowTileCols + 2 ra) samples in shared memory, starting at
// column x0 - ra (16-byte aligned), filtered into out.
__global__ void __launch_bounds__(kThreads)
    fir_rows_kernel(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                    FirArgs a, bool in_aligned, bool out_aligned) {
  extern __shared__ float4 smem4[];
  float* u = reinterpret_cast<float*>(smem4);
  float* tile = u + a.u_row_len;
  const int length = kRowTileCols + 2 * a.ra;
  const int ls = skewed_length(length);
  const int x0 = blockIdx.x * kRowTileCols, y0 = blockIdx.y * kRowTileRows;
  copy_taps(u, a.u_row, a.u_row_len);
  const int per_row = length / 4;
  for (int c = threadIdx.x; c < kRowTileRows * per_row; c += kThreads) {
    const int r = c / per_row, q = 4 * (c - r * per_row);
    const int y = y0 + r;
    const float4 v =
        y < a.h ? load4_extended(row_of(in, in_pitch, y), x0 - a.ra + q, a.w, a.ext, in_aligned)
                : make_float4(0.f, 0.f, 0.f, 0.f);
    *reinterpret_cast<float4*>(tile + r * ls + skew(q)) = v;
  }
  __syncthreads();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int r = warp >> 1;
  const int q0 = (warp & 1) * (kRowTileCols / 2) + lane * kOut;
  const int y = y0 + r, x = x0 + q0;
  if (y >= a.h || x >= a.w) return;
  const float* trow = tile + r * ls;
  float acc[kOut] = {};
  fir8([&](int m) { return *reinterpret_cast<const float4*>(trow + skew(q0 + 4 * m)); },
       a.chunks_row, u, acc);
  store8(row_of(out, out_pitch, y), x, a.w, acc, out_aligned);
}

// Columns: a tile of (kColTileRows + halo_rows) x kColTileCols samples starting at row y0 -
// radius, each lane filtering one column through four windows of eight outputs.
__global__ void __launch_bounds__(kThreads)
    fir_columns_kernel(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                       FirArgs a, bool in_aligned) {
  extern __shared__ float4 smem4[];
  float* u = reinterpret_cast<float*>(smem4);
  float* tile = u + a.u_col_len;
  const int rows = kColTileRows + a.halo_rows;
  const int x0 = blockIdx.x * kColTileCols, y0 = blockIdx.y * kColTileRows;
  copy_taps(u, a.u_col, a.u_col_len);
  for (int c = threadIdx.x; c < rows * (kColTileCols / 4); c += kThreads) {
    const int r = c / (kColTileCols / 4), q = 4 * (c % (kColTileCols / 4));
    const int y = extend_index(y0 - a.radius + r, a.h, a.ext);
    const float4 v = y >= 0 ? load4_bounded(row_of(in, in_pitch, y), x0 + q, a.w, in_aligned)
                            : make_float4(0.f, 0.f, 0.f, 0.f);
    *reinterpret_cast<float4*>(tile + r * kColTileCols + q) = v;
  }
  __syncthreads();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int x = x0 + lane;
  constexpr int kWindowsPerWarp = kColTileRows / (kThreads / 32) / kOut;
#pragma unroll 1
  for (int g = 0; g < kWindowsPerWarp; ++g) {
    const int q0 = (warp * kWindowsPerWarp + g) * kOut;
    if (y0 + q0 >= a.h) break;
    const float* col = tile + q0 * kColTileCols + lane;
    float acc[kOut] = {};
    fir8(
        [&](int m) {
          const float* p = col + 4 * m * kColTileCols;
          return make_float4(p[0], p[kColTileCols], p[2 * kColTileCols], p[3 * kColTileCols]);
        },
        a.chunks_col, u, acc);
    if (x < a.w)
#pragma unroll
      for (int i = 0; i < kOut; ++i)
        if (y0 + q0 + i < a.h) row_of(out, out_pitch, y0 + q0 + i)[x] = acc[i];
  }
}

// Fused: the input tile (64 + halo_rows) x (64 + 2 ra) in shared memory, filtered along rows
// into a (64 + halo_rows) x 64 middle tile, then along columns into the 64 x 64 outputs.
__global__ void __launch_bounds__(kThreads)
    fir_fused_kernel(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                     FirArgs a, bool in_aligned) {
  extern __shared__ float4 smem4[];
  float* u_row = reinterpret_cast<float*>(smem4);
  float* u_col = u_row + a.u_row_len;
  const int rows = kFusedTile + a.halo_rows;
  const int cols = kFusedTile + 2 * a.ra;
  const int ls = skewed_length(cols);
  float* tile = u_col + a.u_col_len;
  float* middle = tile + rows * ls;
  const int x0 = blockIdx.x * kFusedTile, y0 = blockIdx.y * kFusedTile;
  copy_taps(u_row, a.u_row, a.u_row_len);
  copy_taps(u_col, a.u_col, a.u_col_len);
  const int per_row = cols / 4;
  for (int c = threadIdx.x; c < rows * per_row; c += kThreads) {
    const int r = c / per_row, q = 4 * (c - r * per_row);
    const int y = extend_index(y0 - a.radius + r, a.h, a.ext);
    const float4 v =
        y >= 0 ? load4_extended(row_of(in, in_pitch, y), x0 - a.ra + q, a.w, a.ext, in_aligned)
               : make_float4(0.f, 0.f, 0.f, 0.f);
    *reinterpret_cast<float4*>(tile + r * ls + skew(q)) = v;
  }
  __syncthreads();
  // Rows: a quarter warp takes the eight windows of one row.
  for (int unit = threadIdx.x; unit < rows * (kFusedTile / kOut); unit += kThreads) {
    const int r = unit / (kFusedTile / kOut), q0 = (unit % (kFusedTile / kOut)) * kOut;
    const float* trow = tile + r * ls;
    float acc[kOut] = {};
    fir8([&](int m) { return *reinterpret_cast<const float4*>(trow + skew(q0 + 4 * m)); },
         a.chunks_row, u_row, acc);
    float4* dst = reinterpret_cast<float4*>(middle + r * kFusedTile + q0);
    dst[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
    dst[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
  }
  __syncthreads();
  // Columns: a thread per column and 16 rows (two windows).
  const int c = threadIdx.x % kFusedTile;
  const int band = threadIdx.x / kFusedTile;
  constexpr int kBandRows = kFusedTile / (kThreads / kFusedTile);
  const int x = x0 + c;
#pragma unroll 1
  for (int g = 0; g < kBandRows / kOut; ++g) {
    const int q0 = band * kBandRows + g * kOut;
    if (y0 + q0 >= a.h) break;
    const float* col = middle + q0 * kFusedTile + c;
    float acc[kOut] = {};
    fir8(
        [&](int m) {
          const float* p = col + 4 * m * kFusedTile;
          return make_float4(p[0], p[kFusedTile], p[2 * kFusedTile], p[3 * kFusedTile]);
        },
        a.chunks_col, u_col, acc);
    if (x < a.w)
#pragma unroll
      for (int i = 0; i < kOut; ++i)
        if (y0 + q0 + i < a.h) row_of(out, out_pitch, y0 + q0 + i)[x] = acc[i];
  }
}

bool aligned16(const void* p, std::size_t pitch) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && pitch % 16 == 0;
}

// u[n] = g[n - 8 - d] for n in [0, len), zero outside the kernel (see the file comment).
std::vector<float> shifted_taps(const std::vector<float>& g, int d, int chunks) {
  std::vector<float> u(std::size_t(4 * chunks + 12), 0.f);
  for (std::size_t n = 0; n < u.size(); ++n) {
    const long k = long(n) - 8 - d;
    if (k >= 0 && k < long(g.size())) u[n] = g[std::size_t(k)];
  }
  return u;
}

// The sampled Gaussian on -radius..radius, normalised to unit sum in double, rounded to float.
std::vector<float> gaussian_taps(double sigma, int radius) {
  std::vector<double> g(std::size_t(2 * radius + 1));
  double sum = 0.0;
  for (int k = -radius; k <= radius; ++k)
    sum += g[std::size_t(k + radius)] = std::exp(-0.5 * k * k / (sigma * sigma));
  std::vector<float> taps(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) taps[i] = float(g[i] / sum);
  return taps;
}

// Lets kernel `fn` launch with `bytes` of dynamic shared memory; throws InvalidParameter when the
// device has less. The kernel's limit is raised, never lowered: another plan may launch it with
// more.
void fit_shared_memory(const void* fn, std::size_t bytes, const char* what, int radius) {
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (bytes > std::size_t(optin))
    throw InvalidParameter(std::string("FIR radius ") + std::to_string(radius) + ": the " + what +
                           " needs " + std::to_string(bytes / 1024) +
                           " KiB of shared memory, the device has " + std::to_string(optin / 1024));
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, fn));
  if (int(bytes) > attributes.maxDynamicSharedSizeBytes)
    CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

}  // namespace

struct FirTuned::Impl {
  FirArgs args{};
  FirTunedKernel kernel = FirTunedKernel::Auto;
  DeviceBuffer taps;  // u_row then u_col
  DeviceBuffer tmp;   // the row pass's result (TwoPass)
  std::size_t rows_smem = 0, columns_smem = 0, fused_smem = 0;
  bool planned = false;

  // The frame, the radius and the tiles' chunks and halo.
  void set_geometry(int width, int height, int radius, Extension ext) {
    FirArgs& a = args;
    a.w = width;
    a.h = height;
    a.radius = radius;
    a.ra = round_up4(radius);
    a.ext = ext == Extension::Ignore ? Extension::Zero : ext;
    a.chunks_row = 2 + a.ra / 2;
    a.chunks_col = 2 + ceil_div(radius, 2);
    a.halo_rows = 4 * ceil_div(radius, 2);
  }

  // The shifted taps of the row and column passes, on the device.
  void upload_taps(const std::vector<float>& g) {
    FirArgs& a = args;
    const std::vector<float> u_row = shifted_taps(g, a.ra - a.radius, a.chunks_row);
    const std::vector<float> u_col = shifted_taps(g, 0, a.chunks_col);
    a.u_row_len = int(u_row.size());
    a.u_col_len = int(u_col.size());
    taps.allocate((u_row.size() + u_col.size()) * sizeof(float));
    CUDA_CHECK(
        cudaMemcpy(taps.ptr, u_row.data(), u_row.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(taps.f() + u_row.size(), u_col.data(), u_col.size() * sizeof(float),
                          cudaMemcpyHostToDevice));
    a.u_row = taps.f();
    a.u_col = taps.f() + u_row.size();
  }

  // The shared memory of the chosen kernel's tiles, and the row pass's buffer for TwoPass.
  void reserve_memory() {
    const FirArgs& a = args;
    if (kernel == FirTunedKernel::Fused) {
      const int rows = kFusedTile + a.halo_rows;
      fused_smem = sizeof(float) * (std::size_t(a.u_row_len) + a.u_col_len +
                                    std::size_t(rows) * skewed_length(kFusedTile + 2 * a.ra) +
                                    std::size_t(rows) * kFusedTile);
      fit_shared_memory(reinterpret_cast<const void*>(fir_fused_kernel), fused_smem, "fused tile",
                        a.radius);
      tmp.reset();
      return;
    }
    rows_smem =
        sizeof(float) * (std::size_t(a.u_row_len) +
                         std::size_t(kRowTileRows) * skewed_length(kRowTileCols + 2 * a.ra));
    columns_smem = sizeof(float) * (std::size_t(a.u_col_len) +
                                    std::size_t(kColTileRows + a.halo_rows) * kColTileCols);
    fit_shared_memory(reinterpret_cast<const void*>(fir_rows_kernel), rows_smem, "row tile",
                      a.radius);
    fit_shared_memory(reinterpret_cast<const void*>(fir_columns_kernel), columns_smem,
                      "column tile", a.radius);
    tmp.allocate_pitched(std::size_t(a.w) * sizeof(float), std::size_t(a.h));
  }
};

FirTuned::FirTuned() : impl_(std::make_unique<Impl>()) {}
FirTuned::~FirTuned() = default;

FirTunedKernel FirTuned::kernel() const {
  return impl_->kernel;
}

void FirTuned::plan(double sigma, int radius, Extension ext, int width, int height,
                    FirTunedKernel kernel) {
  if (!(sigma > 0.0) || !std::isfinite(sigma))
    throw InvalidParameter("sigma must be a finite number > 0");
  if (width <= 0 || height <= 0) throw InvalidParameter("image size must be positive");
  if (radius < 0) throw InvalidParameter("FIR radius must be >= 0");
  if (kernel == FirTunedKernel::Fused && radius > kFirFusedMaxRadius)
    throw InvalidParameter("the fused FIR kernel takes radii up to " +
                           std::to_string(kFirFusedMaxRadius) + " (got " + std::to_string(radius) +
                           ")");
  Impl& d = *impl_;
  d.planned = false;
  d.kernel = kernel != FirTunedKernel::Auto  ? kernel
             : radius <= kFirFusedAutoRadius ? FirTunedKernel::Fused
                                             : FirTunedKernel::TwoPass;
  d.set_geometry(width, height, radius, ext);
  d.upload_taps(gaussian_taps(sigma, radius));
  d.reserve_memory();
  d.planned = true;
}

void FirTuned::run(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                   void* stream_handle) {
  Impl& d = *impl_;
  if (!d.planned) throw std::logic_error("FirTuned::run before plan");
  const FirArgs& a = d.args;
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  const std::size_t packed = std::size_t(a.w) * sizeof(float);
  in_pitch = in_pitch ? in_pitch : packed;
  out_pitch = out_pitch ? out_pitch : packed;
  if (d.kernel == FirTunedKernel::Fused) {
    if (in == out) throw InvalidParameter("the fused FIR kernel cannot filter in place");
    const dim3 grid(ceil_div(a.w, kFusedTile), ceil_div(a.h, kFusedTile));
    fir_fused_kernel<<<grid, kThreads, d.fused_smem, stream>>>(in, in_pitch, out, out_pitch, a,
                                                               aligned16(in, in_pitch));
    CUDA_CHECK_LAUNCH();
    return;
  }
  const dim3 rows_grid(ceil_div(a.w, kRowTileCols), ceil_div(a.h, kRowTileRows));
  fir_rows_kernel<<<rows_grid, kThreads, d.rows_smem, stream>>>(
      in, in_pitch, d.tmp.f(), d.tmp.pitch, a, aligned16(in, in_pitch), true);
  CUDA_CHECK_LAUNCH();
  const dim3 columns_grid(ceil_div(a.w, kColTileCols), ceil_div(a.h, kColTileRows));
  fir_columns_kernel<<<columns_grid, kThreads, d.columns_smem, stream>>>(d.tmp.f(), d.tmp.pitch,
                                                                         out, out_pitch, a, true);
  CUDA_CHECK_LAUNCH();
}

Image fir_tuned(const Image& in, double sigma, int radius, Extension ext, FirTunedKernel kernel) {
  if (in.channels != 1) throw InvalidParameter("fir_tuned: one-channel images only");
  FirTuned fir;
  fir.plan(sigma, radius, ext, in.width, in.height, kernel);
  const std::size_t bytes = in.pixels.size() * sizeof(float);
  DeviceBuffer src, dst;
  src.allocate(bytes);
  dst.allocate(bytes);
  CUDA_CHECK(cudaMemcpy(src.ptr, in.pixels.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dst.ptr, 0xFF, bytes));
  fir.run(src.f(), 0, dst.f(), 0, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  Image out(in.width, in.height, 1);
  CUDA_CHECK(cudaMemcpy(out.pixels.data(), dst.ptr, bytes, cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace rf::bench
