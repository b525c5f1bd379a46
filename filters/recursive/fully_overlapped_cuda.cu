// The fully overlapped filter on CUDA (fully_overlapped.h: stages 1-5; Nehab et al. 2011
// algorithm 5, Nehab & Maximo 2016 algorithm 6, in mode states): the scans, stages 2-4, then the
// host plan and launches. The block kernels, stages 1 and 5, are fully_overlapped_blocks.cuh's.
#include "filters/recursive/fully_overlapped_cuda.cuh"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "filters/core/cuda_check.cuh"
#include "filters/core/derivative.h"
#include "filters/core/device_buffer.cuh"
#include "filters/core/errors.h"
#include "filters/recursive/fully_overlapped_device.cuh"

namespace rf::fully_overlapped {
namespace device {
namespace {

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
constexpr int kChunkOf = whole_run_blocks(R);

// kWhole: every run of the launch is at most a chunk (LineMatrices::run_len), and stays in pc and
// ec from its first load to its last store: the later phases take it from the registers instead of
// loading it again behind a barrier. Kernels of their own, so that longer runs compile as before.
template <int NR, int NC, bool kWhole>
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
  if (!rows) let_next_stage_start();
  {  // the plan's constants: no stage writes them
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
  wait_for_previous_stage();  // the carries: the previous stage's
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
  float pc[kChunk][R], ec[kChunk][R], hc[kChunk][R];
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
        // A whole run's raw heads with its perimeters, not through fix_heads after the run's
        // chain: there order 1 under mirror took 1.8-3.5% longer at 1024^2 to 2048^2
        // (scan-runs-h200.json, drafts.heads_after_chain).
        if (kWhole && heads) hc[i][k] += fix_of<R>(qb, rows_w, fr.raw + k, are, arb);
      }
      if (edge_samples && n == 0)
        edges[0][lane] = a.edges.zf[line] + fix_of<R>(qb, rows_w, fr.first, are, arb);
      if (edge_samples && n == lc.blocks - 1)
        edges[1][lane] = a.edges.zl[line] + fix_of<R>(qb, rows_w, fr.last, are, arb);
    }
  };
  // The raw heads' share of the chunk from c0 (mirror, reflect101), a run longer than a chunk's.
  auto fix_heads = [&](int c0, int c1) {
    RF_UNROLL
    for (int i = 0; i < kChunk; ++i)
      if (c0 + i < c1) {
        const float* qb = q_of_block(c0 + i);
        RF_UNROLL
        for (int k = 0; k < R; ++k) hc[i][k] += fix_of<R>(qb, rows_w, fr.raw + k, are, arb);
      }
  };

  // Every run from a zero state (eq. 24), and the raw heads backwards (mirror). A run longer than a
  // chunk puts the fixed-up perimeters back for the phases that load them again. Its heads need
  // the Q of every block, of which algorithm 5 holds kMaxBatch blocks' a warp: up to order 3 they
  // are fixed up with the perimeters and put back too; at higher orders that cost the kernels
  // spills, and the heads are fixed up chunk by chunk backwards, each chunk's Q reduced again
  // where the run is longer than kMaxBatch blocks.
  constexpr bool kHeadsForward = R <= 3;
  {
    float x[R];
    set_zero(x);
    for (int c0 = s0; c0 < s1; c0 += kChunk) {
      load_chunk(pb, c0, pc);
      if (!a.causal_only) load_chunk(eb, c0, ec);
      if (kWhole && heads) load_chunk(hb, c0, hc);
      if (fix) {
        apply_fix(c0);
        if (!kWhole) {
          store_chunk(pb, c0, pc);
          if (!a.causal_only) store_chunk(eb, c0, ec);
        }
      }
      RF_UNROLL
      for (int i = 0; i < kChunk; ++i)
        if (c0 + i < s1) mode_mul_add<NR, NC>(transfer(c0 + i), x, pc[i]);
      if (!kWhole && kHeadsForward && fix && heads) {
        load_chunk(hb, c0, hc);
        fix_heads(c0, s1);
        store_chunk(hb, c0, hc);
      }
    }
    write(q, g, x);
    if (heads) {
      set_zero(x);
      for (int c1 = s1; c1 > s0; c1 -= kChunk) {
        const int c0 = max(s0, c1 - kChunk);
        if (!kWhole) {
          load_chunk(hb, c0, hc);
          if (!kHeadsForward && fix) {
            if (a.fix_in_rows && s1 - s0 > kMaxBatch) reduce_here(c0);
            fix_heads(c0, c1);
          }
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
      if (!kWhole) {
        load_chunk(pb, c0, pc);
        if (!a.causal_only) load_chunk(eb, c0, ec);
      }
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
      if (!a.causal_only && !kWhole) store_chunk(eb, c0, ec);  // a whole run's: the last phase's
    }
  }
  if (!a.causal_only) {
    float x[R];
    set_zero(x);
    for (int c1 = s1; c1 > s0; c1 -= kChunk) {
      const int c0 = max(s0, c1 - kChunk);
      if (!kWhole) load_chunk(eb, c0, ec);
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
      if (!kWhole) load_chunk(eb, c0, ec);
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
      if (!kWhole) {
        load_chunk(pb, c0, pc);
        if (!a.causal_only) load_chunk(eb, c0, ec);
      }
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

template <int NR, int NC, bool kBatch, bool kWhole>
__global__ void __launch_bounds__(32 * kMaxRuns) scan_kernel(const Args frames, const int rows) {
  if constexpr (kBatch)
    scan<NR, NC, kWhole>(frame_args(frames, blockIdx.y), rows);
  else
    scan<NR, NC, kWhole>(frames, rows);
}

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
  for (auto kernel : {scan_kernel<NR, NC, false, false>, scan_kernel<NR, NC, true, false>,
                      scan_kernel<NR, NC, false, true>, scan_kernel<NR, NC, true, true>})
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  allowed = bytes;
}

template <int R>
std::size_t scan_bytes(const Args& a, bool rows, const LineConstants& lc, int rows_w) {
  return scan_shared_bytes<R>(lc.runs, rows_w, rows && a.fix_in_rows);
}

template <int NR, int NC>
void launch_scan(const Args& a, bool rows, const LineConstants& lc, int rows_w, bool overlap,
                 cudaStream_t stream) {
  const int padded = rows ? a.padded_height : a.padded_width;
  const unsigned grid = unsigned(std::size_t(a.channels) * padded / 32);
  const std::size_t bytes = scan_bytes<NR + 2 * NC>(a, rows, lc, rows_w);
  const dim3 block(32, lc.runs);
  const int line_rows = rows ? 1 : 0;
  auto go = [&](auto whole) {
    constexpr bool kWhole = decltype(whole)::value;
    if (a.batch.frames > 1)
      launch(overlap, scan_kernel<NR, NC, true, kWhole>, dim3(grid, unsigned(a.batch.frames)),
             block, bytes, stream, a, line_rows);
    else
      launch(overlap, scan_kernel<NR, NC, false, kWhole>, dim3(grid), block, bytes, stream, a,
             line_rows);
  };
  if (lc.run_len <= kChunkOf<NR + 2 * NC>)
    go(std::true_type{});
  else
    go(std::false_type{});
}

}  // namespace

ScanSlots scan_slots() {
  using cuda::device_attribute;
  const int regs_per_sm = device_attribute(cudaDevAttrMaxRegistersPerMultiprocessor);
  const int threads_per_sm = device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
  // The instantiations take their launch bound's 128 registers (order 1's whole runs 97-108);
  // they are given out to a warp in steps of 256.
  cudaFuncAttributes f{};
  CUDA_CHECK(cudaFuncGetAttributes(&f, scan_kernel<1, 1, false, false>));
  const int per_warp = (std::max(f.numRegs, 1) * 32 + 255) / 256 * 256;
  ScanSlots s;
  s.sms = device_attribute(cudaDevAttrMultiProcessorCount);
  s.warps_per_sm = std::max(1, std::min(regs_per_sm / per_warp, threads_per_sm / 32));
  s.l2_bytes = device_attribute(cudaDevAttrL2CacheSize);
  return s;
}

}  // namespace device

using cuda::DeviceBuffer;
using cuda::Io;
using device::Args;
using device::DeviceConstants;
using device::q_stride;

struct CudaFilter::Impl {
  Plan plan;
  DeviceBuffer constants, cp, ce, cx, rp, re, rz, xf, xl, zf, zl, q;
  Args args;
  device::StageLaunch perimeters, output;
  std::function<void(const Args&, bool rows, cudaStream_t)> scan;
};

CudaFilter::CudaFilter(const AxisDesigns& filters, Extension ext, int width, int height,
                       int channels, FixPlace place, double cval, int frames,
                       const OutputDifference& diff)
    : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  // Padded rows: the frame planned is the image with a row of its extension above and below.
  const bool padded = pads_rows(diff, ext);
  const int rows = height + (padded ? 2 : 0);
  im.plan = make_plan(filters, ext, width, rows, channels, cval, frames, device::scan_slots());
  if (diff.any() && (!takes_difference(diff, ext) || im.plan.causal_only() || frames > 1))
    throw InvalidParameter("fully overlapped filter: no difference in the output stage under " +
                           std::string(to_string(ext)) + ", for a causal filter or a batch");
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
  a.fix_in_rows = place == FixPlace::RowScan ? 1 : 0;
  a.k = static_cast<const DeviceConstants*>(im.constants.ptr);
  // The difference's weights, derivative.h's, the scale on the first axis that takes one.
  a.diff.x = diff.x;
  a.diff.y = diff.y;
  a.diff.skip = padded ? 1 : 0;
  const int before = extend_index(-1, rows, p.ext), after = extend_index(rows, rows, p.ext);
  a.diff.row_before = before < 0 ? 0 : before;
  a.diff.row_after = after < 0 ? rows - 1 : after;
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
  if (!a.fix_in_rows) a.q = zeroed(im.q, n * b.q);
  if (p.edges()) {
    a.edges.xf = zeroed(im.xf, n * b.column_lines);
    a.edges.xl = zeroed(im.xl, n * b.column_lines);
    a.edges.zf = zeroed(im.zf, n * b.row_lines);
    a.edges.zl = zeroed(im.zl, n * b.row_lines);
  }
  const bool overlap = device::overlapping_launches();
  const bool ok = with_modes(p.column_form.real_modes, p.column_form.complex_pairs, [&](auto tag) {
    using Tag = decltype(tag);
    constexpr int NR = Tag::kReal, NC = Tag::kPairs, R = Tag::kOrder;
    device::allow_scan_shared<NR, NC>(
        std::max(device::scan_bytes<R>(a, false, p.columns, p.fix.rows_w),
                 device::scan_bytes<R>(a, true, p.rows, p.fix.rows_w)));
    const Plan* plan = &im.plan;
    im.scan = [plan, overlap](const Args& args, bool rows, cudaStream_t s) {
      device::launch_scan<NR, NC>(args, rows, rows ? plan->rows : plan->columns, plan->fix.rows_w,
                                  overlap, s);
    };
  });
  if (!ok) throw InvalidParameter("fully overlapped filter: unsupported order");
  device::BlockLaunches blocks =
      channels == 1 ? device::block_launches<1>(p, overlap) : device::block_launches<4>(p, overlap);
  im.perimeters = std::move(blocks.perimeters);
  im.output = std::move(blocks.output);
}

CudaFilter::~CudaFilter() = default;

void CudaFilter::enqueue(const Io& src, const Io& dst, cudaStream_t stream, cudaEvent_t* marks) {
  Args a = impl_->args;
  a.src = src;
  a.dst = dst;
  a.batch.src = src.pitch * std::size_t(a.height);
  a.batch.dst = dst.pitch * std::size_t(a.height);
  auto mark = [&](int i) {
    if (marks) CUDA_CHECK(cudaEventRecord(marks[i], stream));
  };
  impl_->perimeters(a, stream);
  mark(0);
  impl_->scan(a, false, stream);
  mark(1);
  impl_->scan(a, true, stream);
  mark(2);
  impl_->output(a, stream);
  mark(3);
}

void CudaFilter::combine_with(const Io& other, bool squares) {
  if (impl_->args.diff.x || !impl_->args.diff.y)
    throw std::logic_error("CudaFilter::combine_with without a difference along y alone");
  impl_->args.diff.partner = other;
  impl_->args.diff.squares = squares ? 1 : 0;
}

bool CudaFilter::batches() const {
  return impl_->args.batch.frames > 1;
}

std::string CudaFilter::algorithm() const {
  return to_string(impl_->args.fix_in_rows ? Algorithm::Alg5 : Algorithm::Alg6);
}

std::vector<std::string> CudaFilter::stage_names() const {
  return {"perimeters", "column carries", "row carries", "output"};
}

}  // namespace rf::fully_overlapped