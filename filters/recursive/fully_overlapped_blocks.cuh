// The fully overlapped filter's block kernels (fully_overlapped.h: stage 1, the perimeters, and
// stage 5, the output), for one channel count a translation unit: fully_overlapped_blocks_1.cu
// and fully_overlapped_blocks_4.cu instantiate block_launches.
#pragma once

#include "filters/core/cuda_check.cuh"
#include "filters/core/derivative.h"
#include "filters/recursive/fully_overlapped_device.cuh"

namespace rf::fully_overlapped::device {

// The axes an output stage's difference is taken along (a mask).
constexpr int kAlongX = 1, kAlongY = 2;

// Whether the perimeters take a partial block through the full block's passes (below): a padded
// frame's one-channel kernels at orders 1 to 3, whose frames took 0.93-1.00 of the time of a
// partial block's own passes at orders 1 and 3 (partial-perimeters-h200.json). The others keep
// those (with_block_len): one copy cost four channels at order 3 and order 5 on HD frames 1-2.5%.
template <int NR, int NC, int C, bool kPadded>
constexpr bool kOneCopyPerimeters = (kPadded && C == 1 && NR + 2 * NC <= 3);

// Stage 1: every block's perimeters from the input alone (zero entering states).
template <int NR, int NC, int C, bool kPadded>
__device__ __forceinline__ void perimeters(const Args& a, const Modes<NR, NC, float>& fc,
                                           const Modes<NR, NC, float>& fr,
                                           const HeadWeights<float>& row_heads) {
  using Shape = TileShape<C>;
  using St = State<NR, NC, float>;
  __shared__ __align__(16) float tiles[Shape::kTiles][kBlock][Shape::kStride];
  const TilePos<C> pos(a);
  if (pos.m >= a.block_rows) return;  // one channel: a warp past the last block row
  float(&tile)[kBlock][Shape::kStride] = tiles[pos.which];
  const std::size_t col_lines = std::size_t(C) * a.padded_width;
  const std::size_t row_lines = std::size_t(C) * a.padded_height;
  const bool heads = reads_heads(a.ext), edge_samples = reads_edges(a.ext);
  const int c = pos.c, j = pos.line_index, i = pos.line_index;

  if constexpr (C == 4) {  // the block's pixels into the tile, which then holds the input
    load_tile<kPadded>(a, pos.t, pos.x0, pos.y0, pos.wn, pos.hm, tile);
    tile_sync<C>();
  }
  if (j < pos.wn) {
    const std::size_t line = std::size_t(c) * a.padded_width + pos.x0 + j;
    float v[kBlock];
    if constexpr (C == 1) {
      with_channel_reader(a.src, [&](auto rd) {
        // The plain loads written out rather than through load_column<false> and a helper for
        // the last sample: the same code through them takes ptxas to 72 registers where this
        // takes 64 for the smoothing's perimeters at order 5, one channel (8 CTAs an SM -> 7).
        if constexpr (kPadded) {
          load_column<true>(a, rd, pos.x0 + j, pos.y0, pos.hm, v);
          if (edge_samples) {
            if (pos.m == 0) a.edges.xf[line] = v[0];
            if (pos.m == a.block_rows - 1)
              a.edges.xl[line] = frame_sample(a, rd, pos.x0 + j, pos.y0 + pos.hm - 1);
          }
        } else {  // a cursor, the full block unpredicated (60 registers, not 68)
          auto col = rd.column(pos.x0 + j, pos.y0);
          if (pos.hm == kBlock) {
            RF_UNROLL
            for (int k = 0; k < kBlock; ++k, col.next()) v[k] = col.at();
          } else {
            RF_UNROLL
            for (int k = 0; k < kBlock; ++k, col.next()) v[k] = k < pos.hm ? col.at() : 0.f;
          }
          if (edge_samples) {
            if (pos.m == 0) a.edges.xf[line] = v[0];
            if (pos.m == a.block_rows - 1) a.edges.xl[line] = rd(pos.x0 + j, pos.y0 + pos.hm - 1);
          }
        }
      });
      // Mirror also needs the anticausal recursion of the input itself: its samples wait in
      // this thread's tile column, so that the register file holds one copy of the block.
      if (heads) {
        RF_UNROLL
        for (int k = 0; k < kBlock; ++k) tile[k][j] = v[k];
      }
    } else {
      // The column from the tile, where the input stays for mirror's heads. The tile holds zeros
      // past the frame, but read unpredicated ptxas took these kernels to 94-96 registers, not
      // 56-67 (four-channel-tiles-h200.json, drafts.first).
      RF_UNROLL
      for (int k = 0; k < kBlock; ++k) v[k] = k < pos.hm ? tile[k][j * C + c] : 0.f;
      if (edge_samples) {
        if (pos.m == 0) a.edges.xf[line] = v[0];
        if (pos.m == a.block_rows - 1) a.edges.xl[line] = tile[pos.hm - 1][j * C + c];
      }
    }
    auto input = [&](int k) { return tile[k][j * C + c]; };  // for the heads
    if constexpr (kOneCopyPerimeters<NR, NC, C, kPadded>) {
      // A partial block (the frame's last block row or column) takes the full block's passes
      // from zero states over its zeros past the end: the causal outputs before them are exact,
      // and through the zeros the anticausal state stays zero once the causal outputs there are
      // set to zero (zero_from). Only the causal end state takes a pass of its own (causal_tail).
      const bool partial = pos.hm < kBlock;
      if (partial) put(a.cp, pos.m, col_lines, line, causal_tail(fc, v, pos.hm));
      St w = zero_state<NR, NC, float>();
      causal_block<true>(fc, v, w, kBlock);
      if (!partial) put(a.cp, pos.m, col_lines, line, w);
      if (!a.causal_only) {
        if (partial) zero_from(v, pos.hm);
        w = zero_state<NR, NC, float>();
        anticausal_block<true>(fc, v, w, kBlock);
        put(a.ce, pos.m, col_lines, line, w);
      }
      if (heads)  // the input in the tile, zeros past the frame
        put(a.cx, pos.m, col_lines, line, anticausal_head_of<true>(fc, kBlock, input));
    } else {
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
        if (heads) put(a.cx, pos.m, col_lines, line, anticausal_head_of<kFull>(fc, pos.hm, input));
      });
    }
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
    if constexpr (kOneCopyPerimeters<NR, NC, C, kPadded>) {  // as the columns (above); the heads
      // from u, zeros past the block
      const bool partial = pos.wn < kBlock;
      if (heads) put(a.rz, pos.n, row_lines, line, anticausal_head<true>(fr, u, kBlock));
      if (partial) put(a.rp, pos.n, row_lines, line, causal_tail(fr, u, pos.wn));
      St w = zero_state<NR, NC, float>();
      causal_block<true>(fr, u, w, kBlock);
      if (!partial) put(a.rp, pos.n, row_lines, line, w);
      if (!a.causal_only) {
        if (partial) zero_from(u, pos.wn);
        put(a.re, pos.n, row_lines, line, anticausal_head<true>(fr, u, kBlock));
      }
    } else {
      with_block_len(pos.wn, [&](auto full) {
        constexpr bool kFull = decltype(full)::value;
        if (heads)
          put(a.rz, pos.n, row_lines, line,
              anticausal_head_of<kFull>(fr, pos.wn, [&](int k) { return tile[i][k * C + c]; }));
        if constexpr (kFull && NR + 2 * NC > 1) {
          // E from its weights (HeadWeights): the causal pass need not output. At order 1 the
          // passes cost as much (docs/bench/perimeter-weights-h200.json).
          put(a.rp, pos.n, row_lines, line, causal_tail(fr, u, kBlock));
          if (!a.causal_only)
            put(a.re, pos.n, row_lines, line,
                weighted_state<NR, NC>(row_heads.w, [&](int k) { return u[k]; }));
        } else {
          St w = zero_state<NR, NC, float>();
          causal_block<kFull>(fr, u, w, pos.wn);
          put(a.rp, pos.n, row_lines, line, w);
          if (!a.causal_only)
            put(a.re, pos.n, row_lines, line, anticausal_head<kFull>(fr, u, pos.wn));
        }
      });
    }
  }
}

// A kernel per stage, and one more for a batch, so that a single frame's kernel reads its
// arguments where they are passed, as before batches: moving the pointers on to a frame costs a
// single frame a fifth of its speed (docs/bench/README.md, "Batches"). Padded rows (a derivative's
// frames, never a batch) take one more, so that their reads cost the others no registers. Those of
// one copy of the passes are held to the 64 registers of 8 CTAs an SM (0: no minimum; a minimum of
// 1 let ptxas take the other kernels to 70-128 registers).
template <int NR, int NC, int C, bool kBatch, bool kPadded = false>
__global__ void __launch_bounds__(kTileThreads, kOneCopyPerimeters<NR, NC, C, kPadded> ? 8 : 0)
    perimeters_kernel(const Args frames, const Modes<NR, NC, float> fc,
                      const Modes<NR, NC, float> fr, const HeadWeights<float> row_heads) {
  if constexpr (kBatch)
    perimeters<NR, NC, C, false>(frame_args(frames, blockIdx.z), fc, fr, row_heads);
  else
    perimeters<NR, NC, C, kPadded>(frames, fc, fr, row_heads);
}

// The carry of block s of row y of a channel (whose rows start at line `first`) that the output
// stage's rows run from: the row's own, or with a difference along y (kDiff) the same difference of
// the carries of the rows around it, those beyond the image's ends the rows the extension continues
// it with (OutputDifference; Args::Difference::row_before and row_after), since a row's carries are
// linear in the row alone.
template <int NR, int NC, bool kDiff>
__device__ __forceinline__ State<NR, NC, float> row_carry(const Args& a, const float* base, int s,
                                                          std::size_t lines, std::size_t first,
                                                          int y) {
  using St = State<NR, NC, float>;
  if constexpr (!kDiff) {
    return get<NR, NC>(base, s, lines, first + y);
  } else {
    const float(&d)[3] = a.diff.wy;
    const int above = y > 0 ? y - 1 : a.diff.row_before;
    const int below = y + 1 < a.height ? y + 1 : a.diff.row_after;
    const St lo = get<NR, NC>(base, s, lines, first + above);
    const St hi = get<NR, NC>(base, s, lines, first + below);
    St w;
    RF_UNROLL
    for (int k = 0; k < NR + 2 * NC; ++k) w[k] = d[0] * lo[k];
    if (d[1] != 0.f) {  // a second difference; a first one has no middle term
      const St mid = get<NR, NC>(base, s, lines, first + y);
      RF_UNROLL
      for (int k = 0; k < NR + 2 * NC; ++k) w[k] = fused(d[1], mid[k], w[k]);
    }
    RF_UNROLL
    for (int k = 0; k < NR + 2 * NC; ++k) w[k] = fused(d[2], hi[k], w[k]);
    return w;
  }
}

// Stage 5: every block from its complete carries, written out; with a difference along the axes
// of kDiff (OutputDifference; kernels of their own, so that the registers it takes do not cost the
// smoothing its occupancy), along y in the columns' anticausal pass, along x in the rows'; with
// kCombine, combined with a measure's other term (Args::Difference::partner).
template <int NR, int NC, int C, int kDiff, bool kCombine = false>
__device__ __forceinline__ void output(const Args& a, const Modes<NR, NC, float>& fc,
                                       const Modes<NR, NC, float>& fr) {
  // The axes of the difference, known to the compiler: block_launches picks the kernel by the
  // arguments' axes, and a difference is never taken of a causal filter (CudaFilter refuses it).
  // Read from the arguments instead, each kernel also held the other branches' code, and d/dy's
  // output stage at 4096^2 stalled a sixth of its time on instruction fetch (docs/bench/README.md,
  // Derivatives).
  constexpr bool dx = (kDiff & kAlongX) != 0, dy = (kDiff & kAlongY) != 0;
  const bool causal_only = kDiff == 0 && a.causal_only;
  const int skip = dy ? a.diff.skip : 0;
  using Shape = TileShape<C>;
  using St = State<NR, NC, float>;
  __shared__ __align__(16) float tiles[Shape::kTiles][kBlock][Shape::kStride];
  const TilePos<C> pos(a);
  if (pos.m >= a.block_rows) return;
  float(&tile)[kBlock][Shape::kStride] = tiles[pos.which];
  const std::size_t col_lines = std::size_t(C) * a.padded_width;
  const std::size_t row_lines = std::size_t(C) * a.padded_height;
  const int c = pos.c, j = pos.line_index, i = pos.line_index;

  float v[kBlock];
  if constexpr (C == 1) {
    if (j < pos.wn)
      with_channel_reader(a.src, [&](auto rd) {
        if (skip)
          load_column<true>(a, rd, pos.x0 + j, pos.y0, pos.hm, v);
        else
          load_column<false>(a, rd, pos.x0 + j, pos.y0, pos.hm, v);
      });
    // The image block is in flight; the carries are the row scan's.
    wait_for_previous_stage();
  } else {
    // The image block into the tile and this lane's line out of it; the carries are the row
    // scan's.
    load_tile<dy>(a, pos.t, pos.x0, pos.y0, pos.wn, pos.hm, tile);
    tile_sync<C>();
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) v[k] = tile[k][j * C + c];  // zeros past the frame
    wait_for_previous_stage();
  }
  // The column and the row passes below are written out alike rather than through one helper:
  // through one, ptxas moved the difference kernels' spills and d/dx and d/dy at 4096^2 four
  // channels took 3-5% longer (overlapped-stages-h200.json, drafts: line_output_helper).
  if (j < pos.wn) {
    const std::size_t line = std::size_t(c) * a.padded_width + pos.x0 + j;
    St w = get<NR, NC>(a.cp, pos.m, col_lines, line);
    const float above = dy ? mode_sum(w) : 0.f;  // the causal output there
    // A partial block through the full block's passes (shift_later_through): from the carries, its
    // zeros after it for the causal pass and before it for the anticausal one.
    const int pad = kBlock - pos.hm;
    float* own = &tile[0][j * C + c];  // this lane's column, free until the outputs go there
    causal_block<true>(fc, v, w, kBlock);
    if (!causal_only) {
      w = get<NR, NC>(a.ce, pos.m, col_lines, line);
      shift_later_through(v, pad, own, Shape::kStride);
      if constexpr (!dy) {
        anticausal_block<true>(fc, v, w, kBlock);
      } else if constexpr (NR + 2 * NC <= 3) {
        set_before(v, pad, above);
        anticausal_difference_block<true>(fc, v, w, kBlock, above, a.diff.y, a.diff.wy);
      } else {
        // Orders 4 and 5 difference their columns after the pass: in it, d/dy at order 5
        // took 1.20 of the smoothing's time at 4096^2 where after it 1.11
        // (derivative-passes-h200.json).
        const float below = mode_sum(w);
        set_before(v, pad, above);
        anticausal_block<true>(fc, v, w, kBlock);
        difference_block<true>(v, kBlock, output_before(fc, w, above), below, a.diff.y, a.diff.wy);
      }
      shift_earlier_through(v, pad, own, Shape::kStride);
    }
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) tile[k][j * C + c] = v[k];
  }
  tile_sync<C>();
  if (i < pos.hm) {
    const std::size_t first = std::size_t(c) * a.padded_height;
    float u[kBlock];
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) u[k] = k < pos.wn ? tile[i][k * C + c] : 0.f;
    St w = row_carry<NR, NC, dy>(a, a.rp, pos.n, row_lines, first, pos.y0 + i);
    const float left = dx ? mode_sum(w) : 0.f;  // the causal output there
    const int pad = kBlock - pos.wn;
    float* own = &tile[i][c];  // this lane's row, read into u
    causal_block<true>(fr, u, w, kBlock);
    if (!causal_only) {
      w = row_carry<NR, NC, dy>(a, a.re, pos.n, row_lines, first, pos.y0 + i);
      shift_later_through(u, pad, own, C);
      if constexpr (!dx) {
        anticausal_block<true>(fr, u, w, kBlock);
      } else if constexpr (kDiff == kAlongX || NR + 2 * NC <= 3) {
        set_before(u, pad, left);
        anticausal_difference_block<true>(fr, u, w, kBlock, left, a.diff.x, a.diff.wx);
      } else {
        // A difference along both axes at orders 4 and 5 takes its rows' after the pass too:
        // in it, d2/dxdy at order 5 took 1.25 of the smoothing's time at 4096^2 where after
        // it 1.13 (derivative-passes-h200.json).
        const float right = mode_sum(w);
        set_before(u, pad, left);
        anticausal_block<true>(fr, u, w, kBlock);
        difference_block<true>(u, kBlock, output_before(fr, w, left), right, a.diff.x, a.diff.wx);
      }
      shift_earlier_through(u, pad, own, C);
    }
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k)
      if (k < pos.wn) tile[i][k * C + c] = u[k];
  }
  tile_sync<C>();
  // Whole pixels out, a row of the block per warp instruction: one column of the block a thread
  // (C = 1), or a pixel of every kStep-th row. A measure's other term is loaded for 8 of the
  // thread's rows (4 pixels of four channels: 8 took registers the difference spilled) before
  // they are written, so that those loads are in flight together.
  constexpr int kStep = C == 1 ? 1 : kTileThreads / kBlock;
  constexpr int kRows = kBlock / kStep;
  const int col = C == 1 ? pos.t : pos.t % kBlock, first = C == 1 ? 0 : pos.t / kBlock;
  if (col >= pos.wn) return;
  const int x = pos.x0 + col;
  // The row of the output that row k of the block is written at, -1 for none (padded rows).
  auto out_row = [&](int k) {
    if constexpr (kDiff != 0) {
      const int y = pos.y0 + k - skip;
      return y < a.height - 2 * skip ? y : -1;
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
    constexpr int kChunk = C == 1 ? 8 : 4;  // loads in flight at once
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
    if constexpr (kDiff != 0) {
      shift = skip;
      if (begin < shift - pos.y0) begin += kStep;
      end = min(end, a.height - shift - pos.y0);
    }
    cuda::with_writer<C>(a.dst, [&](auto wr) {
      auto out = wr.column(x, pos.y0 + begin - shift, kStep);
      for (int k = begin; k < end; k += kStep, out.next()) out.put(pixel(k));
    });
  }
}

template <int NR, int NC, int C, bool kBatch>
__global__ void __launch_bounds__(kTileThreads)
    output_kernel(const Args frames, const Modes<NR, NC, float> fc, const Modes<NR, NC, float> fr) {
  if constexpr (kBatch)
    output<NR, NC, C, 0>(frame_args(frames, blockIdx.z), fc, fr);
  else
    output<NR, NC, C, 0>(frames, fc, fr);
}

// CTAs an SM holds of the output stage with a difference along one axis: 8 caps it at 64
// registers, the smoothing's own at most orders; along y some spill (one channel up to 36 bytes,
// four channels up to 460 at orders 4 and 5), where 7 CTAs (72 registers) took d/dy as long at
// 4096^2 and 3-7% longer at 1024^2 and 2048^2; along both axes, 7, where 8 spilled up to 104
// bytes and took d2/dxdy 1.15 of the time at 7 (docs/bench/README.md, Derivatives).
constexpr int difference_ctas(int axes) {
  return axes == (kAlongX | kAlongY) ? 7 : 8;
}

// The output stage with a difference along kAxes (kAlongX, kAlongY or both), one frame a launch;
// with kCombine (along y alone: CudaFilter::combine_with), combined with a measure's other term.
// A kernel for each axis alone, so that neither carries the other's registers.
template <int NR, int NC, int C, int kAxes, bool kCombine>
__global__ void __launch_bounds__(kTileThreads, difference_ctas(kAxes))
    difference_output_kernel(const Args a, const Modes<NR, NC, float> fc,
                             const Modes<NR, NC, float> fr) {
  output<NR, NC, C, kAxes, kCombine>(a, fc, fr);
}

template <int C>
BlockLaunches block_launches(const Plan& p, bool overlap) {
  BlockLaunches out;
  const dim3 block(32, 4);
  const dim3 grid(p.block_cols, (p.block_rows + TileShape<C>::kTiles - 1) / TileShape<C>::kTiles);
  with_modes(p.column_form.real_modes, p.column_form.complex_pairs, [&](auto tag) {
    using Tag = decltype(tag);
    constexpr int NR = Tag::kReal, NC = Tag::kPairs;
    const Modes<NR, NC, float> fc = modes_of<NR, NC, float>(p.column_form),
                               fr = modes_of<NR, NC, float>(p.row_form);
    HeadWeights<float> row_heads;  // in the kernels' parameters: FMAs with uniform operands
    const HeadWeights<double> exact = head_weights(modes_of<NR, NC, double>(p.row_form));
    for (int k = 0; k < kMaxOrder; ++k)
      for (int i = 0; i < kBlock; ++i) row_heads.w[k][i] = float(exact.w[k][i]);
    out.perimeters = [=](const Args& a, cudaStream_t s) {
      const dim3 g(grid.x, grid.y, unsigned(a.batch.frames));
      auto kernel = a.batch.frames > 1 ? perimeters_kernel<NR, NC, C, true>
                    : a.diff.skip      ? perimeters_kernel<NR, NC, C, false, true>
                                       : perimeters_kernel<NR, NC, C, false>;
      launch(false, kernel, g, block, 0, s, a, fc, fr, row_heads);
    };
    out.output = [=](const Args& a, cudaStream_t s) {
      const dim3 g(grid.x, grid.y, unsigned(a.batch.frames));
      constexpr int kBoth = kAlongX | kAlongY;
      const int axes = (a.diff.x ? kAlongX : 0) | (a.diff.y ? kAlongY : 0);
      const bool combines = a.diff.partner.ptr != nullptr;  // along y alone
      auto kernel = a.batch.frames > 1 ? output_kernel<NR, NC, C, true>
                    : axes == 0        ? output_kernel<NR, NC, C, false>
                    : axes == kAlongX  ? difference_output_kernel<NR, NC, C, kAlongX, false>
                    : axes == kBoth    ? difference_output_kernel<NR, NC, C, kBoth, false>
                    : combines         ? difference_output_kernel<NR, NC, C, kAlongY, true>
                                       : difference_output_kernel<NR, NC, C, kAlongY, false>;
      launch(overlap, kernel, g, block, 0, s, a, fc, fr);
    };
  });
  return out;
}

}  // namespace rf::fully_overlapped::device
