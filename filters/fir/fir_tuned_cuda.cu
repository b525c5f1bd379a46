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
#include "filters/fir/fir_tuned_cuda.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/cuda_launch.cuh"
#include "filters/core/device_buffer.cuh"
#include "filters/core/errors.h"
#include "filters/core/image.h"

namespace rf {

using cuda::DeviceBuffer;

namespace {

constexpr int kThreads = 256;
constexpr int kOut = 8;  // outputs per thread and window
// Row pass: a warp computes 256 outputs of one row; a CTA of Threads takes Cols columns (512 or
// 256) of as many rows as its warps make: 4 x 512 with 256 threads, 8 x 256, or 4 x 256 with 128
// threads on frames whose tiles of 512 would leave warps or SMs idle; a thread stages Batch of
// the tile's 16-byte loads at a time (4 on frames of at least 12 tiles of 4 x 512 per SM:
// row_tile).
template <int Cols, int Threads, int Batch>
struct RowTile {
  static constexpr int kCols = Cols, kThreads = Threads, kBatch = Batch;
  static constexpr int kWarpsPerRow = Cols / 256;
  static constexpr int kRows = Threads / 32 / kWarpsPerRow;
};
// Column pass: 32 columns x Rows rows per CTA (256, 64 or 32), a lane per column, each warp
// Rows / warps rows: 4 windows of 8 with 256 rows, one with 64 (256 threads) and 32 (128); a
// thread stages four of the tile's loads at a time.
constexpr int kColTileCols = 32;
constexpr int kColBatch = 4;
template <int Rows>
constexpr int kColThreads = Rows == 32 ? 128 : 256;
// Fused: 64 x 64 or, where 64 x 64 tiles would leave SMs idle, 32 x 16 or 32 x 32 outputs per
// CTA of kThreads (fused_shape): a 256^2 frame is 16 tiles of 64 for the device's 132 SMs, 128 of
// 32 x 16. A 32 x 16 tile's rows take one round of its threads at every radius the kernel takes,
// its columns 64 of them.
// Rows of four channels: 2 rows x 256 pixels per CTA, a warp per 64 pixels of a row.
constexpr int kRow4Rows = 2;
constexpr int kRow4Cols = 256;
// Fused, four channels: 32 x 32 pixels per CTA; a middle-tile row of 32 pixels and the padding of
// 4 floats after every 8 pixels.
constexpr int kFused4Tile = 32;
constexpr int kMiddle4 = 4 * kFused4Tile + 4 * (kFused4Tile / 8);

__host__ __device__ constexpr int middle4_offset(int x) {
  return 4 * x + 4 * (x >> 3);
}
// float4s a fused four-channel input row takes: its pixels with one of padding per 8, rounded to
// 4 mod 8.
__host__ __device__ constexpr int fused4_row_float4s(int cols) {
  const int n = cols + cols / 8 + 1;
  return n + ((12 - n % 8) % 8);
}

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
  int radius_y;  // down the columns
  int ra;        // the radius along the rows rounded up to a multiple of 4: row tiles start aligned
  Extension ext;
  float outside;   // the value beyond the image (Constant; 0 for Zero)
  int chunks_row;  // steps of 4 samples per window along rows: 2 + ra / 2
  int chunks_col;  // along columns: 2 + ceil(radius_y / 2)
  int halo_rows;   // rows above and below a column tile, rounded: 4 ceil(radius_y / 2)
  const float* u_row;
  const float* u_col;
  int u_row_len, u_col_len;  // multiples of 4
};

template <class T>
__device__ __forceinline__ const T* row_of(const T* p, std::size_t pitch, int y) {
  return reinterpret_cast<const T*>(reinterpret_cast<const char*>(p) + std::size_t(y) * pitch);
}
template <class T>
__device__ __forceinline__ T* row_of(T* p, std::size_t pitch, int y) {
  return reinterpret_cast<T*>(reinterpret_cast<char*>(p) + std::size_t(y) * pitch);
}

// Samples x .. x + 3 of a row extended by `ext` (`outside` where it holds no sample); one 16-byte
// load where the four lie inside an aligned row.
__device__ __forceinline__ float4 load4_extended(const float* row, int x, int w, Extension ext,
                                                 float outside, bool aligned) {
  if (aligned && x >= 0 && x + 3 < w) return __ldg(reinterpret_cast<const float4*>(row + x));
  float v[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const int j = extend_index(x + e, w, ext);
    v[e] = j < 0 ? outside : __ldg(row + j);
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

__device__ __forceinline__ void store_sample(float* out, std::size_t pitch, int x, int y, float v) {
  row_of(out, pitch, y)[x] = v;
}
__device__ __forceinline__ void store_sample(std::uint8_t* out, std::size_t pitch, int x, int y,
                                             float v) {
  (reinterpret_cast<std::uint8_t*>(reinterpret_cast<char*>(out) + std::size_t(y) * pitch))[x] =
      to_unorm8(v);
}

__device__ __forceinline__ float4 load_pixel(const float4* p) {
  return __ldg(p);
}
__device__ __forceinline__ float4 load_pixel(const uchar4* p) {
  const uchar4 v = __ldg(p);
  return make_float4(from_unorm8(v.x), from_unorm8(v.y), from_unorm8(v.z), from_unorm8(v.w));
}

__device__ __forceinline__ void copy_taps(float* dst, const float* src, int len) {
  for (int i = threadIdx.x; i < len / 4; i += blockDim.x)
    reinterpret_cast<float4*>(dst)[i] = __ldg(reinterpret_cast<const float4*>(src) + i);
}

// Items 0 .. n - 1 of a tile staged by the CTA's Threads threads, Batch items a thread at a time:
// every load of a batch is issued before its first store, so a thread waits for one memory
// latency per batch, not per item.
template <int Threads, int Batch, class Load, class Store>
__device__ __forceinline__ void stage(int n, const Load& load, const Store& store) {
  for (int c0 = threadIdx.x; c0 < n; c0 += Batch * Threads) {
    float4 v[Batch];
#pragma unroll
    for (int k = 0; k < Batch; ++k)
      if (c0 + k * Threads < n) v[k] = load(c0 + k * Threads);
#pragma unroll
    for (int k = 0; k < Batch; ++k)
      if (c0 + k * Threads < n) store(c0 + k * Threads, v[k]);
  }
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

// Rows: a tile of Tile::kRows x (Tile::kCols + 2 ra) samples in shared memory, starting at
// column x0 - ra (16-byte aligned), filtered into out.
template <class Tile>
__global__ void __launch_bounds__(Tile::kThreads)
    fir_rows_kernel(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                    FirArgs a, bool in_aligned, bool out_aligned) {
  extern __shared__ float4 smem4[];
  float* u = reinterpret_cast<float*>(smem4);
  float* tile = u + a.u_row_len;
  const int length = Tile::kCols + 2 * a.ra;
  const int ls = skewed_length(length);
  const int x0 = blockIdx.x * Tile::kCols, y0 = blockIdx.y * Tile::kRows;
  copy_taps(u, a.u_row, a.u_row_len);
  const int per_row = length / 4;
  stage<Tile::kThreads, Tile::kBatch>(
      Tile::kRows * per_row,
      [&](int c) {
        const int r = c / per_row, q = 4 * (c - r * per_row);
        const int y = y0 + r;
        return y < a.h ? load4_extended(row_of(in, in_pitch, y), x0 - a.ra + q, a.w, a.ext,
                                        a.outside, in_aligned)
                       : make_float4(0.f, 0.f, 0.f, 0.f);
      },
      [&](int c, float4 v) {
        const int r = c / per_row, q = 4 * (c - r * per_row);
        *reinterpret_cast<float4*>(tile + r * ls + skew(q)) = v;
      });
  __syncthreads();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int r = warp / Tile::kWarpsPerRow;
  const int q0 = (warp % Tile::kWarpsPerRow) * 256 + lane * kOut;
  const int y = y0 + r, x = x0 + q0;
  if (y >= a.h || x >= a.w) return;
  const float* trow = tile + r * ls;
  float acc[kOut] = {};
  fir8([&](int m) { return *reinterpret_cast<const float4*>(trow + skew(q0 + 4 * m)); },
       a.chunks_row, u, acc);
  store8(row_of(out, out_pitch, y), x, a.w, acc, out_aligned);
}

// Columns: a tile of (Rows + halo_rows) x kColTileCols samples starting at row y0 - radius_y,
// each lane filtering one column through windows of eight outputs. Launched as the row pass's
// dependent: its taps are loaded before it waits for the rows.
// Out: float, or std::uint8_t for an RGBA8 frame seen as a row of 4 w bytes (to_unorm8).
template <class Out, int Rows>
__global__ void __launch_bounds__(kColThreads<Rows>)
    fir_columns_kernel(const float* in, std::size_t in_pitch, Out* out, std::size_t out_pitch,
                       FirArgs a, bool in_aligned) {
  constexpr int kCtaThreads = kColThreads<Rows>;
  extern __shared__ float4 smem4[];
  float* u = reinterpret_cast<float*>(smem4);
  float* tile = u + a.u_col_len;
  const int rows = Rows + a.halo_rows;
  const int x0 = blockIdx.x * kColTileCols, y0 = blockIdx.y * Rows;
  copy_taps(u, a.u_col, a.u_col_len);
  cuda::wait_for_previous_stage();
  stage<kCtaThreads, kColBatch>(
      rows * (kColTileCols / 4),
      [&](int c) {
        const int r = c / (kColTileCols / 4), q = 4 * (c % (kColTileCols / 4));
        const int y = extend_index(y0 - a.radius_y + r, a.h, a.ext);
        return y >= 0 ? load4_bounded(row_of(in, in_pitch, y), x0 + q, a.w, in_aligned)
                      : make_float4(a.outside, a.outside, a.outside, a.outside);
      },
      [&](int c, float4 v) { reinterpret_cast<float4*>(tile)[c] = v; });
  __syncthreads();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int x = x0 + lane;
  constexpr int kWindowsPerWarp = Rows / (kCtaThreads / 32) / kOut;
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
        if (y0 + q0 + i < a.h) store_sample(out, out_pitch, x, y0 + q0 + i, acc[i]);
  }
}

// Rows of four interleaved channels (RGBA32F or RGBA8 pixels, In = float4 or uchar4): a tile of
// kRow4Rows x (kRow4Cols + 2 ra) pixels as float4 in shared memory, pixel p at float4 index
// p + p / 8 (the padding spreads the eight windows of a warp over all 32 banks); a thread filters
// one channel of eight pixels of one row, reading its window four pixels at a time. The result
// goes to a float row of 4 w samples, as the column pass reads it.
template <class In>
__global__ void __launch_bounds__(kThreads)
    fir_rows4_kernel(const In* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                     FirArgs a) {
  extern __shared__ float4 smem4[];
  float* u = reinterpret_cast<float*>(smem4);
  float4* tile = smem4 + a.u_row_len / 4;
  const int length = kRow4Cols + 2 * a.ra;
  const int ls = length + length / 8 + 1;  // float4s a tile row takes
  const int x0 = blockIdx.x * kRow4Cols, y0 = blockIdx.y * kRow4Rows;
  copy_taps(u, a.u_row, a.u_row_len);
  for (int c = threadIdx.x; c < kRow4Rows * length; c += kThreads) {
    const int r = c / length, q = c - r * length;
    const int y = y0 + r;
    float4 v = make_float4(a.outside, a.outside, a.outside, a.outside);
    if (y < a.h) {
      const int x = extend_index(x0 - a.ra + q, a.w, a.ext);
      if (x >= 0) v = load_pixel(row_of(in, in_pitch, y) + x);
    }
    tile[r * ls + q + q / 8] = v;
  }
  __syncthreads();
  // A warp: eight windows of eight pixels, four channels each (lane = 4 window + channel).
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  constexpr int kWarpsPerRow = kRow4Cols / 64;
  const int r = warp / kWarpsPerRow;
  const int ch = lane & 3;
  const int q0 = (warp % kWarpsPerRow) * 64 + (lane >> 2) * kOut;
  const int y = y0 + r, x = x0 + q0;
  if (y >= a.h || x >= a.w) return;
  const float* trow = reinterpret_cast<const float*>(tile + r * ls) + ch;
  auto sample = [&](int p) { return trow[4 * (p + p / 8)]; };
  float acc[kOut] = {};
  fir8(
      [&](int m) {
        const int p = q0 + 4 * m;
        return make_float4(sample(p), sample(p + 1), sample(p + 2), sample(p + 3));
      },
      a.chunks_row, u, acc);
  float* orow = row_of(out, out_pitch, y);
#pragma unroll
  for (int i = 0; i < kOut; ++i)
    if (x + i < a.w) orow[4 * (x + i) + ch] = acc[i];
}

// Fused: the input tile (TY + halo_rows) x (TX + 2 ra) in shared memory, filtered along rows
// into a (TY + halo_rows) x TX middle tile, then along columns into the TY x TX outputs.
template <int TX, int TY>
__global__ void __launch_bounds__(kThreads)
    fir_fused_kernel(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                     FirArgs a, bool in_aligned) {
  constexpr int kCtaThreads = kThreads;
  extern __shared__ float4 smem4[];
  float* u_row = reinterpret_cast<float*>(smem4);
  float* u_col = u_row + a.u_row_len;
  const int rows = TY + a.halo_rows;
  const int cols = TX + 2 * a.ra;
  const int ls = skewed_length(cols);
  float* tile = u_col + a.u_col_len;
  float* middle = tile + rows * ls;
  const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
  copy_taps(u_row, a.u_row, a.u_row_len);
  copy_taps(u_col, a.u_col, a.u_col_len);
  const int per_row = cols / 4;
  // A load at a time, written out: batched loads cost these tiles 0-7%
  // (docs/bench/fir-small-tiles-h200.json), and the same loop through stage<kCtaThreads, 1> took
  // the 64 x 64 tiles 1.3-3.3% longer at 2048^2, 1920x1080 and 3840x2160 (fir-cleanup-h200.json).
  for (int c = threadIdx.x; c < rows * per_row; c += kCtaThreads) {
    const int r = c / per_row, q = 4 * (c - r * per_row);
    const int y = extend_index(y0 - a.radius_y + r, a.h, a.ext);
    const float4 v = y >= 0 ? load4_extended(row_of(in, in_pitch, y), x0 - a.ra + q, a.w, a.ext,
                                             a.outside, in_aligned)
                            : make_float4(a.outside, a.outside, a.outside, a.outside);
    *reinterpret_cast<float4*>(tile + r * ls + skew(q)) = v;
  }
  __syncthreads();
  // Rows: a quarter warp takes the eight windows of one row.
  for (int unit = threadIdx.x; unit < rows * (TX / kOut); unit += kCtaThreads) {
    const int r = unit / (TX / kOut), q0 = (unit % (TX / kOut)) * kOut;
    const float* trow = tile + r * ls;
    float acc[kOut] = {};
    fir8([&](int m) { return *reinterpret_cast<const float4*>(trow + skew(q0 + 4 * m)); },
         a.chunks_row, u_row, acc);
    float4* dst = reinterpret_cast<float4*>(middle + r * TX + q0);
    dst[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
    dst[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
  }
  __syncthreads();
  // Columns: a thread per column and 16 rows (two windows) of a 64 x 64 tile, 8 (one window, on
  // 64 of the threads) of 32 x 16.
  const int c = threadIdx.x % TX;
  const int band = threadIdx.x / TX;
  constexpr int kBands = std::min(kCtaThreads / TX, TY / kOut);
  constexpr int kBandRows = TY / kBands;
  if constexpr (kBands < kCtaThreads / TX)
    if (band >= kBands) return;
  const int x = x0 + c;
#pragma unroll 1
  for (int g = 0; g < kBandRows / kOut; ++g) {
    const int q0 = band * kBandRows + g * kOut;
    if (y0 + q0 >= a.h) break;
    const float* col = middle + q0 * TX + c;
    float acc[kOut] = {};
    fir8(
        [&](int m) {
          const float* p = col + 4 * m * TX;
          return make_float4(p[0], p[TX], p[2 * TX], p[3 * TX]);
        },
        a.chunks_col, u_col, acc);
    if (x < a.w)
#pragma unroll
      for (int i = 0; i < kOut; ++i)
        if (y0 + q0 + i < a.h) row_of(out, out_pitch, y0 + q0 + i)[x] = acc[i];
  }
}

// Fused, four channels: a 32 x 32 pixel output tile. Its input, (32 + halo_rows) x (32 + 2 ra)
// pixels, sits in shared memory as float4 at index q + q / 8 of each row (rows fused4_row_float4s
// apart, 4 mod 8: a warp's two rows, four windows and four channels fall in distinct banks); the
// rows are filtered into a middle tile of 32 pixels per row, channels interleaved, pixel x at
// float 4 x + 4 (x / 8) + c of its row (kMiddle4 floats); the columns of that into the outputs,
// a thread per channel of a column and eight rows. The frame is read once and written once.
template <class In, class Out>
__global__ void __launch_bounds__(kThreads)
    fir_fused4_kernel(const In* in, std::size_t in_pitch, Out* out, std::size_t out_pitch,
                      FirArgs a) {
  extern __shared__ float4 smem4[];
  float* u_row = reinterpret_cast<float*>(smem4);
  float* u_col = u_row + a.u_row_len;
  const int rows = kFused4Tile + a.halo_rows;
  const int cols = kFused4Tile + 2 * a.ra;
  const int ls = fused4_row_float4s(cols);
  float4* tile = reinterpret_cast<float4*>(u_col + a.u_col_len);
  float* middle = reinterpret_cast<float*>(tile + std::size_t(rows) * ls);
  const int x0 = blockIdx.x * kFused4Tile, y0 = blockIdx.y * kFused4Tile;
  copy_taps(u_row, a.u_row, a.u_row_len);
  copy_taps(u_col, a.u_col, a.u_col_len);
  for (int c = threadIdx.x; c < rows * cols; c += kThreads) {
    const int r = c / cols, q = c - r * cols;
    const int y = extend_index(y0 - a.radius_y + r, a.h, a.ext);
    const int x = extend_index(x0 - a.ra + q, a.w, a.ext);
    const float4 v = y >= 0 && x >= 0 ? load_pixel(row_of(in, in_pitch, y) + x)
                                      : make_float4(a.outside, a.outside, a.outside, a.outside);
    tile[r * ls + q + q / 8] = v;
  }
  __syncthreads();
  // Rows: a unit is a channel of one window of eight pixels of one input row.
  constexpr int kUnitsPerRow = 4 * (kFused4Tile / kOut);
  for (int unit = threadIdx.x; unit < rows * kUnitsPerRow; unit += kThreads) {
    const int r = unit / kUnitsPerRow, k = unit % kUnitsPerRow;
    const int ch = k & 3, q0 = (k >> 2) * kOut;
    const float* trow = reinterpret_cast<const float*>(tile + r * ls) + ch;
    auto sample = [&](int p) { return trow[4 * (p + p / 8)]; };
    float acc[kOut] = {};
    fir8(
        [&](int m) {
          const int p = q0 + 4 * m;
          return make_float4(sample(p), sample(p + 1), sample(p + 2), sample(p + 3));
        },
        a.chunks_row, u_row, acc);
    float* mrow = middle + r * kMiddle4 + ch;
#pragma unroll
    for (int i = 0; i < kOut; ++i) mrow[middle4_offset(q0 + i)] = acc[i];
  }
  __syncthreads();
  // Columns: 128 (pixel, channel) columns, each in four windows of eight rows over two halves of
  // the block.
  const int lane = threadIdx.x % (4 * kFused4Tile);
  const int half = threadIdx.x / (4 * kFused4Tile);
  const int px = lane >> 2, ch = lane & 3;
  const int x = x0 + px;
  const float* col = middle + middle4_offset(px) + ch;
#pragma unroll 1
  for (int g = half; g < kFused4Tile / kOut; g += 2) {
    const int q0 = g * kOut;
    if (y0 + q0 >= a.h) break;
    float acc[kOut] = {};
    fir8(
        [&](int m) {
          const float* p = col + (q0 + 4 * m) * kMiddle4;
          return make_float4(p[0], p[kMiddle4], p[2 * kMiddle4], p[3 * kMiddle4]);
        },
        a.chunks_col, u_col, acc);
    if (x < a.w)
#pragma unroll
      for (int i = 0; i < kOut; ++i)
        if (y0 + q0 + i < a.h) store_sample(out, out_pitch, 4 * x + ch, y0 + q0 + i, acc[i]);
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
  const int optin = cuda::device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  if (bytes > std::size_t(optin))
    throw InvalidParameter(std::string("FIR radius ") + std::to_string(radius) + ": the " + what +
                           " needs " + std::to_string(bytes / 1024) +
                           " KiB of shared memory, the device has " + std::to_string(optin / 1024));
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, fn));
  if (int(bytes) > attributes.maxDynamicSharedSizeBytes)
    CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

// The one-channel fused kernel on a width x height frame at a radius: its output tile and the
// largest radius auto runs it at (H200; docs/bench/fir-two-pass-h200.json,
// fir-tiles-batches-h200.json and fir-small-tiles-h200.json).
// - Tiles of 64 x 64 where they are at least as many as the device's SMs. Auto runs them up to
//   kFirFusedAutoRadius where they make at least two per SM (1920x1080 and up). Below that two
//   passes (their column pass overlapping the row pass, in tiles that fill the SMs) are faster at
//   every radius on a 1024^2 frame (1.9 tiles of 64 per SM).
// - Smaller frames take tiles 32 wide: 16 rows where those make at most one tile per SM (256^2)
//   or up to radius 12, 32 rows beyond (at 512^2 radius 15 and 18 took 1.04-1.07 of their time
//   with 16 rows). Auto runs them up to radius 20 where they make at most one tile per SM, 12
//   beyond (512^2).
struct FusedShape {
  int cols = 64, rows = 64;  // the output tile
  int auto_radius = kFirFusedAutoRadius;
};
FusedShape fused_shape(int width, int height, int radius, int sms) {
  const long long tiles64 = 1LL * ceil_div(width, 64) * ceil_div(height, 64);
  if (tiles64 >= sms) return {64, 64, tiles64 < 2LL * sms ? 0 : kFirFusedAutoRadius};
  const bool one_wave = 1LL * ceil_div(width, 32) * ceil_div(height, 16) <= sms;
  return {32, one_wave || radius <= 12 ? 16 : 32, one_wave ? 20 : 12};
}
template <class F>
void with_fused_tile(const FusedShape& shape, F&& f) {
  if (shape.cols == 64)
    f(fir_fused_kernel<64, 64>);
  else if (shape.rows == 16)
    f(fir_fused_kernel<32, 16>);
  else
    f(fir_fused_kernel<32, 32>);
}

// The row pass's tiles (RowTile), the first that holds: 4 x 512 with batched loads where those
// make at least 12 CTAs per SM, then 4 x 512, 8 x 256 (256 threads) where they make at least as
// many CTAs as the device has SMs, else 4 x 256 (128 threads). The batches took 1-4% off the two
// passes from 2048^2 on and cost them up to 5% at 1024^2 and 1920x1080 (H200,
// docs/bench/fir-tiles-batches-h200.json).
using RowTile512Batched = RowTile<512, 256, 4>;
using RowTile512 = RowTile<512, 256, 1>;
using RowTile256 = RowTile<256, 256, 1>;
using RowTileSmall = RowTile<256, 128, 1>;
enum class RowTileKind { Batched512, Plain512, Rows8x256, Small };
RowTileKind row_tile(int width, int height, int sms) {
  const long long tiles512 = 1LL * ceil_div(width, 512) * ceil_div(height, 4);
  if (width > 256 && tiles512 >= 12LL * sms) return RowTileKind::Batched512;
  if (width > 256 && tiles512 >= sms) return RowTileKind::Plain512;
  if (1LL * ceil_div(width, 256) * ceil_div(height, 8) >= sms) return RowTileKind::Rows8x256;
  return RowTileKind::Small;
}
template <class F>
void with_row_tile(RowTileKind tile, F&& f) {
  switch (tile) {
    case RowTileKind::Batched512:
      return f(RowTile512Batched{});
    case RowTileKind::Plain512:
      return f(RowTile512{});
    case RowTileKind::Rows8x256:
      return f(RowTile256{});
    case RowTileKind::Small:
      return f(RowTileSmall{});
  }
}

// The column pass's rows per CTA for columns of `width` samples: 256, or 64 or 32 where tiles of
// 256 rows would be fewer than the device's SMs.
int column_rows(int width, int height, int sms) {
  for (int rows : {256, 64})
    if (1LL * ceil_div(width, kColTileCols) * ceil_div(height, rows) >= sms) return rows;
  return 32;
}
template <class F>
void with_column_rows(int rows, F&& f) {
  if (rows == 256)
    f(std::integral_constant<int, 256>{});
  else if (rows == 64)
    f(std::integral_constant<int, 64>{});
  else
    f(std::integral_constant<int, 32>{});
}

}  // namespace

struct FirTuned::Impl {
  FirArgs args{};     // the row pass's (and the fused kernel's): w in pixels
  FirArgs columns{};  // the column pass's: w in samples (4 w for four channels)
  int radius_x = 0;
  int channels = 1;
  FirTunedKernel kernel = FirTunedKernel::Auto;
  FusedShape fused;  // one channel: the fused kernel's tile and auto's radius for it
  RowTileKind row_tile = RowTileKind::Plain512;  // one channel, two passes: row_tile()
  int column_rows = 256;                         // two passes: column_rows()
  bool overlap = false;                          // the column pass a programmatic dependent launch
  DeviceBuffer taps;                             // u_row then u_col
  DeviceBuffer tmp;  // the row pass's result (TwoPass), the fused output in place (Fused)
  std::size_t rows_smem = 0, columns_smem = 0, fused_smem = 0;
  bool planned = false;

  // The frame, the radii and the tiles' chunks and halo.
  void set_geometry(int width, int height, int rx, int ry, Extension ext, float outside) {
    FirArgs& a = args;
    a.w = width;
    a.h = height;
    radius_x = rx;
    a.radius_y = ry;
    a.ra = round_up4(rx);
    a.ext = ext == Extension::Ignore ? Extension::Zero : ext;
    a.outside = a.ext == Extension::Constant ? outside : 0.f;
    a.chunks_row = 2 + a.ra / 2;
    a.chunks_col = 2 + ceil_div(ry, 2);
    a.halo_rows = 4 * ceil_div(ry, 2);
  }

  // The shifted taps of the row and column passes, on the device.
  void upload_taps(const std::vector<float>& gx, const std::vector<float>& gy) {
    FirArgs& a = args;
    const std::vector<float> u_row = shifted_taps(gx, a.ra - radius_x, a.chunks_row);
    const std::vector<float> u_col = shifted_taps(gy, 0, a.chunks_col);
    a.u_row_len = int(u_row.size());
    a.u_col_len = int(u_col.size());
    taps.allocate((u_row.size() + u_col.size()) * sizeof(float));
    CUDA_CHECK(
        cudaMemcpy(taps.ptr, u_row.data(), u_row.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(taps.f() + u_row.size(), u_col.data(), u_col.size() * sizeof(float),
                          cudaMemcpyHostToDevice));
    a.u_row = taps.f();
    a.u_col = taps.f() + u_row.size();
    columns = a;
    columns.w = a.w * channels;
  }

  // The shared memory of the chosen kernels' tiles, and the scratch.
  void reserve_memory() {
    const FirArgs& a = args;
    const int radius = std::max(radius_x, a.radius_y);
    tmp.allocate_pitched(std::size_t(a.w) * channels * sizeof(float), std::size_t(a.h));
    if (kernel == FirTunedKernel::Fused && channels == 4) {
      const int rows = kFused4Tile + a.halo_rows;
      fused_smem = sizeof(float) * (std::size_t(a.u_row_len) + a.u_col_len) +
                   sizeof(float4) * std::size_t(rows) * fused4_row_float4s(kFused4Tile + 2 * a.ra) +
                   sizeof(float) * std::size_t(rows) * kMiddle4;
      for (const void* fn :
           {reinterpret_cast<const void*>(fir_fused4_kernel<float4, float>),
            reinterpret_cast<const void*>(fir_fused4_kernel<float4, std::uint8_t>),
            reinterpret_cast<const void*>(fir_fused4_kernel<uchar4, float>),
            reinterpret_cast<const void*>(fir_fused4_kernel<uchar4, std::uint8_t>)})
        fit_shared_memory(fn, fused_smem, "fused tile", radius);
      return;
    }
    if (kernel == FirTunedKernel::Fused) {
      const int tx = fused.cols, rows = fused.rows + a.halo_rows;
      fused_smem = sizeof(float) *
                   (std::size_t(a.u_row_len) + a.u_col_len +
                    std::size_t(rows) * skewed_length(tx + 2 * a.ra) + std::size_t(rows) * tx);
      with_fused_tile(fused, [&](auto fn) {
        fit_shared_memory(reinterpret_cast<const void*>(fn), fused_smem, "fused tile", radius);
      });
      return;
    }
    if (channels == 1) {
      with_row_tile(row_tile, [&](auto tile) {
        using Tile = decltype(tile);
        rows_smem =
            sizeof(float) * (std::size_t(a.u_row_len) +
                             std::size_t(Tile::kRows) * skewed_length(Tile::kCols + 2 * a.ra));
        fit_shared_memory(reinterpret_cast<const void*>(fir_rows_kernel<Tile>), rows_smem,
                          "row tile", radius_x);
      });
    } else {
      const int length = kRow4Cols + 2 * a.ra;
      rows_smem = sizeof(float) * std::size_t(a.u_row_len) +
                  sizeof(float4) * std::size_t(kRow4Rows) * (length + length / 8 + 1);
      fit_shared_memory(reinterpret_cast<const void*>(fir_rows4_kernel<float4>), rows_smem,
                        "row tile", radius_x);
      fit_shared_memory(reinterpret_cast<const void*>(fir_rows4_kernel<uchar4>), rows_smem,
                        "row tile", radius_x);
    }
    with_column_rows(column_rows, [&](auto rows) {
      constexpr int R = decltype(rows)::value;
      columns_smem =
          sizeof(float) * (std::size_t(a.u_col_len) + std::size_t(R + a.halo_rows) * kColTileCols);
      fit_shared_memory(reinterpret_cast<const void*>(fir_columns_kernel<float, R>), columns_smem,
                        "column tile", a.radius_y);
      fit_shared_memory(reinterpret_cast<const void*>(fir_columns_kernel<std::uint8_t, R>),
                        columns_smem, "column tile", a.radius_y);
    });
  }
};

FirTuned::FirTuned() : impl_(std::make_unique<Impl>()) {}
FirTuned::~FirTuned() = default;

FirTunedKernel FirTuned::kernel() const {
  return impl_->kernel;
}

void FirTuned::plan(double sigma_x, int radius_x, double sigma_y, int radius_y, Extension ext,
                    float outside, int width, int height, FirTunedKernel kernel, int channels) {
  for (double sigma : {sigma_x, sigma_y})
    if (!(sigma > 0.0) || !std::isfinite(sigma))
      throw InvalidParameter("sigma must be a finite number > 0");
  if (width <= 0 || height <= 0) throw InvalidParameter("image size must be positive");
  if (radius_x < 0 || radius_y < 0) throw InvalidParameter("FIR radius must be >= 0");
  if (channels != 1 && channels != 4)
    throw InvalidParameter("the tuned FIR takes 1 or 4 channels (got " + std::to_string(channels) +
                           ")");
  const int radius = std::max(radius_x, radius_y);
  if (kernel == FirTunedKernel::Fused && radius > kFirFusedMaxRadius)
    throw InvalidParameter("the fused FIR kernel takes radii up to " +
                           std::to_string(kFirFusedMaxRadius) + " (got " + std::to_string(radius) +
                           ")");
  Impl& d = *impl_;
  d.planned = false;
  d.channels = channels;
  const int sms = cuda::device_attribute(cudaDevAttrMultiProcessorCount);
  d.fused = fused_shape(width, height, radius, sms);
  const int fused_up_to = channels == 1 ? d.fused.auto_radius : kFirFused4AutoRadius;
  d.kernel = kernel != FirTunedKernel::Auto ? kernel
             : radius <= fused_up_to        ? FirTunedKernel::Fused
                                            : FirTunedKernel::TwoPass;
  d.set_geometry(width, height, radius_x, radius_y, ext, outside);
  if (d.kernel == FirTunedKernel::TwoPass) {
    d.row_tile = row_tile(width, height, sms);
    d.column_rows = column_rows(width * channels, height, sms);
  }
  d.overlap = cuda::overlapping_launches();
  d.upload_taps(gaussian_taps(sigma_x, radius_x), gaussian_taps(sigma_y, radius_y));
  d.reserve_memory();
  d.planned = true;
}

void FirTuned::run(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                   void* stream) {
  const FirSamples kind = impl_->channels == 1 ? FirSamples::F32 : FirSamples::F32x4;
  run(in, in_pitch, kind, out, out_pitch, kind, stream);
}

void FirTuned::run(const void* in, std::size_t in_pitch, FirSamples in_kind, void* out,
                   std::size_t out_pitch, FirSamples out_kind, void* stream_handle) {
  Impl& d = *impl_;
  if (!d.planned) throw std::logic_error("FirTuned::run before plan");
  const bool one = d.channels == 1;
  if ((in_kind == FirSamples::F32) != one || (out_kind == FirSamples::F32) != one)
    throw InvalidParameter("the tuned FIR's frames do not have the planned channels");
  const FirArgs& a = d.args;
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  const std::size_t in_packed = std::size_t(a.w) * (in_kind == FirSamples::F32    ? sizeof(float)
                                                    : in_kind == FirSamples::U8x4 ? sizeof(uchar4)
                                                                                  : sizeof(float4));
  const std::size_t out_packed =
      std::size_t(a.w) * (out_kind == FirSamples::F32    ? sizeof(float)
                          : out_kind == FirSamples::U8x4 ? sizeof(uchar4)
                                                         : sizeof(float4));
  in_pitch = in_pitch ? in_pitch : in_packed;
  out_pitch = out_pitch ? out_pitch : out_packed;
  if (d.kernel == FirTunedKernel::Fused) {
    // A tile reads its neighbours' input: in place, the output goes through the scratch.
    const bool in_place = in == out;
    void* dst = in_place ? d.tmp.ptr : out;
    const std::size_t dst_pitch = in_place ? d.tmp.pitch : out_pitch;
    if (one) {
      const float* src = static_cast<const float*>(in);
      const dim3 grid(ceil_div(a.w, d.fused.cols), ceil_div(a.h, d.fused.rows));
      with_fused_tile(d.fused, [&](auto fn) {
        fn<<<grid, kThreads, d.fused_smem, stream>>>(src, in_pitch, static_cast<float*>(dst),
                                                     dst_pitch, a, aligned16(src, in_pitch));
      });
    } else {
      const dim3 grid(ceil_div(a.w, kFused4Tile), ceil_div(a.h, kFused4Tile));
      const bool in_u8 = in_kind == FirSamples::U8x4, out_u8 = out_kind == FirSamples::U8x4;
      const auto* in4 = static_cast<const float4*>(in);
      const auto* in8 = static_cast<const uchar4*>(in);
      auto* out4 = static_cast<float*>(dst);
      auto* out8 = static_cast<std::uint8_t*>(dst);
      const std::size_t smem = d.fused_smem;
      if (in_u8 && out_u8)
        fir_fused4_kernel<<<grid, kThreads, smem, stream>>>(in8, in_pitch, out8, dst_pitch, a);
      else if (in_u8)
        fir_fused4_kernel<<<grid, kThreads, smem, stream>>>(in8, in_pitch, out4, dst_pitch, a);
      else if (out_u8)
        fir_fused4_kernel<<<grid, kThreads, smem, stream>>>(in4, in_pitch, out8, dst_pitch, a);
      else
        fir_fused4_kernel<<<grid, kThreads, smem, stream>>>(in4, in_pitch, out4, dst_pitch, a);
    }
    CUDA_CHECK_LAUNCH();
    if (in_place)
      CUDA_CHECK(cudaMemcpy2DAsync(out, out_pitch, dst, dst_pitch, out_packed, std::size_t(a.h),
                                   cudaMemcpyDeviceToDevice, stream));
    return;
  }
  if (one) {
    const float* src = static_cast<const float*>(in);
    with_row_tile(d.row_tile, [&](auto tile) {
      using Tile = decltype(tile);
      const dim3 rows_grid(ceil_div(a.w, Tile::kCols), ceil_div(a.h, Tile::kRows));
      fir_rows_kernel<Tile><<<rows_grid, Tile::kThreads, d.rows_smem, stream>>>(
          src, in_pitch, d.tmp.f(), d.tmp.pitch, a, aligned16(src, in_pitch), true);
    });
  } else {
    const dim3 rows_grid(ceil_div(a.w, kRow4Cols), ceil_div(a.h, kRow4Rows));
    if (in_kind == FirSamples::U8x4)
      fir_rows4_kernel<<<rows_grid, kThreads, d.rows_smem, stream>>>(
          static_cast<const uchar4*>(in), in_pitch, d.tmp.f(), d.tmp.pitch, a);
    else
      fir_rows4_kernel<<<rows_grid, kThreads, d.rows_smem, stream>>>(
          static_cast<const float4*>(in), in_pitch, d.tmp.f(), d.tmp.pitch, a);
  }
  CUDA_CHECK_LAUNCH();
  const FirArgs& c = d.columns;
  with_column_rows(d.column_rows, [&](auto rows) {
    constexpr int R = decltype(rows)::value;
    const dim3 grid(ceil_div(c.w, kColTileCols), ceil_div(c.h, R));
    const float* tmp = d.tmp.f();
    if (out_kind == FirSamples::U8x4)
      cuda::launch(d.overlap, fir_columns_kernel<std::uint8_t, R>, grid, kColThreads<R>,
                   d.columns_smem, stream, tmp, d.tmp.pitch, static_cast<std::uint8_t*>(out),
                   out_pitch, c, true);
    else
      cuda::launch(d.overlap, fir_columns_kernel<float, R>, grid, kColThreads<R>, d.columns_smem,
                   stream, tmp, d.tmp.pitch, static_cast<float*>(out), out_pitch, c, true);
  });
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

}  // namespace rf
