// The fully overlapped filter on CUDA (fully_overlapped.h: stages 1-5; Nehab et al. 2011
// algorithm 5, Nehab & Maximo 2016 algorithm 6, in mode states). Device helpers, then kernels, then
// the host plan and launches.
#include "filters/recursive/fully_overlapped_cuda.cuh"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <utility>

#include "filters/core/cuda_check.cuh"
#include "filters/core/derivative.h"
#include "filters/core/device_buffer.cuh"
#include "filters/core/errors.h"
#include "filters/recursive/fully_overlapped_math.h"

namespace rf::fully_overlapped {
namespace {

using cuda::DeviceBuffer;
using cuda::Io;
using cuda::IoKind;

// The plan's constants as the kernels read them (device memory, one copy per plan).
struct DeviceConstants {
  LineMatrices<float> columns, rows;
  FixConstants fix;
  FixRows fix_rows;
};

// Everything a launch needs; only src and dst change between frames.
struct Args {
  Io src, dst;
  int width = 0, height = 0, channels = 1;
  int block_rows = 0, block_cols = 0, padded_width = 0, padded_height = 0;
  Extension ext = Extension::Ignore;
  int causal_only = 0;
  int fix_in_rows = 0;  // algorithm 5: the row scan fixes its perimeters up; 6: the column scan
  const DeviceConstants* k = nullptr;
  // Carries (modal.h states, r floats per line per block, line-major within a block): column
  // causal / anticausal / raw heads, row causal / anticausal / raw heads.
  float *cp = nullptr, *ce = nullptr, *cx = nullptr, *rp = nullptr, *re = nullptr, *rz = nullptr;
  // Clamp: the first and last sample of every column of the input and row of Z.
  struct Edges {
    float *xf = nullptr, *xl = nullptr, *zf = nullptr, *zl = nullptr;
  } edges;
  // Constant: what the columns [0] and the rows [1] see past their ends (Plan::constant).
  float constant[2] = {};
  // Stage 3's reductions per block (algorithm 6): [channel][m][n] x q_stride floats.
  float* q = nullptr;
  // The output stage's difference (OutputDifference): whether taken along x and along y, and
  // the weights of samples -1, 0 and +1 (the scale in x's, or y's when x takes none).
  struct Difference {
    int x = 0, y = 0;
    float wx[3] = {}, wy[3] = {};
    // Another term of a measure (CudaFilter::combine_with), a float buffer of the frame: the
    // output is combined with it sample by sample, the root of the squares' sum or the sum.
    Io partner{};
    int squares = 0;
    // Padded rows (pads_rows): 1, the frame is the image with a row of its extension above and
    // below, read from the image itself (load_column); those two rows are not written, and row y
    // is written at y - 1.
    int skip = 0;
  } diff;
  // A batch of `frames` frames: frame f of src and dst `src` and `dst` bytes on, its carries,
  // edge samples and reductions these many floats on (frame_args).
  struct Batch {
    int frames = 1;
    std::size_t src = 0, dst = 0;
    std::size_t column_carries = 0, row_carries = 0, column_lines = 0, row_lines = 0, q = 0;
  } batch;
};

// The arguments of frame f of a batch: every pointer moved on to the frame's own.
__device__ __forceinline__ Args frame_args(const Args& all, unsigned f) {
  const Args::Batch& b = all.batch;
  Args a = all;
  a.src.ptr += f * b.src;
  a.dst.ptr += f * b.dst;
  auto on = [f](float*& p, std::size_t floats) {
    if (p) p += f * floats;
  };
  on(a.cp, b.column_carries);
  on(a.ce, b.column_carries);
  on(a.cx, b.column_carries);
  on(a.rp, b.row_carries);
  on(a.re, b.row_carries);
  on(a.rz, b.row_carries);
  on(a.edges.xf, b.column_lines);
  on(a.edges.xl, b.column_lines);
  on(a.edges.zf, b.row_lines);
  on(a.edges.zl, b.row_lines);
  on(a.q, b.q);
  return a;
}

// ---------------------------------------------------------------------------------------------
// Device helpers

// Block kernels: 128 threads. One channel: four warps, each its own 32 x 32 block (one line per
// lane). Four channels: the four warps share one block, a lane per line and channel, so a lane
// holds 32 samples either way.
constexpr int kTileThreads = 128;

template <int C>
struct TileShape {
  static constexpr int kTiles = 4 / C;                           // blocks per CTA
  static constexpr int kThreads = kTileThreads / kTiles;         // threads per block: 32 C
  static constexpr int kStride = kBlock * C + (C == 1 ? 1 : C);  // floats per row, bank-padded
};

template <int C>
__device__ __forceinline__ void tile_sync() {
  if constexpr (C == 1)
    __syncwarp();
  else
    __syncthreads();
}

// Calls f(rd) with rd(x, y) = channel c of sample (x, y) as a float, the reader chosen once.
template <int C, class F>
__device__ __forceinline__ void with_channel_reader(const Io& io, int c, F&& f) {
  if constexpr (C == 1) {
    cuda::with_reader<1>(io, [&](auto rd) { f([=](int x, int y) { return rd(x, y).v[0]; }); });
  } else {
    const char* p = io.ptr;
    const std::size_t pitch = io.pitch;
    const cudaSurfaceObject_t s = io.surf;
    switch (io.kind) {
      case IoKind::U8x4:
        f([=](int x, int y) {
          return from_unorm8(
              reinterpret_cast<const unsigned char*>(p + std::size_t(y) * pitch)[x * 4 + c]);
        });
        break;
      case IoKind::SurfF32x4:
        f([=](int x, int y) {
          const float4 v = surf2Dread<float4>(s, x * int(sizeof(float4)), y);
          return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;
        });
        break;
      case IoKind::SurfU8x4:
        f([=](int x, int y) {
          const uchar4 v = surf2Dread<uchar4>(s, x * int(sizeof(uchar4)), y);
          return from_unorm8(c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w);
        });
        break;
      default:
        f([=](int x, int y) {
          return reinterpret_cast<const float*>(p + std::size_t(y) * pitch)[x * 4 + c];
        });
    }
  }
}

// Sample (x, y) of a frame with padded rows (Args::Difference::skip) through rd: the image's
// row y - 1, and past the image's ends its extension's (clamp, zero, constant: a row of the
// image or the constant the columns see).
template <class Rd>
__device__ __forceinline__ float frame_sample(const Args& a, Rd rd, int x, int y) {
  const int n = a.height - 2, row = y - 1;
  if (row >= 0 && row < n) return rd(x, row);
  return a.ext == Extension::Clamp ? rd(x, row < 0 ? 0 : n - 1) : a.constant[0];
}

// Column x of the block's rows y0 .. y0 + len - 1 through rd into v, zeros past len; with
// kPadded, of a frame with padded rows (frame_sample), whose rows beyond the image are the first
// block row's first and the last block row's last: the others are the image's rows y - 1.
template <bool kPadded, class Rd>
__device__ __forceinline__ void load_column(const Args& a, Rd rd, int x, int y0, int len,
                                            float (&v)[kBlock]) {
  if constexpr (!kPadded) {
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) v[k] = k < len ? rd(x, y0 + k) : 0.f;
  } else {
    const bool first = y0 == 0, last = y0 + len == a.height;
    const int inside = last ? len - 1 : len;
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k)
      v[k] = k < inside && (k > 0 || !first) ? rd(x, y0 + k - 1) : 0.f;
    if (first) v[0] = frame_sample(a, rd, x, 0);
    if (last) {
      const float beyond = frame_sample(a, rd, x, a.height - 1);
      RF_UNROLL
      for (int k = 0; k < kBlock; ++k)
        if (k == len - 1) v[k] = beyond;
    }
  }
}

template <int NR, int NC>
__device__ __forceinline__ void put(float* base, int s, std::size_t lines, std::size_t line,
                                    const State<NR, NC, float>& w) {
  RF_UNROLL
  for (int k = 0; k < NR + 2 * NC; ++k)
    base[(std::size_t(s) * (NR + 2 * NC) + k) * lines + line] = w[k];
}

template <int NR, int NC>
__device__ __forceinline__ State<NR, NC, float> get(const float* base, int s, std::size_t lines,
                                                    std::size_t line) {
  State<NR, NC, float> w;
  RF_UNROLL
  for (int k = 0; k < NR + 2 * NC; ++k)
    w[k] = base[(std::size_t(s) * (NR + 2 * NC) + k) * lines + line];
  return w;
}

// Where a thread of a block kernel works: its block (m, n), and as line `t` of the tile its
// column j (column phase) or row i (row phase) and channel c.
template <int C>
struct TilePos {
  int which, t, m, n, x0, y0, hm, wn, line_index, c;
  __device__ TilePos(const Args& a) {
    const int tid = threadIdx.y * 32 + threadIdx.x;
    which = tid / TileShape<C>::kThreads;
    t = tid % TileShape<C>::kThreads;
    m = C == 1 ? int(blockIdx.y) * TileShape<C>::kTiles + which : int(blockIdx.y);
    n = blockIdx.x;
    x0 = n * kBlock;
    y0 = m * kBlock;
    hm = min(kBlock, a.height - y0);
    wn = min(kBlock, a.width - x0);
    line_index = t / C;
    c = t % C;
  }
};

// ---------------------------------------------------------------------------------------------
// Kernels

// The modes of the columns' filter (fc in the kernels) and of the rows' (fr).
template <int NR, int NC>
struct AxisModes {
  Modes<NR, NC, float> columns, rows;
};

// Stage 1: every block's perimeters from the input alone (zero entering states).
template <int NR, int NC, int C, bool kPadded>
__device__ __forceinline__ void perimeters(const Args& a, const Modes<NR, NC, float>& fc,
                                           const Modes<NR, NC, float>& fr) {
  using Shape = TileShape<C>;
  using St = State<NR, NC, float>;
  __shared__ float tiles[Shape::kTiles][kBlock][Shape::kStride];
  const TilePos<C> pos(a);
  if (pos.m >= a.block_rows) return;  // one channel: a warp past the last block row
  float(&tile)[kBlock][Shape::kStride] = tiles[pos.which];
  const std::size_t col_lines = std::size_t(C) * a.padded_width;
  const std::size_t row_lines = std::size_t(C) * a.padded_height;
  const bool heads = reads_heads(a.ext), edge_samples = reads_edges(a.ext);
  const int c = pos.c, j = pos.line_index, i = pos.line_index;

  if (j < pos.wn) {
    const std::size_t line = std::size_t(c) * a.padded_width + pos.x0 + j;
    float v[kBlock];
    with_channel_reader<C>(a.src, c, [&](auto rd) {
      // The plain loads written out rather than through load_column<false> and a helper for the
      // last sample: the same code through them takes ptxas to 72 registers where this takes 64
      // for the smoothing's perimeters at order 5, one channel (8 CTAs an SM -> 7).
      if constexpr (kPadded) {
        load_column<true>(a, rd, pos.x0 + j, pos.y0, pos.hm, v);
        if (edge_samples) {
          if (pos.m == 0) a.edges.xf[line] = v[0];
          if (pos.m == a.block_rows - 1)
            a.edges.xl[line] = frame_sample(a, rd, pos.x0 + j, pos.y0 + pos.hm - 1);
        }
      } else {
        RF_UNROLL
        for (int k = 0; k < kBlock; ++k) v[k] = k < pos.hm ? rd(pos.x0 + j, pos.y0 + k) : 0.f;
        if (edge_samples) {
          if (pos.m == 0) a.edges.xf[line] = v[0];
          if (pos.m == a.block_rows - 1) a.edges.xl[line] = rd(pos.x0 + j, pos.y0 + pos.hm - 1);
        }
      }
    });
    // Mirror also needs the anticausal recursion of the input itself: its samples wait in this
    // thread's tile column, so that the register file holds one copy of the block.
    if (heads) {
      RF_UNROLL
      for (int k = 0; k < kBlock; ++k) tile[k][j * C + c] = v[k];
    }
    with_block_len(pos.hm, [&](auto full) {
      constexpr bool kFull = decltype(full)::value;
      St w = zero_state<NR, NC, float>();
      causal_block<kFull>(fc, v, w, pos.hm);
      put(a.cp, pos.m, col_lines, line, w);
      if (!a.causal_only) {
        w = zero_state<NR, NC, float>();
        anticausal_block<kFull>(fc, v, w, pos.hm);
        put(a.ce, pos.m, col_lines, line, w);
      }
      if (heads) {
        w = zero_state<NR, NC, float>();
        RF_UNROLL
        for (int k = kBlock - 1; k >= 0; --k)
          if (kFull || k < pos.hm) advance(fc, w, tile[k][j * C + c]);
        scale_out(fc, w);
        put(a.cx, pos.m, col_lines, line, w);
      }
    });
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) tile[k][j * C + c] = v[k];
  }
  tile_sync<C>();
  if (i < pos.hm) {
    const std::size_t line = std::size_t(c) * a.padded_height + pos.y0 + i;
    if (edge_samples) {
      if (pos.n == 0) a.edges.zf[line] = tile[i][c];
      if (pos.n == a.block_cols - 1) a.edges.zl[line] = tile[i][(pos.wn - 1) * C + c];
    }
    float u[kBlock];
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) u[k] = k < pos.wn ? tile[i][k * C + c] : 0.f;
    with_block_len(pos.wn, [&](auto full) {
      constexpr bool kFull = decltype(full)::value;
      St w;
      if (heads) {
        w = zero_state<NR, NC, float>();
        RF_UNROLL
        for (int k = kBlock - 1; k >= 0; --k)
          if (kFull || k < pos.wn) advance(fr, w, tile[i][k * C + c]);
        scale_out(fr, w);
        put(a.rz, pos.n, row_lines, line, w);
      }
      w = zero_state<NR, NC, float>();
      causal_block<kFull>(fr, u, w, pos.wn);
      put(a.rp, pos.n, row_lines, line, w);
      if (!a.causal_only) put(a.re, pos.n, row_lines, line, anticausal_head<kFull>(fr, u, pos.wn));
    });
  }
}

// A kernel per stage, and one more for a batch, so that a single frame's kernel reads its
// arguments where they are passed, as before batches: moving the pointers on to a frame costs a
// single frame a fifth of its speed (docs/bench/README.md, "Batches"). Padded rows (a derivative's
// frames, never a batch) take one more, so that their reads cost the others no registers.
template <int NR, int NC, int C, bool kBatch, bool kPadded = false>
__global__ void __launch_bounds__(kTileThreads)
    perimeters_kernel(const Args frames, const Modes<NR, NC, float> fc,
                      const Modes<NR, NC, float> fr) {
  if constexpr (kBatch)
    perimeters<NR, NC, C, false>(frame_args(frames, blockIdx.z), fc, fr);
  else
    perimeters<NR, NC, C, kPadded>(frames, fc, fr);
}

// Stage 3's reduction, Q_src(a, k) = sum_j W(a, j) X_j(k) for X = P (src 0) and E (src 1), the
// complete column carries of a block's 32 columns (j = lane): the fix-ups' share of every row of
// the block is then sum_k A_RE(i, k) Q_1(a, k) + ARB_AFP(i, k) Q_0(a, k) (fix_of). One warp does
// `batch` blocks at once: lane (b, a) reduces block b's columns with row a of W, both from shared
// memory, so every lane has work.
constexpr int kMaxBatch = 8;

// A block's column carries in shared memory: [(src * R + k) * 32 + j], padded by one float so
// that lanes reading different blocks at the same j hit different banks.
template <int R>
constexpr int kXStride = 2 * R* kBlock + 1;

// Per-block layout of Q in memory: [src][a][k], each block's Q starting 16-byte aligned.
__host__ __device__ constexpr int q_stride(int rows_w, int r) {
  return (2 * rows_w * r + 3) / 4 * 4;
}

// Blocks a warp reduces at once: as many as fit a lane per row of W.
__host__ __device__ constexpr int batch_of(int rows_w) {
  return 32 / rows_w < kMaxBatch ? 32 / rows_w : kMaxBatch;
}

// W in shared memory, both block-column kinds, rows padded so that lanes reading different rows
// at the same column hit different banks.
struct WShared {
  float w[2][kMaxFixRows][kBlock + 1];
};

// Reduces the `count` (<= batch) blocks whose carries are in xs to Q, written by the lanes that
// own a row of W to q_out(b) + (src * rows_w + a) * R + k; last_col(b) picks W's kind.
template <int R, class LastCol, class QOut>
__device__ __forceinline__ void reduce_q(const float* xs, const WShared& ws, int rows_w, int count,
                                         LastCol last_col, QOut q_out) {
  const int lane = threadIdx.x, b = lane / rows_w, a = lane % rows_w;
  if (b >= count || b >= kMaxBatch) return;
  float acc[2 * R];
  RF_UNROLL
  for (int t = 0; t < 2 * R; ++t) acc[t] = 0.f;
  const float* x = xs + b * kXStride<R>;
  const float* w = ws.w[last_col(b)][a];
  RF_UNROLL
  for (int j = 0; j < kBlock; ++j) {
    const float wj = w[j];
    RF_UNROLL
    for (int t = 0; t < 2 * R; ++t) acc[t] = fused(wj, x[t * kBlock + j], acc[t]);
  }
  float* out = q_out(b);
  RF_UNROLL
  for (int t = 0; t < 2 * R; ++t) out[((t / R) * rows_w + a) * R + t % R] = acc[t];
}

// This lane's row share of W's row a from a block's Q (q: [src][a][k] floats).
template <int R>
__device__ __forceinline__ float fix_of(const float* q, int rows_w, int a, const float (&are)[R],
                                        const float (&arb)[R]) {
  float acc = 0.f;
  RF_UNROLL
  for (int k = 0; k < R; ++k)
    acc = fused(are[k], q[(rows_w + a) * R + k], fused(arb[k], q[a * R + k], acc));
  return acc;
}

// x = d o x + add for a map acting on each mode alone (LineMatrices' *_m multipliers): a real
// mode's scalar, a pair's complex multiplier.
template <int NR, int NC>
__device__ __forceinline__ void mode_mul_add(const float* d, float (&x)[NR + 2 * NC],
                                             const float (&add)[NR + 2 * NC]) {
  RF_UNROLL
  for (int k = 0; k < NR; ++k) x[k] = fused(d[k], x[k], add[k]);
  RF_UNROLL
  for (int j = 0; j < NC; ++j) {
    const int b = NR + 2 * j;
    const float re = x[b], im = x[b + 1];
    x[b] = fused(d[b], re, fused(-d[b + 1], im, add[b]));
    x[b + 1] = fused(d[b], im, fused(d[b + 1], re, add[b + 1]));
  }
}

template <int NR, int NC>
__device__ __forceinline__ void mode_mul(const float* d, float (&x)[NR + 2 * NC]) {
  float zero[NR + 2 * NC];
  set_zero(zero);
  mode_mul_add<NR, NC>(d, x, zero);
}

// Stages 2 and 4 (and 3): 32 lines per CTA (lane = line; the 32 lines are one block column, or
// row, of one channel), one warp per run of blocks. Each phase loads a chunk of a run's carries at
// once, so that their latencies overlap. Every map along the scans acts on each mode alone.
template <int R>
constexpr int kChunkOf = R <= 2 ? 8 : 4;  // registers allow longer chunks for low orders

template <int NR, int NC>
__device__ __forceinline__ void scan(const Args& a, const int rows) {
  constexpr int R = NR + 2 * NC;
  constexpr int kChunk = kChunkOf<R>;
  // The line direction's constants, in a static shared variable so that the compiler knows that
  // no global store touches them.
  __shared__ LineMatrices<float> lc;
  __shared__ WShared wshared;
  __shared__ float edges[2][32];  // clamp: the first and last sample of Z per row
  extern __shared__ __align__(16) float dyn[];
  const int runs = blockDim.y;
  float* q = dyn;                          // runs x R x 32: zero-start results
  float* qh = q + runs * R * 32;           // runs x R x 32: raw heads (mirror)
  float* entering = qh + runs * R * 32;    // runs x R x 32: entering states
  float* ends = entering + runs * R * 32;  // R x 32: the anticausal seed
  const int batch = batch_of(a.k->fix.rows_w);
  float* const xs_all = ends + R * 32;  // runs x batch blocks of column carries
  float* const xs = xs_all + std::size_t(threadIdx.y) * batch * kXStride<R>;
  // Algorithm 5's Q of this warp's chunk of blocks: runs x kMaxBatch blocks.
  float* const qlocal = xs_all + std::size_t(runs) * batch * kXStride<R>;

  const int lane = threadIdx.x, g = threadIdx.y;
  {
    const LineMatrices<float>& src = rows ? a.k->rows : a.k->columns;
    const int words = int(sizeof(LineMatrices<float>) / sizeof(int));
    for (int t = g * 32 + lane; t < words; t += 32 * runs)
      reinterpret_cast<int*>(&lc)[t] = reinterpret_cast<const int*>(&src)[t];
    const FixConstants& fx = a.k->fix;
    if (rows || !a.fix_in_rows)
      for (int t = g * 32 + lane; t < 2 * kMaxFixRows * kBlock; t += 32 * runs) {
        const int kind = t / (kMaxFixRows * kBlock), row = t / kBlock % kMaxFixRows, j = t % kBlock;
        wshared.w[kind][row][j] = float(fx.W[kind][row][j]);
      }
  }
  __syncthreads();
  const int padded = rows ? a.padded_height : a.padded_width;
  const std::size_t lines = std::size_t(a.channels) * padded;
  const std::size_t line = std::size_t(blockIdx.x) * 32 + lane;
  const int channel = int(std::size_t(blockIdx.x) * 32 / padded);
  const int block = int((std::size_t(blockIdx.x) * 32 % padded) / kBlock);
  const bool heads = reads_heads(a.ext), edge_samples = reads_edges(a.ext);
  const CarryLine pb{(rows ? a.rp : a.cp) + line, lines};
  const CarryLine eb{a.causal_only ? nullptr : (rows ? a.re : a.ce) + line, lines};
  const CarryLine hb{heads ? (rows ? a.rz : a.cx) + line : nullptr, lines};
  const FixConstants& fx = a.k->fix;
  const FixRows& fr = a.k->fix_rows;
  const int rows_w = fx.rows_w, stride = q_stride(fx.rows_w, R);
  auto read = [&](const float* base, int run, float(&x)[R]) {
    RF_UNROLL
    for (int k = 0; k < R; ++k) x[k] = base[(run * R + k) * 32 + lane];
  };
  auto write = [&](float* base, int run, const float(&x)[R]) {
    RF_UNROLL
    for (int k = 0; k < R; ++k) base[(run * R + k) * 32 + lane] = x[k];
  };
  const int s0 = run_begin(lc, g), s1 = run_end(lc, g);
  float pc[kChunk][R], ec[kChunk][R];
  auto load_chunk = [&](const CarryLine& c, int c0, float(&dst)[kChunk][R]) {
    RF_UNROLL
    for (int i = 0; i < kChunk; ++i)
      if (c0 + i < s1) RF_UNROLL
    for (int k = 0; k < R; ++k) dst[i][k] = c.at(c0 + i, k, R);
  };
  auto store_chunk = [&](const CarryLine& c, int c0, const float(&src)[kChunk][R]) {
    RF_UNROLL
    for (int i = 0; i < kChunk; ++i)
      if (c0 + i < s1) RF_UNROLL
    for (int k = 0; k < R; ++k) c.at(c0 + i, k, R) = src[i][k];
  };
  auto transfer = [&](int s) { return s == lc.blocks - 1 ? lc.D_last_m : lc.D_m; };

  // The row scan's perimeters get the column carries' share first (stage 3): Q per block from the
  // column scan (algorithm 6) or reduced here from the column carries (algorithm 5).
  const bool fix = rows != 0;
  float are[R], arb[R];
  if (fix) {
    const int last_row = block == a.block_rows - 1;
    RF_UNROLL
    for (int k = 0; k < R; ++k) {
      are[k] = float(fx.A_RE[last_row][lane][k]);
      arb[k] = float(fx.ARB_AFP[last_row][lane][k]);
    }
  }
  auto q_of_block = [&](int n) -> const float* {
    if (!a.fix_in_rows)
      return a.q + ((std::size_t(channel) * a.block_rows + block) * a.block_cols + n) * stride;
    return qlocal + (std::size_t(g) * kMaxBatch + (n - s0) % kMaxBatch) * stride;
  };
  // Algorithm 5: Q of the chunk's blocks, a batch at a time, into qlocal.
  auto reduce_here = [&](int c0) {
    const std::size_t col_lines = std::size_t(a.channels) * a.padded_width;
    for (int b0 = c0; b0 < min(c0 + kChunk, s1); b0 += batch) {
      const int count = min(batch, min(c0 + kChunk, s1) - b0);
      for (int b = 0; b < count; ++b) {
        const std::size_t col =
            std::size_t(channel) * a.padded_width + std::size_t(b0 + b) * kBlock + lane;
        RF_UNROLL
        for (int k = 0; k < R; ++k) {
          xs[b * kXStride<R> + k * kBlock + lane] =
              a.cp[(std::size_t(block) * R + k) * col_lines + col];
          xs[b * kXStride<R> + (R + k) * kBlock + lane] =
              a.causal_only ? 0.f : a.ce[(std::size_t(block) * R + k) * col_lines + col];
        }
      }
      __syncwarp();
      reduce_q<R>(
          xs, wshared, rows_w, count, [&](int b) { return b0 + b == a.block_cols - 1 ? 1 : 0; },
          [&](int b) {
            return qlocal + (std::size_t(g) * kMaxBatch + (b0 + b - s0) % kMaxBatch) * stride;
          });
      __syncwarp();
    }
  };
  auto apply_fix = [&](int c0) {
    if (a.fix_in_rows) reduce_here(c0);
    RF_UNROLL
    for (int i = 0; i < kChunk; ++i) {
      const int n = c0 + i;
      if (n >= s1) continue;
      const float* qb = q_of_block(n);
      RF_UNROLL
      for (int k = 0; k < R; ++k) {
        pc[i][k] += fix_of<R>(qb, rows_w, fr.tail + k, are, arb);
        if (!a.causal_only) ec[i][k] += fix_of<R>(qb, rows_w, fr.head + k, are, arb);
      }
      if (edge_samples && n == 0)
        edges[0][lane] = a.edges.zf[line] + fix_of<R>(qb, rows_w, fr.first, are, arb);
      if (edge_samples && n == lc.blocks - 1)
        edges[1][lane] = a.edges.zl[line] + fix_of<R>(qb, rows_w, fr.last, are, arb);
    }
  };

  // Every run from a zero state (eq. 24), and the raw heads backwards (mirror).
  {
    float x[R];
    set_zero(x);
    for (int c0 = s0; c0 < s1; c0 += kChunk) {
      load_chunk(pb, c0, pc);
      if (!a.causal_only) load_chunk(eb, c0, ec);
      if (fix) {  // the fixed-up perimeters, for the phases below
        apply_fix(c0);
        store_chunk(pb, c0, pc);
        if (!a.causal_only) store_chunk(eb, c0, ec);
      }
      RF_UNROLL
      for (int i = 0; i < kChunk; ++i)
        if (c0 + i < s1) mode_mul_add<NR, NC>(transfer(c0 + i), x, pc[i]);
    }
    write(q, g, x);
    if (heads) {
      set_zero(x);
      for (int c1 = s1; c1 > s0; c1 -= kChunk) {
        const int c0 = max(s0, c1 - kChunk);
        float hc[kChunk][R];
        RF_UNROLL
        for (int i = 0; i < kChunk; ++i)
          if (c0 + i < c1) RF_UNROLL
        for (int k = 0; k < R; ++k) hc[i][k] = hb.at(c0 + i, k, R);
        if (fix) RF_UNROLL
        for (int i = 0; i < kChunk; ++i)
          if (c0 + i < c1) {
            const float* qb = q_of_block(c0 + i);
            RF_UNROLL
            for (int k = 0; k < R; ++k) hc[i][k] += fix_of<R>(qb, rows_w, fr.raw + k, are, arb);
          }
        RF_UNROLL
        for (int i = kChunk - 1; i >= 0; --i)
          if (c0 + i < c1) mode_mul_add<NR, NC>(transfer(c0 + i), x, hc[i]);
      }
      write(qh, g, x);
    }
  }
  __syncthreads();
  if (g == 0) {
    // Warp 0 stitches the runs: from zero for the line's zero-start results, then from the seed.
    float x[R], ubar[R], hbar[R], u[R], e[R];
    set_zero(ubar);
    set_zero(hbar);
    for (int r = 0; r < runs; ++r) {  // both chains at once: their latencies overlap
      read(q, r, x);
      mode_mul_add<NR, NC>(r == runs - 1 ? lc.D_last_run_m : lc.D_run_m, ubar, x);
      if (heads) {
        const int rh = runs - 1 - r;
        read(qh, rh, x);
        mode_mul_add<NR, NC>(rh == runs - 1 ? lc.D_last_run_m : lc.D_run_m, hbar, x);
      }
    }
    set_zero(u);
    // The end samples where the seeds read them; the constant's value past the ends (zero but
    // for it), which seeds as a clamp of that value.
    const float outside = a.constant[rows ? 1 : 0];
    const float first = edge_samples ? (rows ? edges[0][lane] : a.edges.xf[line]) : outside;
    const float last = edge_samples ? (rows ? edges[1][lane] : a.edges.xl[line]) : outside;
    if (a.ext == Extension::Clamp || a.ext == Extension::Constant) {  // eq. (35)
      RF_UNROLL
      for (int k = 0; k < R; ++k) u[k] = lc.seeds.S[k] * first;
    } else if (a.ext == Extension::Repeat) {  // eq. (49)
      RF_UNROLL
      for (int k = 0; k < R; ++k) u[k] = ubar[k];
      mode_mul<NR, NC>(lc.seeds.Q_n_m, u);
    } else if (a.ext == Extension::Mirror) {  // eq. (52)
      RF_UNROLL
      for (int k = 0; k < R; ++k) u[k] = ubar[k];
      mode_mul_add<NR, NC>(lc.seeds.D_n_m, u, hbar);
      mode_mul<NR, NC>(lc.seeds.Q_2n_m, u);
    } else if (a.ext == Extension::Reflect101) {  // modal.h, Seeds
      float t[R];
      RF_UNROLL
      for (int k = 0; k < R; ++k) {
        u[k] = ubar[k];
        t[k] = hbar[k];
      }
      mode_mul<NR, NC>(lc.seeds.R_u_m, u);
      mode_mul<NR, NC>(lc.seeds.R_h_m, t);
      RF_UNROLL
      for (int k = 0; k < R; ++k)
        u[k] += t[k] + lc.seeds.r_first[k] * first + lc.seeds.r_last[k] * last;
    }
    for (int r = 0; r < runs; ++r) {
      write(entering, r, u);
      read(q, r, x);
      mode_mul_add<NR, NC>(r == runs - 1 ? lc.D_last_run_m : lc.D_run_m, u, x);
    }
    anticausal_seed<R>(lc, a.ext, u, last, e);  // u is the state after the last sample now
    write(ends, 0, e);
  }
  __syncthreads();
  // Each run from its entering state: the complete causal states, and the anticausal perimeters
  // completed with them, eq. (34).
  {
    float state[R];
    read(entering, g, state);
    for (int c0 = s0; c0 < s1; c0 += kChunk) {
      load_chunk(pb, c0, pc);
      if (!a.causal_only) load_chunk(eb, c0, ec);
      RF_UNROLL
      for (int i = 0; i < kChunk; ++i) {
        const int s = c0 + i;
        if (s >= s1) continue;
        float x[R];
        RF_UNROLL
        for (int k = 0; k < R; ++k) {
          x[k] = pc[i][k];
          pc[i][k] = state[k];
        }
        if (!a.causal_only) {
          float v[R];
          affine<R>(s == lc.blocks - 1 ? lc.H_ARB_AFP_last : lc.H_ARB_AFP, state, ec[i], v);
          RF_UNROLL
          for (int k = 0; k < R; ++k) ec[i][k] = v[k];
        }
        mode_mul_add<NR, NC>(transfer(s), state, x);
      }
      store_chunk(pb, c0, pc);
      if (!a.causal_only) store_chunk(eb, c0, ec);
    }
  }
  if (!a.causal_only) {
    float x[R];
    set_zero(x);
    for (int c1 = s1; c1 > s0; c1 -= kChunk) {
      const int c0 = max(s0, c1 - kChunk);
      load_chunk(eb, c0, ec);
      RF_UNROLL
      for (int i = kChunk - 1; i >= 0; --i)
        if (c0 + i < c1) mode_mul_add<NR, NC>(transfer(c0 + i), x, ec[i]);
    }
    write(q, g, x);
  }
  __syncthreads();
  if (!a.causal_only && g == 0) {
    float x[R], e[R];
    if (a.ext == Extension::Repeat) {  // eq. (51): Q_n times the scan's zero-start result
      set_zero(e);
      for (int r = runs - 1; r >= 0; --r) {
        read(q, r, x);
        mode_mul_add<NR, NC>(r == runs - 1 ? lc.D_last_run_m : lc.D_run_m, e, x);
      }
      mode_mul<NR, NC>(lc.seeds.Q_n_m, e);
    } else {
      read(ends, 0, e);
    }
    for (int r = runs - 1; r >= 0; --r) {
      write(entering, r, e);
      read(q, r, x);
      mode_mul_add<NR, NC>(r == runs - 1 ? lc.D_last_run_m : lc.D_run_m, e, x);
    }
  }
  __syncthreads();
  if (!a.causal_only) {
    float state[R];
    read(entering, g, state);
    for (int c1 = s1; c1 > s0; c1 -= kChunk) {
      const int c0 = max(s0, c1 - kChunk);
      load_chunk(eb, c0, ec);
      RF_UNROLL
      for (int i = kChunk - 1; i >= 0; --i)
        if (c0 + i < c1) {
          float v[R];
          RF_UNROLL
          for (int k = 0; k < R; ++k) {
            v[k] = ec[i][k];
            ec[i][k] = state[k];
          }
          mode_mul_add<NR, NC>(transfer(c0 + i), state, v);
        }
      store_chunk(eb, c0, ec);
    }
  }
  // Algorithm 6, stage 3 for this warp's blocks: their column carries are complete; Q of each
  // block (this CTA's block column, its run of block rows) goes to memory for the row scan.
  if (!rows && !a.fix_in_rows) {
    const int last_col = block == a.block_cols - 1;
    for (int c0 = s0; c0 < s1; c0 += kChunk) {
      load_chunk(pb, c0, pc);
      if (!a.causal_only) load_chunk(eb, c0, ec);
      for (int b0 = 0; b0 < kChunk && c0 + b0 < s1; b0 += batch) {
        const int count = min(batch, min(kChunk - b0, s1 - c0 - b0));
        RF_UNROLL
        for (int i = 0; i < kChunk; ++i)
          if (i >= b0 && i < b0 + count) RF_UNROLL
        for (int k = 0; k < R; ++k) {
          xs[(i - b0) * kXStride<R> + k * kBlock + lane] = pc[i][k];
          xs[(i - b0) * kXStride<R> + (R + k) * kBlock + lane] = a.causal_only ? 0.f : ec[i][k];
        }
        __syncwarp();
        reduce_q<R>(
            xs, wshared, rows_w, count, [&](int) { return last_col; },
            [&](int b) {
              const int m = c0 + b0 + b;
              return a.q +
                     ((std::size_t(channel) * a.block_rows + m) * a.block_cols + block) * stride;
            });
        __syncwarp();
      }
    }
  }
}

template <int NR, int NC, bool kBatch>
__global__ void __launch_bounds__(32 * kMaxRuns) scan_kernel(const Args frames, const int rows) {
  if constexpr (kBatch)
    scan<NR, NC>(frame_args(frames, blockIdx.y), rows);
  else
    scan<NR, NC>(frames, rows);
}

// The carry of block s of row y of a channel (whose rows start at line `first`) that the output
// stage's rows run from: the row's own, or with a difference along y the same difference of the
// carries of the rows around it, the rows beyond the image's ends those the extension continues
// it with (OutputDifference; a padded frame's own rows under pads_rows), since a row's carries
// are linear in the row alone.
template <int NR, int NC, bool kDiff>
__device__ __forceinline__ State<NR, NC, float> row_carry(const Args& a, const float* base, int s,
                                                          std::size_t lines, std::size_t first,
                                                          int y) {
  if (!kDiff || !a.diff.y) return get<NR, NC>(base, s, lines, first + y);
  State<NR, NC, float> w = zero_state<NR, NC, float>();
  RF_UNROLL
  for (int o = -1; o <= 1; ++o) {
    const float weight = a.diff.wy[o + 1];
    if (weight == 0.f) continue;
    // Past a padded frame's ends (zero, constant) no row: the padding's own rows, not written.
    const int e = extend_index(y + o, a.height, a.ext);
    const State<NR, NC, float> g = get<NR, NC>(base, s, lines, first + (e < 0 ? y : e));
    RF_UNROLL
    for (int k = 0; k < NR + 2 * NC; ++k) w[k] = fused(weight, g[k], w[k]);
  }
  return w;
}

// Stage 5: every block from its complete carries, written out; with a difference
// (OutputDifference, kDiff: a kernel of its own, so that the registers it takes do not cost the
// smoothing its occupancy), along y after the columns' passes, along x after the rows'.
template <int NR, int NC, int C, bool kDiff, bool kCombine = false>
__device__ __forceinline__ void output(const Args& a, const Modes<NR, NC, float>& fc,
                                       const Modes<NR, NC, float>& fr) {
  using Shape = TileShape<C>;
  using St = State<NR, NC, float>;
  __shared__ __align__(16) float tiles[Shape::kTiles][kBlock][Shape::kStride];
  const TilePos<C> pos(a);
  if (pos.m >= a.block_rows) return;
  float(&tile)[kBlock][Shape::kStride] = tiles[pos.which];
  const std::size_t col_lines = std::size_t(C) * a.padded_width;
  const std::size_t row_lines = std::size_t(C) * a.padded_height;
  const int c = pos.c, j = pos.line_index, i = pos.line_index;

  if (j < pos.wn) {
    const std::size_t line = std::size_t(c) * a.padded_width + pos.x0 + j;
    float v[kBlock];
    with_channel_reader<C>(a.src, c, [&](auto rd) {
      if (kDiff && a.diff.skip)
        load_column<true>(a, rd, pos.x0 + j, pos.y0, pos.hm, v);
      else
        load_column<false>(a, rd, pos.x0 + j, pos.y0, pos.hm, v);
    });
    St w = get<NR, NC>(a.cp, pos.m, col_lines, line);
    const float above = kDiff && a.diff.y ? mode_sum(w) : 0.f;  // the causal output there
    with_block_len(pos.hm, [&](auto full) {
      constexpr bool kFull = decltype(full)::value;
      causal_block<kFull>(fc, v, w, pos.hm);
      if (!a.causal_only) {
        w = get<NR, NC>(a.ce, pos.m, col_lines, line);
        const float below = kDiff && a.diff.y ? mode_sum(w) : 0.f;
        anticausal_block<kFull>(fc, v, w, pos.hm);
        if (kDiff && a.diff.y)
          difference_block<kFull>(v, pos.hm, output_before(fc, w, above), below, a.diff.y,
                                  a.diff.wy);
      }
    });
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) tile[k][j * C + c] = v[k];
  }
  tile_sync<C>();
  if (i < pos.hm) {
    const std::size_t first = std::size_t(c) * a.padded_height;
    float u[kBlock];
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) u[k] = k < pos.wn ? tile[i][k * C + c] : 0.f;
    St w = row_carry<NR, NC, kDiff>(a, a.rp, pos.n, row_lines, first, pos.y0 + i);
    const float left = kDiff && a.diff.x ? mode_sum(w) : 0.f;  // the causal output there
    with_block_len(pos.wn, [&](auto full) {
      constexpr bool kFull = decltype(full)::value;
      causal_block<kFull>(fr, u, w, pos.wn);
      if (!a.causal_only) {
        w = row_carry<NR, NC, kDiff>(a, a.re, pos.n, row_lines, first, pos.y0 + i);
        const float right = kDiff && a.diff.x ? mode_sum(w) : 0.f;
        anticausal_block<kFull>(fr, u, w, pos.wn);
        if (kDiff && a.diff.x)
          difference_block<kFull>(u, pos.wn, output_before(fr, w, left), right, a.diff.x,
                                  a.diff.wx);
      }
    });
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k)
      if (k < pos.wn) tile[i][k * C + c] = u[k];
  }
  tile_sync<C>();
  // Whole pixels out, a row of the block per warp instruction: one column of the block a thread
  // (C = 1), or a pixel of every kStep-th row. A measure's other term is loaded for 8 of the
  // thread's rows before they are written, so that those loads are in flight together.
  constexpr int kStep = C == 1 ? 1 : kTileThreads / kBlock;
  constexpr int kRows = kBlock / kStep;
  const int col = C == 1 ? pos.t : pos.t % kBlock, first = C == 1 ? 0 : pos.t / kBlock;
  if (col >= pos.wn) return;
  const int x = pos.x0 + col;
  // The row of the output that row k of the block is written at, -1 for none (padded rows).
  auto out_row = [&](int k) {
    if constexpr (kDiff) {
      const int y = pos.y0 + k - a.diff.skip;
      return y < a.height - 2 * a.diff.skip ? y : -1;
    } else {
      return pos.y0 + k;
    }
  };
  auto pixel = [&](int k) {
    if constexpr (C == 1) {
      return cuda::Vec<1>{tile[k][col]};
    } else {
      const float4 p = *reinterpret_cast<const float4*>(&tile[k][col * 4]);
      return cuda::Vec<4>{p.x, p.y, p.z, p.w};
    }
  };
  if constexpr (kCombine) {
    constexpr int kChunk = kRows < 8 ? kRows : 8;  // loads in flight at once
    RF_UNROLL
    for (int r0 = 0; r0 < kRows; r0 += kChunk) {
      cuda::Vec<C> other[kChunk];
      RF_UNROLL
      for (int r = 0; r < kChunk; ++r) {
        const int k = first + (r0 + r) * kStep, y = out_row(k);
        if (k < pos.hm && y >= 0) other[r] = cuda::read<C, cuda::Kinds::No16>(a.diff.partner, x, y);
      }
      RF_UNROLL
      for (int r = 0; r < kChunk; ++r) {
        const int k = first + (r0 + r) * kStep, y = out_row(k);
        if (k >= pos.hm) break;
        if (y < 0) continue;
        cuda::Vec<C> v = pixel(k);
        RF_UNROLL
        for (int ch = 0; ch < C; ++ch) {
          const float o = other[r].v[ch];
          v.v[ch] = a.diff.squares ? sqrtf(fused(o, o, v.v[ch] * v.v[ch])) : o + v.v[ch];
        }
        cuda::write<C>(a.dst, x, y, v);
      }
    }
  } else {
    // The block's rows that are output rows (padded rows: not the frame's first and last).
    int begin = first, end = pos.hm, shift = 0;
    if constexpr (kDiff) {
      shift = a.diff.skip;
      if (begin < shift - pos.y0) begin += kStep;
      end = min(end, a.height - shift - pos.y0);
    }
    for (int k = begin; k < end; k += kStep) cuda::write<C>(a.dst, x, pos.y0 + k - shift, pixel(k));
  }
}

template <int NR, int NC, int C, bool kBatch>
__global__ void __launch_bounds__(kTileThreads)
    output_kernel(const Args frames, const Modes<NR, NC, float> fc, const Modes<NR, NC, float> fr) {
  if constexpr (kBatch)
    output<NR, NC, C, false>(frame_args(frames, blockIdx.z), fc, fr);
  else
    output<NR, NC, C, false>(frames, fc, fr);
}

// CTAs an SM holds of the output stage with a difference: 7 caps it at 72 registers, the
// smoothing's own, for a few spilled ones; its default 96 leave 5 (docs/bench/README.md,
// Derivatives).
constexpr int kDifferenceCtas = 7;

// The output stage with a difference, one frame a launch; combined with a measure's other term
// (kCombine: a kernel of its own, whose loads would cost the partials' registers).
template <int NR, int NC, int C, bool kCombine>
__global__ void __launch_bounds__(kTileThreads, kDifferenceCtas)
    difference_output_kernel(const Args a, const Modes<NR, NC, float> fc,
                             const Modes<NR, NC, float> fr) {
  output<NR, NC, C, true, kCombine>(a, fc, fr);
}

// ---------------------------------------------------------------------------------------------
// Host

// Dynamic shared memory of a scan: per run the zero-start results, raw heads and entering
// states, the seed, the column carries of a batch of blocks per warp, and for algorithm 5's row
// scan the Q of a chunk of blocks per warp.
template <int R>
std::size_t scan_shared_bytes(int runs, int rows_w, bool local_q) {
  const int batch = batch_of(rows_w);
  return (std::size_t(3 * runs + 1) * R * 32 + std::size_t(runs) * batch * kXStride<R> +
          (local_q ? std::size_t(runs) * kMaxBatch * q_stride(rows_w, R) : 0)) *
         sizeof(float);
}

// Raises scan_kernel's dynamic shared memory limit to what a plan needs.
template <int NR, int NC>
void allow_scan_shared(std::size_t bytes) {
  static std::size_t allowed = 48 * 1024 - sizeof(LineMatrices<float>) - sizeof(WShared) - 256;
  if (bytes <= allowed) return;
  for (auto kernel : {scan_kernel<NR, NC, false>, scan_kernel<NR, NC, true>})
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  allowed = bytes;
}

template <int R>
std::size_t scan_bytes(const Args& a, bool rows, const LineConstants& lc, int rows_w) {
  return scan_shared_bytes<R>(lc.runs, rows_w, rows && a.fix_in_rows);
}

template <int NR, int NC>
void launch_scan(const Args& a, bool rows, const LineConstants& lc, int rows_w,
                 cudaStream_t stream) {
  const int padded = rows ? a.padded_height : a.padded_width;
  const unsigned grid = unsigned(std::size_t(a.channels) * padded / 32);
  const std::size_t bytes = scan_bytes<NR + 2 * NC>(a, rows, lc, rows_w);
  const dim3 block(32, lc.runs);
  if (a.batch.frames > 1)
    scan_kernel<NR, NC, true>
        <<<dim3(grid, unsigned(a.batch.frames)), block, bytes, stream>>>(a, rows ? 1 : 0);
  else
    scan_kernel<NR, NC, false><<<grid, block, bytes, stream>>>(a, rows ? 1 : 0);
  CUDA_CHECK_LAUNCH();
}

template <int NR, int NC, int C>
void launch_frame(const Args& a, const Plan& p, const AxisModes<NR, NC>& f, bool fix_in_rows,
                  cudaStream_t stream, cudaEvent_t* marks) {
  const dim3 block(32, 4);
  const dim3 grid(p.block_cols, (p.block_rows + TileShape<C>::kTiles - 1) / TileShape<C>::kTiles,
                  unsigned(a.batch.frames));
  auto mark = [&](int i) {
    if (marks) CUDA_CHECK(cudaEventRecord(marks[i], stream));
  };
  if (a.batch.frames > 1)
    perimeters_kernel<NR, NC, C, true><<<grid, block, 0, stream>>>(a, f.columns, f.rows);
  else if (a.diff.skip)
    perimeters_kernel<NR, NC, C, false, true><<<grid, block, 0, stream>>>(a, f.columns, f.rows);
  else
    perimeters_kernel<NR, NC, C, false><<<grid, block, 0, stream>>>(a, f.columns, f.rows);
  CUDA_CHECK_LAUNCH();
  mark(0);
  launch_scan<NR, NC>(a, false, p.columns, p.fix.rows_w, stream);
  mark(1);
  launch_scan<NR, NC>(a, true, p.rows, p.fix.rows_w, stream);
  mark(2);
  if (a.batch.frames > 1)
    output_kernel<NR, NC, C, true><<<grid, block, 0, stream>>>(a, f.columns, f.rows);
  else if (a.diff.partner.ptr)
    difference_output_kernel<NR, NC, C, true><<<grid, block, 0, stream>>>(a, f.columns, f.rows);
  else if (a.diff.x || a.diff.y)
    difference_output_kernel<NR, NC, C, false><<<grid, block, 0, stream>>>(a, f.columns, f.rows);
  else
    output_kernel<NR, NC, C, false><<<grid, block, 0, stream>>>(a, f.columns, f.rows);
  CUDA_CHECK_LAUNCH();
  mark(3);
}

}  // namespace

struct CudaFilter::Impl {
  Plan plan;
  bool fix_in_rows = false;
  DeviceBuffer constants, cp, ce, cx, rp, re, rz, xf, xl, zf, zl, q;
  Args args;
  std::function<void(const Args&, cudaStream_t, cudaEvent_t*)> launch;
};

CudaFilter::CudaFilter(const AxisDesigns& filters, Extension ext, int width, int height,
                       int channels, FixPlace place, double cval, int frames,
                       const OutputDifference& diff)
    : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  // Padded rows: the frame planned is the image with a row of its extension above and below.
  const bool padded = pads_rows(diff, ext);
  const int rows = height + (padded ? 2 : 0);
  im.plan = make_plan(filters, ext, width, rows, channels, cval, frames);
  if (diff.any() && (!takes_difference(diff, ext) || im.plan.causal_only() || frames > 1))
    throw InvalidParameter("fully overlapped filter: no difference in the output stage under " +
                           std::string(to_string(ext)) + ", for a causal filter or a batch");
  im.fix_in_rows = place == FixPlace::RowScan;
  const Plan& p = im.plan;

  DeviceConstants host{p.columns.as<float>(), p.rows.as<float>(), p.fix, p.fix_rows};
  im.constants.allocate(sizeof(DeviceConstants));
  CUDA_CHECK(cudaMemcpy(im.constants.ptr, &host, sizeof host, cudaMemcpyHostToDevice));
  // Zeroed once: the lines past the image's edge keep zero carries, which the scans keep zero.
  auto zeroed = [](DeviceBuffer& b, std::size_t floats) {
    b.allocate(floats * sizeof(float));
    if (floats) CUDA_CHECK(cudaMemset(b.ptr, 0, floats * sizeof(float)));
    return b.f();
  };
  Args& a = im.args;
  a.width = width;
  a.height = rows;
  a.channels = channels;
  a.block_rows = p.block_rows;
  a.block_cols = p.block_cols;
  a.padded_width = p.padded_width;
  a.padded_height = p.padded_height;
  a.ext = p.ext;
  a.causal_only = p.causal_only() ? 1 : 0;
  a.constant[0] = float(p.constant.columns);
  a.constant[1] = float(p.constant.rows);
  a.fix_in_rows = im.fix_in_rows ? 1 : 0;
  a.k = static_cast<const DeviceConstants*>(im.constants.ptr);
  // The difference's weights, derivative.h's, the scale on the first axis that takes one.
  a.diff.x = diff.x;
  a.diff.y = diff.y;
  a.diff.skip = padded ? 1 : 0;
  for (int o = -1; o <= 1; ++o) {
    a.diff.wx[o + 1] = float(difference_weight(diff.x, o) * (diff.x ? diff.scale : 1.0));
    a.diff.wy[o + 1] = float(difference_weight(diff.y, o) * (diff.x ? 1.0 : diff.scale));
  }
  // A batch's carries, frame after frame (frame_args).
  Args::Batch& b = a.batch;
  b.frames = frames;
  b.column_carries = p.column_carries();
  b.row_carries = p.row_carries();
  b.column_lines = p.column_lines();
  b.row_lines = p.row_lines();
  b.q = std::size_t(channels) * p.block_rows * p.block_cols * q_stride(p.fix.rows_w, p.order());
  const std::size_t n = std::size_t(frames);
  a.cp = zeroed(im.cp, n * b.column_carries);
  a.rp = zeroed(im.rp, n * b.row_carries);
  if (!p.causal_only()) {
    a.ce = zeroed(im.ce, n * b.column_carries);
    a.re = zeroed(im.re, n * b.row_carries);
  }
  if (p.heads()) {
    a.cx = zeroed(im.cx, n * b.column_carries);
    a.rz = zeroed(im.rz, n * b.row_carries);
  }
  if (!im.fix_in_rows) a.q = zeroed(im.q, n * b.q);
  if (p.edges()) {
    a.edges.xf = zeroed(im.xf, n * b.column_lines);
    a.edges.xl = zeroed(im.xl, n * b.column_lines);
    a.edges.zf = zeroed(im.zf, n * b.row_lines);
    a.edges.zl = zeroed(im.zl, n * b.row_lines);
  }
  const bool ok = with_modes(p.column_form.real_modes, p.column_form.complex_pairs, [&](auto tag) {
    using Tag = decltype(tag);
    const AxisModes<Tag::kReal, Tag::kPairs> modes{
        modes_of<Tag::kReal, Tag::kPairs, float>(p.column_form),
        modes_of<Tag::kReal, Tag::kPairs, float>(p.row_form)};
    constexpr int R = Tag::kOrder;
    allow_scan_shared<Tag::kReal, Tag::kPairs>(
        std::max(scan_bytes<R>(a, false, p.columns, p.fix.rows_w),
                 scan_bytes<R>(a, true, p.rows, p.fix.rows_w)));
    const Plan* plan = &im.plan;
    const bool rows_fix = im.fix_in_rows;
    if (channels == 1)
      im.launch = [modes, plan, rows_fix](const Args& args, cudaStream_t s, cudaEvent_t* marks) {
        launch_frame<Tag::kReal, Tag::kPairs, 1>(args, *plan, modes, rows_fix, s, marks);
      };
    else
      im.launch = [modes, plan, rows_fix](const Args& args, cudaStream_t s, cudaEvent_t* marks) {
        launch_frame<Tag::kReal, Tag::kPairs, 4>(args, *plan, modes, rows_fix, s, marks);
      };
  });
  if (!ok) throw InvalidParameter("fully overlapped filter: unsupported order");
}

CudaFilter::~CudaFilter() = default;

void CudaFilter::enqueue(const Io& src, const Io& dst, cudaStream_t stream, cudaEvent_t* marks) {
  Args a = impl_->args;
  a.src = src;
  a.dst = dst;
  a.batch.src = src.pitch * std::size_t(a.height);
  a.batch.dst = dst.pitch * std::size_t(a.height);
  impl_->launch(a, stream, marks);
}

void CudaFilter::combine_with(const Io& other, bool squares) {
  if (!impl_->args.diff.x && !impl_->args.diff.y)
    throw std::logic_error("CudaFilter::combine_with without a difference");
  impl_->args.diff.partner = other;
  impl_->args.diff.squares = squares ? 1 : 0;
}

bool CudaFilter::batches() const {
  return impl_->args.batch.frames > 1;
}

std::vector<std::string> CudaFilter::stage_names() const {
  return {"perimeters", "column carries", "row carries", "output"};
}

}  // namespace rf::fully_overlapped
