// The fully overlapped filter on CUDA (fully_overlapped.h: stages 1-5; Nehab et al. 2011
// algorithm 5, Nehab & Maximo 2016 algorithm 6, in mode states). Device helpers, then kernels, then
// the host plan and launches.
#include "filters/recursive/fully_overlapped_cuda.cuh"

#include <functional>
#include <utility>

#include "filters/core/cuda_check.cuh"
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
  LineConstants columns, rows;
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
  float *xf = nullptr, *xl = nullptr, *zf = nullptr, *zl = nullptr;
};

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
  const char* p = io.ptr;
  const std::size_t pitch = io.pitch;
  const cudaSurfaceObject_t s = io.surf;
  if constexpr (C == 1) {
    if (io.kind == IoKind::SurfF32)
      f([=](int x, int y) { return surf2Dread<float>(s, x * int(sizeof(float)), y); });
    else
      f([=](int x, int y) {
        return reinterpret_cast<const float*>(p + std::size_t(y) * pitch)[x];
      });
  } else {
    switch (io.kind) {
      case IoKind::U8x4:
        f([=](int x, int y) {
          return cuda::to_unit(
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
          return cuda::to_unit(c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w);
        });
        break;
      default:
        f([=](int x, int y) {
          return reinterpret_cast<const float*>(p + std::size_t(y) * pitch)[x * 4 + c];
        });
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

// v[len - 1] without indexing the register array at run time.
__device__ __forceinline__ float last_of(const float (&v)[kBlock], int len) {
  float x = v[0];
  RF_UNROLL
  for (int i = 1; i < kBlock; ++i)
    if (i == len - 1) x = v[i];
  return x;
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

// Stage 1: every block's perimeters from the input alone (zero entering states).
template <int NR, int NC, int C>
__global__ void __launch_bounds__(kTileThreads)
    perimeters_kernel(const Args a, const Modes<NR, NC, float> f) {
  using Shape = TileShape<C>;
  using St = State<NR, NC, float>;
  __shared__ float tiles[Shape::kTiles][kBlock][Shape::kStride];
  const TilePos<C> pos(a);
  if (pos.m >= a.block_rows) return;  // one channel: a warp past the last block row
  float(&tile)[kBlock][Shape::kStride] = tiles[pos.which];
  const std::size_t col_lines = std::size_t(C) * a.padded_width;
  const std::size_t row_lines = std::size_t(C) * a.padded_height;
  const bool mirror = a.ext == Extension::Mirror, clamp = a.ext == Extension::Clamp;
  const int c = pos.c, j = pos.line_index, i = pos.line_index;

  if (j < pos.wn) {
    const std::size_t line = std::size_t(c) * a.padded_width + pos.x0 + j;
    float v[kBlock];
    with_channel_reader<C>(a.src, c, [&](auto rd) {
      RF_UNROLL
      for (int k = 0; k < kBlock; ++k) v[k] = k < pos.hm ? rd(pos.x0 + j, pos.y0 + k) : 0.f;
    });
    if (clamp) {
      if (pos.m == 0) a.xf[line] = v[0];
      if (pos.m == a.block_rows - 1) a.xl[line] = last_of(v, pos.hm);
    }
    with_block_len(pos.hm, [&](auto full) {
      constexpr bool kFull = decltype(full)::value;
      if (mirror) put(a.cx, pos.m, col_lines, line, anticausal_head<kFull>(f, v, pos.hm));
      St w = zero_state<NR, NC, float>();
      causal_block<kFull>(f, v, w, pos.hm);
      put(a.cp, pos.m, col_lines, line, w);
      if (!a.causal_only) {
        w = zero_state<NR, NC, float>();
        anticausal_block<kFull>(f, v, w, pos.hm);
        put(a.ce, pos.m, col_lines, line, w);
      }
    });
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) tile[k][j * C + c] = v[k];
  }
  tile_sync<C>();
  if (i < pos.hm) {
    const std::size_t line = std::size_t(c) * a.padded_height + pos.y0 + i;
    float u[kBlock];
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) u[k] = k < pos.wn ? tile[i][k * C + c] : 0.f;
    if (clamp) {
      if (pos.n == 0) a.zf[line] = u[0];
      if (pos.n == a.block_cols - 1) a.zl[line] = last_of(u, pos.wn);
    }
    with_block_len(pos.wn, [&](auto full) {
      constexpr bool kFull = decltype(full)::value;
      if (mirror) put(a.rz, pos.n, row_lines, line, anticausal_head<kFull>(f, u, pos.wn));
      St w = zero_state<NR, NC, float>();
      causal_block<kFull>(f, u, w, pos.wn);
      put(a.rp, pos.n, row_lines, line, w);
      if (!a.causal_only) put(a.re, pos.n, row_lines, line, anticausal_head<kFull>(f, u, pos.wn));
    });
  }
}

// Scratch of the fix-ups, one per warp.
template <int R>
struct FixScratch {
  double x[2][R][kBlock + 1];   // the block's column carries: P (0) and E (1), by column
  double q[2][kMaxFixRows][R];  // Q[src](a, k) = sum_j W(a, j) X_j(k)
};

// Stage 3 for block (m, n), channel c, by one warp: lane j brings column j's complete carries P
// and E; lane i adds row i's share to the row perimeters (eqs. 37, 39), the raw heads (mirror) and
// the edge samples of Z (clamp). The reduction over the block's columns runs once per block as
// 2 rows_w r dot products of length 32 (the low rank of dZ = A_RE E + A_RB A_FP P).
template <int R>
__device__ void fix_block(const Args& a, const FixConstants& fx, FixScratch<R>& sh, int m, int n,
                          int c, const double (&P)[R], const double (&E)[R]) {
  const int lane = threadIdx.x;
  RF_UNROLL
  for (int k = 0; k < R; ++k) {
    sh.x[0][k][lane] = P[k];
    sh.x[1][k][lane] = E[k];
  }
  __syncwarp();
  const int last_row = m == a.block_rows - 1, last_col = n == a.block_cols - 1;
  const int rows_w = fx.rows_w, per_src = rows_w * R;
  for (int t = lane; t < 2 * per_src; t += 32) {
    const int src = t / per_src, aw = (t % per_src) / R, k = t % R;
    const double* w = fx.W[last_col][aw];
    const double* x = sh.x[src][k];
    double acc = 0.0;
    RF_UNROLL
    for (int jj = 0; jj < kBlock; ++jj) acc = fused(w[jj], x[jj], acc);
    sh.q[src][aw][k] = acc;
  }
  __syncwarp();
  const std::size_t lines = std::size_t(a.channels) * a.padded_height;
  const std::size_t line = std::size_t(c) * a.padded_height + std::size_t(m) * kBlock + lane;
  const double* are = fx.A_RE[last_row][lane];
  const double* arb = fx.ARB_AFP[last_row][lane];
  auto share = [&](int row) {
    double acc = 0.0;
    RF_UNROLL
    for (int k = 0; k < R; ++k)
      acc = fused(are[k], sh.q[1][row][k], fused(arb[k], sh.q[0][row][k], acc));
    return acc;
  };
  auto add = [&](float* base, int row0) {
    RF_UNROLL
    for (int k = 0; k < R; ++k) {
      float& v = base[(std::size_t(n) * R + k) * lines + line];
      v = float(double(v) + share(row0 + k));
    }
  };
  const FixRows& fr = a.k->fix_rows;
  add(a.rp, fr.tail);
  if (!a.causal_only) add(a.re, fr.head);
  if (fr.raw >= 0) add(a.rz, fr.raw);
  if (fr.first >= 0) {
    if (n == 0) a.zf[line] = float(double(a.zf[line]) + share(fr.first));
    if (last_col) a.zl[line] = float(double(a.zl[line]) + share(fr.last));
  }
  __syncwarp();
}

// Scan scratch: each run's zero-start result and entering state, per lane (runs x r x 32), and
// the constants of the line direction.
template <int R>
struct ScanLayout {
  int runs;
  __device__ double* q(double* base, int g, int k) const { return base + (g * R + k) * 32; }
};

// Stages 2 and 4 (and 3): 32 lines per CTA (lane = line), one warp per run of blocks.
template <int R>
__global__ void __launch_bounds__(32 * kMaxRuns) scan_kernel(const Args a, const int rows) {
  extern __shared__ __align__(16) unsigned char smem[];
  LineConstants& lc = *reinterpret_cast<LineConstants*>(smem);
  const int runs = blockDim.y;
  double* q = reinterpret_cast<double*>(smem + sizeof(LineConstants));
  double* qh = q + runs * R * 32;
  double* entering = qh + runs * R * 32;
  double* ends = entering + runs * R * 32;  // u_end then e, R x 32 each
  FixScratch<R>* fix_scratch = reinterpret_cast<FixScratch<R>*>(ends + 2 * R * 32);

  const int lane = threadIdx.x, g = threadIdx.y;
  {
    const LineConstants& src = rows ? a.k->rows : a.k->columns;
    const int words = int(sizeof(LineConstants) / sizeof(int));
    for (int t = g * 32 + lane; t < words; t += 32 * runs)
      reinterpret_cast<int*>(&lc)[t] = reinterpret_cast<const int*>(&src)[t];
  }
  __syncthreads();
  const int padded = rows ? a.padded_height : a.padded_width;
  const std::size_t lines = std::size_t(a.channels) * padded;
  const std::size_t line = std::size_t(blockIdx.x) * 32 + lane;
  // A CTA's 32 lines are one block column (row) of one channel.
  const int channel = int(std::size_t(blockIdx.x) * 32 / padded);
  const int block = int((std::size_t(blockIdx.x) * 32 % padded) / kBlock);
  const bool mirror = a.ext == Extension::Mirror, clamp = a.ext == Extension::Clamp;
  const CarryLine pb{(rows ? a.rp : a.cp) + line, lines};
  const CarryLine eb{(rows ? a.re : a.ce) + line, lines};
  const CarryLine hb{mirror ? (rows ? a.rz : a.cx) + line : nullptr, lines};
  auto at = [&](double* base, int run, int k) -> double& {
    return base[(run * R + k) * 32 + lane];
  };
  auto reader = [&](double* base) {
    return [=](int run, double(&x)[R]) {
      RF_UNROLL
      for (int k = 0; k < R; ++k) x[k] = base[(run * R + k) * 32 + lane];
    };
  };
  auto recorder = [=](double* base) {
    return [=](int run, const double(&x)[R]) {
      RF_UNROLL
      for (int k = 0; k < R; ++k) base[(run * R + k) * 32 + lane] = x[k];
    };
  };

  // Algorithm 5: the column carries' share enters this warp's row perimeters first.
  if (rows && a.fix_in_rows) {
    const std::size_t col_lines = std::size_t(a.channels) * a.padded_width;
    for (int s = run_begin(lc, g); s < run_end(lc, g); ++s) {
      const std::size_t col =
          std::size_t(channel) * a.padded_width + std::size_t(s) * kBlock + lane;
      double P[R], E[R];
      RF_UNROLL
      for (int k = 0; k < R; ++k) {
        P[k] = a.cp[(std::size_t(block) * R + k) * col_lines + col];
        E[k] = a.causal_only ? 0.0 : a.ce[(std::size_t(block) * R + k) * col_lines + col];
      }
      fix_block<R>(a, a.k->fix, fix_scratch[g], block, s, channel, P, E);
    }
  }

  // Every run from a zero state (eq. 24), and the raw heads backwards (mirror).
  {
    double x[R];
    run_forward<R>(lc, pb, g, x);
    recorder(q)(g, x);
    if (mirror) {
      run_backward<R>(lc, hb, g, x);
      recorder(qh)(g, x);
    }
  }
  __syncthreads();
  if (g == 0) {
    double zero[R], ubar[R], hbar[R], u[R], u_end[R], e[R];
    set_zero(zero);
    set_zero(hbar);
    auto ignore = [](int, const double(&)[R]) {};
    stitch_forward<R>(lc, zero, reader(q), ignore, ubar);
    if (mirror) stitch_backward<R>(lc, zero, reader(qh), ignore, hbar);
    const double first = clamp ? double((rows ? a.zf : a.xf)[line]) : 0.0;
    const double last = clamp ? double((rows ? a.zl : a.xl)[line]) : 0.0;
    causal_seed<R>(lc, a.ext, ubar, hbar, first, u);
    stitch_forward<R>(lc, u, reader(q), recorder(entering), u_end);
    anticausal_seed<R>(lc, a.ext, u_end, last, e);
    RF_UNROLL
    for (int k = 0; k < R; ++k) at(ends, 1, k) = e[k];
  }
  __syncthreads();
  // Each run from its entering state: the complete causal states, and the anticausal perimeters
  // completed with them, eq. (34).
  {
    double state[R];
    reader(entering)(g, state);
    for (int s = run_begin(lc, g); s < run_end(lc, g); ++s) {
      double x[R];
      load(pb, s, x);
      store(pb, s, state);
      if (!a.causal_only) {
        double eh[R], v[R];
        load(eb, s, eh);
        affine<R>(s == lc.blocks - 1 ? lc.H_ARB_AFP_last : lc.H_ARB_AFP, state, eh, v);
        store(eb, s, v);
      }
      apply_add(block_transfer(lc, s), state, x);
    }
  }
  if (a.causal_only) {
    // Algorithm 6: the row perimeters' share of this warp's blocks (causal filters: P only).
    if (!rows && !a.fix_in_rows)
      for (int s = run_begin(lc, g); s < run_end(lc, g); ++s) {
        double P[R], E[R];
        load(pb, s, P);
        set_zero(E);
        fix_block<R>(a, a.k->fix, fix_scratch[g], s, block, channel, P, E);
      }
    return;
  }
  {
    double x[R];
    run_backward<R>(lc, eb, g, x);
    recorder(q)(g, x);
  }
  __syncthreads();
  if (g == 0) {
    double e[R], out[R];
    if (a.ext == Extension::Repeat) {
      double zero[R], wbar[R];
      set_zero(zero);
      stitch_backward<R>(
          lc, zero, reader(q), [](int, const double(&)[R]) {}, wbar);
      affine<R>(lc.Q_n, wbar, zero, e);  // eq. (51)
    } else {
      reader(ends)(1, e);
    }
    stitch_backward<R>(lc, e, reader(q), recorder(entering), out);
  }
  __syncthreads();
  {
    double state[R];
    reader(entering)(g, state);
    const bool fix = !rows && !a.fix_in_rows;
    for (int s = run_end(lc, g) - 1; s >= run_begin(lc, g); --s) {
      double v[R];
      load(eb, s, v);
      store(eb, s, state);
      if (fix) {
        // Algorithm 6: block (s, block)'s column carries are complete now; its rows get their
        // share (the carries as stored, rounded to float, as the output stage will read them).
        double P[R], E[R];
        load(pb, s, P);
        load(eb, s, E);
        fix_block<R>(a, a.k->fix, fix_scratch[g], s, block, channel, P, E);
      }
      apply_add(block_transfer(lc, s), state, v);
    }
  }
}

// Stage 5: every block from its complete carries, written out.
template <int NR, int NC, int C>
__global__ void __launch_bounds__(kTileThreads)
    output_kernel(const Args a, const Modes<NR, NC, float> f) {
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
      RF_UNROLL
      for (int k = 0; k < kBlock; ++k) v[k] = k < pos.hm ? rd(pos.x0 + j, pos.y0 + k) : 0.f;
    });
    St w = get<NR, NC>(a.cp, pos.m, col_lines, line);
    with_block_len(pos.hm, [&](auto full) {
      constexpr bool kFull = decltype(full)::value;
      causal_block<kFull>(f, v, w, pos.hm);
      if (!a.causal_only) {
        w = get<NR, NC>(a.ce, pos.m, col_lines, line);
        anticausal_block<kFull>(f, v, w, pos.hm);
      }
    });
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) tile[k][j * C + c] = v[k];
  }
  tile_sync<C>();
  if (i < pos.hm) {
    const std::size_t line = std::size_t(c) * a.padded_height + pos.y0 + i;
    float u[kBlock];
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) u[k] = k < pos.wn ? tile[i][k * C + c] : 0.f;
    St w = get<NR, NC>(a.rp, pos.n, row_lines, line);
    with_block_len(pos.wn, [&](auto full) {
      constexpr bool kFull = decltype(full)::value;
      causal_block<kFull>(f, u, w, pos.wn);
      if (!a.causal_only) {
        w = get<NR, NC>(a.re, pos.n, row_lines, line);
        anticausal_block<kFull>(f, u, w, pos.wn);
      }
    });
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k)
      if (k < pos.wn) tile[i][k * C + c] = u[k];
  }
  tile_sync<C>();
  // Whole pixels out, a row of the block per warp instruction.
  if constexpr (C == 1) {
    const int x = pos.x0 + pos.t;
    if (pos.t < pos.wn)
      for (int k = 0; k < pos.hm; ++k)
        cuda::write<1>(a.dst, x, pos.y0 + k, cuda::Vec<1>{tile[k][pos.t]});
  } else {
    const int col = pos.t % kBlock;
    if (col < pos.wn)
      for (int k = pos.t / kBlock; k < pos.hm; k += kTileThreads / kBlock) {
        const float4 p = *reinterpret_cast<const float4*>(&tile[k][col * 4]);
        cuda::write<4>(a.dst, pos.x0 + col, pos.y0 + k, cuda::Vec<4>{p.x, p.y, p.z, p.w});
      }
  }
}

// ---------------------------------------------------------------------------------------------
// Host

std::size_t scan_shared_bytes(int order, int runs, bool fix) {
  std::size_t bytes =
      sizeof(LineConstants) + std::size_t(3 * runs + 2) * order * 32 * sizeof(double);
  if (fix) {
    // FixScratch<R>, as laid out for the largest order: sized per order below.
    const std::size_t per_warp =
        (2 * std::size_t(order) * (kBlock + 1) + 2 * std::size_t(kMaxFixRows) * order) *
        sizeof(double);
    bytes += per_warp * runs;
  }
  return bytes;
}

template <int R>
void launch_scan(const Args& a, bool rows, const LineConstants& lc, bool fix, cudaStream_t stream) {
  static_assert(
      sizeof(FixScratch<R>) == (2 * R * (kBlock + 1) + 2 * kMaxFixRows * R) * sizeof(double),
      "FixScratch layout");
  const std::size_t bytes = scan_shared_bytes(R, lc.runs, fix);
  static bool raised = false;
  if (!raised) {
    CUDA_CHECK(cudaFuncSetAttribute(scan_kernel<R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(scan_shared_bytes(R, kMaxRuns, true))));
    raised = true;
  }
  const int padded = rows ? a.padded_height : a.padded_width;
  const unsigned grid = unsigned(std::size_t(a.channels) * padded / 32);
  scan_kernel<R><<<grid, dim3(32, lc.runs), bytes, stream>>>(a, rows ? 1 : 0);
  CUDA_CHECK_LAUNCH();
}

template <int NR, int NC, int C>
void launch_frame(const Args& a, const Plan& p, const Modes<NR, NC, float>& f, bool fix_in_rows,
                  cudaStream_t stream, cudaEvent_t* marks) {
  constexpr int R = NR + 2 * NC;
  const dim3 block(32, 4);
  const dim3 grid(p.block_cols, (p.block_rows + TileShape<C>::kTiles - 1) / TileShape<C>::kTiles);
  auto mark = [&](int i) {
    if (marks) CUDA_CHECK(cudaEventRecord(marks[i], stream));
  };
  perimeters_kernel<NR, NC, C><<<grid, block, 0, stream>>>(a, f);
  CUDA_CHECK_LAUNCH();
  mark(0);
  launch_scan<R>(a, false, p.columns, !fix_in_rows, stream);
  mark(1);
  launch_scan<R>(a, true, p.rows, fix_in_rows, stream);
  mark(2);
  output_kernel<NR, NC, C><<<grid, block, 0, stream>>>(a, f);
  CUDA_CHECK_LAUNCH();
  mark(3);
}

}  // namespace

struct CudaFilter::Impl {
  Plan plan;
  bool fix_in_rows = false;
  DeviceBuffer constants, cp, ce, cx, rp, re, rz, xf, xl, zf, zl;
  Args args;
  std::function<void(const Args&, cudaStream_t, cudaEvent_t*)> launch;
};

CudaFilter::CudaFilter(const Recursive& f, Extension ext, int width, int height, int channels,
                       FixPlace place)
    : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  im.plan = make_plan(f, ext, width, height, channels);
  im.fix_in_rows = place == FixPlace::RowScan;
  const Plan& p = im.plan;

  DeviceConstants host{p.columns, p.rows, p.fix, p.fix_rows};
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
  a.height = height;
  a.channels = channels;
  a.block_rows = p.block_rows;
  a.block_cols = p.block_cols;
  a.padded_width = p.padded_width;
  a.padded_height = p.padded_height;
  a.ext = p.ext;
  a.causal_only = p.form.causal_only ? 1 : 0;
  a.fix_in_rows = im.fix_in_rows ? 1 : 0;
  a.k = static_cast<const DeviceConstants*>(im.constants.ptr);
  a.cp = zeroed(im.cp, p.column_carries());
  a.rp = zeroed(im.rp, p.row_carries());
  if (!p.form.causal_only) {
    a.ce = zeroed(im.ce, p.column_carries());
    a.re = zeroed(im.re, p.row_carries());
  }
  if (p.mirror()) {
    a.cx = zeroed(im.cx, p.column_carries());
    a.rz = zeroed(im.rz, p.row_carries());
  }
  if (p.clamp()) {
    a.xf = zeroed(im.xf, p.column_lines());
    a.xl = zeroed(im.xl, p.column_lines());
    a.zf = zeroed(im.zf, p.row_lines());
    a.zl = zeroed(im.zl, p.row_lines());
  }
  const bool ok = with_modes(p.form.real_modes, p.form.complex_pairs, [&](auto tag) {
    using Tag = decltype(tag);
    const auto modes = modes_of<Tag::kReal, Tag::kPairs, float>(p.form);
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

void CudaFilter::enqueue(const Io& src, const Io& dst, cudaStream_t stream,
                         cudaEvent_t* marks) const {
  Args a = impl_->args;
  a.src = src;
  a.dst = dst;
  impl_->launch(a, stream, marks);
}

const std::vector<std::string>& CudaFilter::stage_names() {
  static const std::vector<std::string> names = {"perimeters", "column carries", "row carries",
                                                 "output"};
  return names;
}

}  // namespace rf::fully_overlapped
