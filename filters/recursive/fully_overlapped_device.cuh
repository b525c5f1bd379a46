// The fully overlapped filter's device side (fully_overlapped_cuda.cuh), shared by its three
// translation units so that the build compiles them side by side: the launch arguments and the
// block kernels' helpers here; the block kernels, stages 1 and 5, in fully_overlapped_blocks.cuh,
// compiled once per channel count (fully_overlapped_blocks_1.cu, _4.cu); the scans, stages 2-4,
// and the host plan in fully_overlapped_cuda.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>

#include "filters/core/cuda_check.cuh"
#include "filters/core/cuda_launch.cuh"
#include "filters/core/io.cuh"
#include "filters/recursive/fully_overlapped.h"
#include "filters/recursive/fully_overlapped_math.h"

namespace rf::fully_overlapped::device {

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
    // The rows the extension continues the frame with above its first row and below its last
    // (extend_index), where a difference along y takes them; the row itself where it has none.
    int row_before = 0, row_after = 0;
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

// A one-channel frame's samples as floats: io.cuh's reader of one kind, chosen once, whose
// rd(x, y) and cursor rd.column(x, y0) give the sample's float rather than a Vec<1>.
template <class Rd>
struct ChannelReader {
  Rd rd;
  struct Column {
    typename Rd::Column col;
    __device__ float at() const { return col.at().v[0]; }
    __device__ auto raw() const { return col.raw(); }
    template <class T>
    static __device__ float decode(T v) {
      return Rd::Column::decode(v);
    }
    __device__ void next() { col.next(); }
  };
  __device__ float operator()(int x, int y) const { return rd(x, y).v[0]; }
  __device__ Column column(int x, int y0) const { return {rd.column(x, y0)}; }
};

// Calls f(rd) with the one-channel reader of io's kind (ChannelReader), chosen by a switch: through
// the if chain of io.cuh's with_reader<1> ptxas took some of the block kernels from 64 registers
// to 72 (8 CTAs an SM to 7).
template <class F>
__device__ __forceinline__ void with_channel_reader(const Io& io, F&& f) {
  using cuda::Reader;
  switch (io.kind) {
    case IoKind::SurfF32:
      f(ChannelReader<Reader<1, IoKind::SurfF32>>{{io.surf}});
      break;
    case IoKind::U16:
      f(ChannelReader<Reader<1, IoKind::U16>>{{io.ptr, io.pitch}});
      break;
    case IoKind::F16:
      f(ChannelReader<Reader<1, IoKind::F16>>{{io.ptr, io.pitch}});
      break;
    default:
      f(ChannelReader<Reader<1, IoKind::F32>>{{io.ptr, io.pitch}});
  }
}

// The image row that row y of a frame with padded rows (Args::Difference::skip) holds: y - 1,
// and past the image's ends its extension's, the first or last row (clamp) or -1 for the
// constant the columns see (zero, constant).
__device__ __forceinline__ int padded_row(const Args& a, int y) {
  const int n = a.height - 2, row = y - 1;
  if (row >= 0 && row < n) return row;
  return a.ext == Extension::Clamp ? (row < 0 ? 0 : n - 1) : -1;
}

// Sample (x, y) of a frame with padded rows through rd (padded_row).
template <class Rd>
__device__ __forceinline__ float frame_sample(const Args& a, Rd rd, int x, int y) {
  const int row = padded_row(a, y);
  return row >= 0 ? rd(x, row) : a.constant[0];
}

// Column x of the block's rows y0 .. y0 + len - 1 through rd into v, zeros past len; with
// kPadded, of a frame with padded rows (frame_sample), whose rows beyond the image are the first
// block row's first and the last block row's last: the others are the image's rows y - 1.
template <bool kPadded, class Rd>
__device__ __forceinline__ void load_column(const Args& a, Rd rd, int x, int y0, int len,
                                            float (&v)[kBlock]) {
  if constexpr (!kPadded) {
    // The stored values first, zero past len (which decodes to 0), then decoded: with each load
    // and its conversion under one predicate, ptxas issued a 16-bit frame's loads a few at a
    // time between conversions, and the output stage of a 512^2 uint16 or float16 frame took 1.5
    // times float32's (docs/bench/README.md, "16-bit frames: the output stage's loads").
    auto col = rd.column(x, y0);
    using Column = decltype(col);
    using Raw = decltype(col.raw());
    Raw raw[kBlock];
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k, col.next()) raw[k] = k < len ? col.raw() : Raw(0);
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) v[k] = Column::decode(raw[k]);
  } else {
    // The image's rows through a cursor: row k of the block is the image's row y0 + k - 1.
    const bool first = y0 == 0, last = y0 + len == a.height;
    const int inside = last ? len - 1 : len;
    auto col = rd.column(x, first ? 0 : y0 - 1);
    if (first) {
      RF_UNROLL
      for (int k = 1; k < kBlock; ++k, col.next()) v[k] = k < inside ? col.at() : 0.f;
      v[0] = frame_sample(a, rd, x, 0);
    } else {
      RF_UNROLL
      for (int k = 0; k < kBlock; ++k, col.next()) v[k] = k < inside ? col.at() : 0.f;
    }
    if (last) {
      const float beyond = frame_sample(a, rd, x, a.height - 1);
      RF_UNROLL
      for (int k = 0; k < kBlock; ++k)
        if (k == len - 1) v[k] = beyond;
    }
  }
}

// Four channels: the block's pixels into the tile as floats (zeros past the frame's ends), a
// warp a row of 32 whole pixels a load through io.cuh's readers, so that a lane's line of one
// channel then costs a shared load a sample. Read a channel a lane from memory, each sample took
// a load of its own float or byte with its row's 64-bit address. A lane has 4 pixels in flight at
// once, not all 8: four floats' 16 KB a CTA at once, with the 8 CTAs an SM the block kernels now
// fit, made 4096^2 order 1 1.13-1.19 of the time before (docs/bench/README.md, "Four channels,
// whole pixels a load"). With kPadded, the frame may have padded rows (padded_row).
template <bool kPadded>
__device__ __forceinline__ void load_tile(const Args& a, int t, int x0, int y0, int wn, int hm,
                                          float (&tile)[kBlock][TileShape<4>::kStride]) {
  constexpr int kStep = kTileThreads / kBlock;
  const int col = t % kBlock, x = x0 + col;
  constexpr int kInFlight = 4;  // pixels a lane loads before it stores them (below)
  cuda::with_reader<4, cuda::Kinds::No16>(a.src, [&](auto rd) {
    RF_UNROLL
    for (int r0 = 0; r0 < kBlock / kStep; r0 += kInFlight) {
      cuda::Vec<4> p[kInFlight];
      RF_UNROLL
      for (int r = 0; r < kInFlight; ++r) {
        const int k = t / kBlock + (r0 + r) * kStep;
        p[r] = cuda::zero_vec<4, float>();
        if (col < wn && k < hm) {
          const int row = kPadded && a.diff.skip ? padded_row(a, y0 + k) : y0 + k;
          p[r] = row >= 0 ? rd(x, row) : cuda::filled<4, float>(a.constant[0]);
        }
      }
      RF_UNROLL
      for (int r = 0; r < kInFlight; ++r) {
        const int k = t / kBlock + (r0 + r) * kStep;
        *reinterpret_cast<float4*>(&tile[k][col * 4]) =
            make_float4(p[r].v[0], p[r].v[1], p[r].v[2], p[r].v[3]);
      }
      asm volatile("" ::: "memory");  // the next loads after these stores
    }
  });
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

// shift_later and shift_earlier (fully_overlapped_math.h) through the lane's own line of the
// tile (element k at p[k * stride]) rather than a barrel shift in registers, which took the
// perimeters to 72-96 registers and spilled the difference kernels. Only partial blocks move.
__device__ __forceinline__ void shift_later_through(float (&v)[kBlock], int s, float* p,
                                                    int stride) {
  if (s == 0) return;
  RF_UNROLL
  for (int k = 0; k < kBlock; ++k) p[k * stride] = v[k];
  const float* q = p - s * stride;
  RF_UNROLL
  for (int k = 0; k < kBlock; ++k) v[k] = k >= s ? q[k * stride] : 0.f;
}
__device__ __forceinline__ void shift_earlier_through(float (&v)[kBlock], int s, float* p,
                                                      int stride) {
  if (s == 0) return;
  RF_UNROLL
  for (int k = 0; k < kBlock; ++k) p[k * stride] = v[k];
  const float* q = p + s * stride;
  RF_UNROLL
  for (int k = 0; k < kBlock; ++k) v[k] = k + s < kBlock ? q[k * stride] : 0.f;
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
// Stages that overlap: a frame's scans and its output stage are programmatic dependent launches
// (filters/core/cuda_launch.cuh), each waiting for the previous stage's results only where it
// reads them: after its own prologue, the scans' constants and the output's image block. The
// column scan lets the row scan start at once; the perimeters and the row scan let the next stage
// start only as they end: early there too, 1024^2 one-channel frames took up to 16% longer and
// order 5 up to 4% (docs/bench/README.md, "Stages that overlap").
using cuda::launch;
using cuda::let_next_stage_start;
using cuda::overlapping_launches;
using cuda::wait_for_previous_stage;

// The current device's SMs, the scan kernel's warps each holds, its L2 cache (make_plan's runs).
ScanSlots scan_slots();

// A stage's launches of one frame, or of a batch, for its arguments.
using StageLaunch = std::function<void(const Args&, cudaStream_t)>;

// The block kernels' launches for a plan with C channels (1 or 4): stage 1 (perimeters) and
// stage 5 (output, with the plan's difference if any; overlapping the row scan with `overlap`),
// each kernel chosen by the arguments.
struct BlockLaunches {
  StageLaunch perimeters, output;
};
template <int C>
BlockLaunches block_launches(const Plan& plan, bool overlap);  // fully_overlapped_blocks_C.cu

}  // namespace rf::fully_overlapped::device
