// A measurement draft, not part of the library: the fully overlapped filter's block kernels
// (stages 1 and 5 of fully_overlapped.h) written as small matrix products per 32 x 32 block, run
// on the tensor cores in TF32 with the split that keeps float accuracy (3xTF32: a = hi + lo, each
// product hi hi + hi lo + lo hi), timed beside a copy (stage 5) or a read (stage 1) of the same
// bytes. It asks whether block kernels whose recursions are issue bound at orders 3 and 5
// (docs/bench/README.md, Where the time goes) become memory bound as matrix products; the answer
// and its figures are in docs/bench/tensor-blocks-h200.json.
//
// Within a block the output is linear in the block's samples and its complete carries (Nehab et
// al. 2011, eqs. 17 and 24-29: a block's causal and anticausal passes are fixed maps of its input
// and of the states entering it). Along the columns, Y = Mc X + Kc Cc, where Mc = U L (the block's
// anticausal pass after its causal one, both from a zero state) and Kc holds the responses to the
// 2R entering states; along the rows likewise, Out = Y Mr^T + Cr Kr^T. So
//   Y   = [Mc | Kc] [X ; Cc]          (32 x (32 + 2R) times (32 + 2R) x 32)
//   Out = [Y | Cr] [Mr^T ; Kr^T]      (the same shapes)
// about 80 multiply-adds a sample for R = 3, where the recursions take 8 instructions a sample for
// each of four passes. The carries here are the direct form's windows (R past outputs each way),
// enough to time the products and to measure their rounding; the library's are mode states.
// Stage 5 runs in three layouts (fragments loaded from memory; staged through shared memory with
// cp.async; staged, two warps a block), stage 1 staged; each in 3xTF32 and in plain TF32.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/drafts/tensor_blocks.cu -o tensor_blocks
//        (or the CMake target tensor_blocks_draft)
// Run:   tensor_blocks [--json FILE]    (2048^2 and 4096^2, orders 1, 3, 5, sigma 4; every
//        result checked against the same products in double on 257 blocks)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/drafts/draft_main.h"
#include "filters/core/cuda_check.cuh"

namespace {

constexpr int kBlock = 32;
constexpr int kWarps = 8;  // warps per CTA, a block each at a time

// K of both products: 32 samples and 2R carries, in tiles of 8.
template <int R>
constexpr int kTiles = (kBlock + 2 * R + 7) / 8;

// The constant operands in the order the lanes take them: the first product's A fragments
// ([Mc | Kc], two row tiles) and the second's B fragments ([Mr^T ; Kr^T], four column tiles), each
// as a TF32 high part and the float remainder's TF32 low part.
template <int R>
struct Fragments {
  float4 a[2][kTiles<R>][32][2];
  float2 b[kTiles<R>][4][32][2];
};

__device__ __forceinline__ uint32_t tf32(float v) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
  return r;
}

__device__ __forceinline__ void split(float v, uint32_t& hi, uint32_t& lo) {
  hi = tf32(v);
  lo = tf32(v - __uint_as_float(hi));
}

__device__ __forceinline__ void mma(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// c += a b in TF32 (kSplit 1) or in the three products that keep float accuracy (kSplit 3): the
// small terms first.
template <int kSplit>
__device__ __forceinline__ void mma_split(float (&c)[4], const uint32_t (&ah)[4],
                                          const uint32_t (&al)[4], const uint32_t (&bh)[2],
                                          const uint32_t (&bl)[2]) {
  if constexpr (kSplit == 3) {
    mma(c, al, bh);
    mma(c, ah, bl);
  }
  mma(c, ah, bh);
}

// One warp per 32 x 32 block, CTAs of kWarps warps that stay and take block after block.
// x: the frame (pitch width), cc: column carries [by][2R][x], cr: row carries [bx][2R][y].
template <int R, int kSplit>
__global__ void __launch_bounds__(32 * kWarps)
    output_kernel(const float* __restrict__ x, const float* __restrict__ cc,
                  const float* __restrict__ cr, float* __restrict__ out, int width, int height,
                  const Fragments<R>* __restrict__ frags) {
  constexpr int KT = kTiles<R>;
  __shared__ Fragments<R> f;
  {
    const int words = int(sizeof(Fragments<R>) / sizeof(float4));
    for (int i = threadIdx.x; i < words; i += blockDim.x)
      reinterpret_cast<float4*>(&f)[i] = reinterpret_cast<const float4*>(frags)[i];
  }
  __syncthreads();
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int bw = width / kBlock, blocks = bw * (height / kBlock);
  for (int blk = blockIdx.x * kWarps + threadIdx.x / 32; blk < blocks; blk += gridDim.x * kWarps) {
    const int bx = blk % bw, by = blk / bw, x0 = bx * kBlock, y0 = by * kBlock;
    // Y = [Mc | Kc] [X ; Cc]: B fragments straight from memory, row k = tile * 8 + t (+ 4).
    float y[2][4][4] = {};
#pragma unroll
    for (int kk = 0; kk < KT; ++kk) {
      uint32_t bh[4][2], bl[4][2];
#pragma unroll
      for (int n = 0; n < 4; ++n)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int k = kk * 8 + t + 4 * h, col = x0 + n * 8 + g;
          float v = 0.f;
          if (k < kBlock)
            v = x[std::size_t(y0 + k) * width + col];
          else if (k - kBlock < 2 * R)
            v = cc[(std::size_t(by) * 2 * R + (k - kBlock)) * width + col];
          split(v, bh[n][h], bl[n][h]);
        }
#pragma unroll
      for (int m = 0; m < 2; ++m) {
        const float4 hi = f.a[m][kk][lane][0], lo = f.a[m][kk][lane][1];
        const uint32_t ah[4] = {__float_as_uint(hi.x), __float_as_uint(hi.y), __float_as_uint(hi.z),
                                __float_as_uint(hi.w)};
        const uint32_t al[4] = {__float_as_uint(lo.x), __float_as_uint(lo.y), __float_as_uint(lo.z),
                                __float_as_uint(lo.w)};
#pragma unroll
        for (int n = 0; n < 4; ++n) mma_split<kSplit>(y[m][n], ah, al, bh[n], bl[n]);
      }
    }
    // Out = [Y | Cr] [Mr^T ; Kr^T]. Y's accumulators are the A fragments of the second product
    // as they lie: column 2t (+1) of a tile is taken as its column t (+4), and the constant's
    // rows were put in that order (build_fragments).
    float o[2][4][4] = {};
#pragma unroll
    for (int kk = 0; kk < KT; ++kk) {
      uint32_t ah[2][4], al[2][4];
#pragma unroll
      for (int m = 0; m < 2; ++m) {
        float v[4];
        if (kk < 4) {
          v[0] = y[m][kk][0];
          v[1] = y[m][kk][2];
          v[2] = y[m][kk][1];
          v[3] = y[m][kk][3];
        } else {
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const int c = (kk - 4) * 8 + t + (i / 2) * 4, row = y0 + m * 16 + g + (i % 2) * 8;
            v[i] = c < 2 * R ? cr[(std::size_t(bx) * 2 * R + c) * height + row] : 0.f;
          }
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) split(v[i], ah[m][i], al[m][i]);
      }
#pragma unroll
      for (int n = 0; n < 4; ++n) {
        const float2 hi = f.b[kk][n][lane][0], lo = f.b[kk][n][lane][1];
        const uint32_t bh[2] = {__float_as_uint(hi.x), __float_as_uint(hi.y)};
        const uint32_t bl[2] = {__float_as_uint(lo.x), __float_as_uint(lo.y)};
#pragma unroll
        for (int m = 0; m < 2; ++m) mma_split<kSplit>(o[m][n], ah[m], al[m], bh, bl);
      }
    }
#pragma unroll
    for (int m = 0; m < 2; ++m)
#pragma unroll
      for (int n = 0; n < 4; ++n)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = y0 + m * 16 + g + 8 * h, col = x0 + n * 8 + 2 * t;
          *reinterpret_cast<float2*>(out + std::size_t(row) * width + col) =
              make_float2(o[m][n][2 * h], o[m][n][2 * h + 1]);
        }
  }
}

// The same products with every global access whole and coalesced: each warp copies its next
// block (the frame's 32 rows, the column and the row carries) into shared memory with cp.async
// while it multiplies the one before, reads its fragments from there (rows of kStage floats, so
// that the lanes of a fragment hit 32 different banks) and writes its output through the same
// rows as 16-byte stores.
constexpr int kStage = 40;
constexpr int kStagedWarps = 4;

template <int R>
struct Staged {
  static constexpr int kXRows = kTiles<R> * 8, kCRows = (kTiles<R> - 4) * 8;
  static constexpr int kFloats = (kXRows + kCRows) * kStage;  // one buffer
  static constexpr std::size_t bytes() {
    return sizeof(Fragments<R>) + std::size_t(2 * kStagedWarps) * kFloats * sizeof(float);
  }
};

__device__ __forceinline__ void copy16(float* dst, const float* src) {
  const unsigned d = unsigned(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src));
}

template <int R, int kSplit>
__global__ void __launch_bounds__(32 * kStagedWarps)
    staged_kernel(const float* __restrict__ x, const float* __restrict__ cc,
                  const float* __restrict__ cr, float* __restrict__ out, int width, int height,
                  const Fragments<R>* __restrict__ frags) {
  constexpr int KT = kTiles<R>, XR = Staged<R>::kXRows, NF = Staged<R>::kFloats;
  extern __shared__ __align__(16) float dyn[];
  Fragments<R>& f = *reinterpret_cast<Fragments<R>*>(dyn);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
  float* const bufs = dyn + sizeof(Fragments<R>) / sizeof(float) + warp * 2 * NF;
  {
    const int words = int(sizeof(Fragments<R>) / sizeof(float4));
    for (int i = threadIdx.x; i < words; i += blockDim.x)
      reinterpret_cast<float4*>(&f)[i] = reinterpret_cast<const float4*>(frags)[i];
    for (int i = lane; i < 2 * NF; i += 32) bufs[i] = 0.f;  // the padding rows stay zero
  }
  __syncthreads();
  const int bw = width / kBlock, blocks = bw * (height / kBlock);
  const int step = gridDim.x * kStagedWarps;
  auto fetch = [&](int blk, float* b) {
    if (blk < blocks) {
      const int bx = blk % bw, by = blk / bw, x0 = bx * kBlock, y0 = by * kBlock;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int c = lane + 32 * i, row = c / 8, col = (c % 8) * 4;
        copy16(b + row * kStage + col, x + std::size_t(y0 + row) * width + x0 + col);
      }
      for (int c = lane; c < 2 * R * 8; c += 32) {
        const int k = c / 8, col = (c % 8) * 4;
        copy16(b + (kBlock + k) * kStage + col,
               cc + (std::size_t(by) * 2 * R + k) * width + x0 + col);
        copy16(b + (XR + k) * kStage + col, cr + (std::size_t(bx) * 2 * R + k) * height + y0 + col);
      }
    }
    asm volatile("cp.async.commit_group;");
  };
  int blk = blockIdx.x * kStagedWarps + warp;
  fetch(blk, bufs);
  for (int i = 0; blk < blocks; blk += step, ++i) {
    float* const b = bufs + (i % 2) * NF;
    fetch(blk + step, bufs + ((i + 1) % 2) * NF);
    asm volatile("cp.async.wait_group 1;");
    __syncwarp();
    float y[2][4][4] = {};
#pragma unroll
    for (int kk = 0; kk < KT; ++kk) {
      uint32_t bh[4][2], bl[4][2];
#pragma unroll
      for (int n = 0; n < 4; ++n)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          split(b[(kk * 8 + t + 4 * h) * kStage + n * 8 + g], bh[n][h], bl[n][h]);
#pragma unroll
      for (int m = 0; m < 2; ++m) {
        const float4 hi = f.a[m][kk][lane][0], lo = f.a[m][kk][lane][1];
        const uint32_t ah[4] = {__float_as_uint(hi.x), __float_as_uint(hi.y), __float_as_uint(hi.z),
                                __float_as_uint(hi.w)};
        const uint32_t al[4] = {__float_as_uint(lo.x), __float_as_uint(lo.y), __float_as_uint(lo.z),
                                __float_as_uint(lo.w)};
#pragma unroll
        for (int n = 0; n < 4; ++n) mma_split<kSplit>(y[m][n], ah, al, bh[n], bl[n]);
      }
    }
    float o[2][4][4] = {};
#pragma unroll
    for (int kk = 0; kk < KT; ++kk) {
      uint32_t ah[2][4], al[2][4];
#pragma unroll
      for (int m = 0; m < 2; ++m) {
        float v[4];
        if (kk < 4) {
          v[0] = y[m][kk][0];
          v[1] = y[m][kk][2];
          v[2] = y[m][kk][1];
          v[3] = y[m][kk][3];
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q)
            v[q] = b[(XR + (kk - 4) * 8 + t + (q / 2) * 4) * kStage + m * 16 + g + (q % 2) * 8];
        }
#pragma unroll
        for (int q = 0; q < 4; ++q) split(v[q], ah[m][q], al[m][q]);
      }
#pragma unroll
      for (int n = 0; n < 4; ++n) {
        const float2 hi = f.b[kk][n][lane][0], lo = f.b[kk][n][lane][1];
        const uint32_t bh[2] = {__float_as_uint(hi.x), __float_as_uint(hi.y)};
        const uint32_t bl[2] = {__float_as_uint(lo.x), __float_as_uint(lo.y)};
#pragma unroll
        for (int m = 0; m < 2; ++m) mma_split<kSplit>(o[m][n], ah[m], al[m], bh, bl);
      }
    }
    __syncwarp();  // every lane has read the block's rows: they take its output now
#pragma unroll
    for (int m = 0; m < 2; ++m)
#pragma unroll
      for (int n = 0; n < 4; ++n)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          *reinterpret_cast<float2*>(b + (m * 16 + g + 8 * h) * kStage + n * 8 + 2 * t) =
              make_float2(o[m][n][2 * h], o[m][n][2 * h + 1]);
    __syncwarp();
    const int bx = blk % bw, by = blk / bw;
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const int c = lane + 32 * q, row = c / 8, col = (c % 8) * 4;
      *reinterpret_cast<float4*>(out + std::size_t(by * kBlock + row) * width + bx * kBlock + col) =
          *reinterpret_cast<const float4*>(b + row * kStage + col);
    }
    __syncwarp();  // before the next fetch into these rows
  }
  asm volatile("cp.async.wait_group 0;");
}

// The staged products with two warps a block, each its 16 rows of Y and of the output: half the
// registers and twice the warps an SM holds for the same shared memory. The pair's 64 threads
// fetch the block together and meet at a named barrier of their own.
constexpr int kPairWarps = 8;  // four blocks at once

template <int R>
constexpr std::size_t pair_bytes() {
  return sizeof(Fragments<R>) + std::size_t(kPairWarps) * Staged<R>::kFloats * sizeof(float);
}

__device__ __forceinline__ void pair_sync(int pair) {
  asm volatile("bar.sync %0, 64;" ::"r"(pair + 1));
}

template <int R, int kSplit>
__global__ void __launch_bounds__(32 * kPairWarps)
    pair_kernel(const float* __restrict__ x, const float* __restrict__ cc,
                const float* __restrict__ cr, float* __restrict__ out, int width, int height,
                const Fragments<R>* __restrict__ frags) {
  constexpr int KT = kTiles<R>, XR = Staged<R>::kXRows, NF = Staged<R>::kFloats;
  extern __shared__ __align__(16) float dyn[];
  Fragments<R>& f = *reinterpret_cast<Fragments<R>*>(dyn);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
  const int pair = warp / 2, m = warp % 2, pt = threadIdx.x % 64;
  float* const bufs = dyn + sizeof(Fragments<R>) / sizeof(float) + pair * 2 * NF;
  {
    const int words = int(sizeof(Fragments<R>) / sizeof(float4));
    for (int i = threadIdx.x; i < words; i += blockDim.x)
      reinterpret_cast<float4*>(&f)[i] = reinterpret_cast<const float4*>(frags)[i];
    for (int i = pt; i < 2 * NF; i += 64) bufs[i] = 0.f;
  }
  __syncthreads();
  const int bw = width / kBlock, blocks = bw * (height / kBlock);
  const int step = gridDim.x * (kPairWarps / 2);
  auto fetch = [&](int blk, float* b) {
    if (blk < blocks) {
      const int bx = blk % bw, by = blk / bw, x0 = bx * kBlock, y0 = by * kBlock;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int c = pt + 64 * i, row = c / 8, col = (c % 8) * 4;
        copy16(b + row * kStage + col, x + std::size_t(y0 + row) * width + x0 + col);
      }
      for (int c = pt; c < 2 * R * 8; c += 64) {
        const int k = c / 8, col = (c % 8) * 4;
        copy16(b + (kBlock + k) * kStage + col,
               cc + (std::size_t(by) * 2 * R + k) * width + x0 + col);
        copy16(b + (XR + k) * kStage + col, cr + (std::size_t(bx) * 2 * R + k) * height + y0 + col);
      }
    }
    asm volatile("cp.async.commit_group;");
  };
  int blk = blockIdx.x * (kPairWarps / 2) + pair;
  fetch(blk, bufs);
  for (int i = 0; blk < blocks; blk += step, ++i) {
    float* const b = bufs + (i % 2) * NF;
    fetch(blk + step, bufs + ((i + 1) % 2) * NF);
    asm volatile("cp.async.wait_group 1;");
    pair_sync(pair);
    float y[4][4] = {};
#pragma unroll
    for (int kk = 0; kk < KT; ++kk) {
      const float4 hi = f.a[m][kk][lane][0], lo = f.a[m][kk][lane][1];
      const uint32_t ah[4] = {__float_as_uint(hi.x), __float_as_uint(hi.y), __float_as_uint(hi.z),
                              __float_as_uint(hi.w)};
      const uint32_t al[4] = {__float_as_uint(lo.x), __float_as_uint(lo.y), __float_as_uint(lo.z),
                              __float_as_uint(lo.w)};
#pragma unroll
      for (int n = 0; n < 4; ++n) {
        uint32_t bh[2], bl[2];
#pragma unroll
        for (int h = 0; h < 2; ++h)
          split(b[(kk * 8 + t + 4 * h) * kStage + n * 8 + g], bh[h], bl[h]);
        mma_split<kSplit>(y[n], ah, al, bh, bl);
      }
    }
    float o[4][4] = {};
#pragma unroll
    for (int kk = 0; kk < KT; ++kk) {
      float v[4];
      if (kk < 4) {
        v[0] = y[kk][0];
        v[1] = y[kk][2];
        v[2] = y[kk][1];
        v[3] = y[kk][3];
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q)
          v[q] = b[(XR + (kk - 4) * 8 + t + (q / 2) * 4) * kStage + m * 16 + g + (q % 2) * 8];
      }
      uint32_t ah[4], al[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) split(v[q], ah[q], al[q]);
#pragma unroll
      for (int n = 0; n < 4; ++n) {
        const float2 hi = f.b[kk][n][lane][0], lo = f.b[kk][n][lane][1];
        const uint32_t bh[2] = {__float_as_uint(hi.x), __float_as_uint(hi.y)};
        const uint32_t bl[2] = {__float_as_uint(lo.x), __float_as_uint(lo.y)};
        mma_split<kSplit>(o[n], ah, al, bh, bl);
      }
    }
    pair_sync(pair);  // both warps have read the block's rows: they take its output now
#pragma unroll
    for (int n = 0; n < 4; ++n)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        *reinterpret_cast<float2*>(b + (m * 16 + g + 8 * h) * kStage + n * 8 + 2 * t) =
            make_float2(o[n][2 * h], o[n][2 * h + 1]);
    __syncwarp();
    const int bx = blk % bw, by = blk / bw;
#pragma unroll
    for (int q = 0; q < 4; ++q) {  // this warp's 16 rows
      const int c = lane + 32 * q, row = m * 16 + c / 8, col = (c % 8) * 4;
      *reinterpret_cast<float4*>(out + std::size_t(by * kBlock + row) * width + bx * kBlock + col) =
          *reinterpret_cast<const float4*>(b + row * kStage + col);
    }
    pair_sync(pair);  // before the next fetch into these rows
  }
  asm volatile("cp.async.wait_group 0;");
}

// Stage 1 the same way: a block's perimeters are products of its samples too. Along the columns
// Cc = Wc X, Wc's rows the maps from a column's 32 samples to the states it leaves (2R, and R raw
// heads where the extension reads them: 3R rows, in one tile of 16); along the rows, of the block
// filtered down its columns from zero, Cr = Mc X Wr^T, taken as Mc (X Wr^T). The frame is read
// once and 3R floats per line and block written: its floor is a read of the frame.
template <int R>
struct PerimeterFragments {
  float4 wc[4][32][2];     // A of Wc X: one row tile, four K tiles
  float2 wr[4][2][32][2];  // B of X Wr^T: four K tiles, two column tiles
  float4 mc[2][4][32][2];  // A of Mc S: two row tiles, four K tiles
};

template <int R, int kSplit>
__global__ void __launch_bounds__(32 * kStagedWarps)
    perimeters_kernel(const float* __restrict__ x, float* __restrict__ cc_out,
                      float* __restrict__ cr_out, int width, int height,
                      const PerimeterFragments<R>* __restrict__ frags) {
  constexpr int NF = 32 * kStage;
  extern __shared__ __align__(16) float dyn[];
  PerimeterFragments<R>& f = *reinterpret_cast<PerimeterFragments<R>*>(dyn);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
  float* const bufs = dyn + sizeof(PerimeterFragments<R>) / sizeof(float) + warp * 3 * NF;
  float* const sbuf = bufs + 2 * NF;  // S = X Wr^T, 32 x 16, and the column carries
  {
    const int words = int(sizeof(PerimeterFragments<R>) / sizeof(float4));
    for (int i = threadIdx.x; i < words; i += blockDim.x)
      reinterpret_cast<float4*>(&f)[i] = reinterpret_cast<const float4*>(frags)[i];
  }
  __syncthreads();
  const int bw = width / kBlock, blocks = bw * (height / kBlock);
  const int step = gridDim.x * kStagedWarps;
  auto fetch = [&](int blk, float* b) {
    if (blk < blocks) {
      const int x0 = blk % bw * kBlock, y0 = blk / bw * kBlock;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int c = lane + 32 * i, row = c / 8, col = (c % 8) * 4;
        copy16(b + row * kStage + col, x + std::size_t(y0 + row) * width + x0 + col);
      }
    }
    asm volatile("cp.async.commit_group;");
  };
  auto load_a = [](const float4& hi, const float4& lo, uint32_t(&ah)[4], uint32_t(&al)[4]) {
    ah[0] = __float_as_uint(hi.x), ah[1] = __float_as_uint(hi.y);
    ah[2] = __float_as_uint(hi.z), ah[3] = __float_as_uint(hi.w);
    al[0] = __float_as_uint(lo.x), al[1] = __float_as_uint(lo.y);
    al[2] = __float_as_uint(lo.z), al[3] = __float_as_uint(lo.w);
  };
  int blk = blockIdx.x * kStagedWarps + warp;
  fetch(blk, bufs);
  for (int i = 0; blk < blocks; blk += step, ++i) {
    const float* const b = bufs + (i % 2) * NF;
    fetch(blk + step, bufs + ((i + 1) % 2) * NF);
    asm volatile("cp.async.wait_group 1;");
    __syncwarp();
    const int bx = blk % bw, by = blk / bw;
    // Cc = Wc X: 16 x 32.
    float c[4][4] = {};
    // S = X Wr^T: 32 x 16.
    float sacc[2][2][4] = {};
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      uint32_t bh[4][2], bl[4][2];
#pragma unroll
      for (int n = 0; n < 4; ++n)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          split(b[(kk * 8 + t + 4 * h) * kStage + n * 8 + g], bh[n][h], bl[n][h]);
      uint32_t ah[4], al[4];
      load_a(f.wc[kk][lane][0], f.wc[kk][lane][1], ah, al);
#pragma unroll
      for (int n = 0; n < 4; ++n) mma_split<kSplit>(c[n], ah, al, bh[n], bl[n]);
        // X as A: rows y, K = x.
#pragma unroll
      for (int m = 0; m < 2; ++m) {
        uint32_t xh[4], xl[4];
#pragma unroll
        for (int q = 0; q < 4; ++q)
          split(b[(m * 16 + g + (q % 2) * 8) * kStage + kk * 8 + t + (q / 2) * 4], xh[q], xl[q]);
#pragma unroll
        for (int n = 0; n < 2; ++n) {
          const float2 hi = f.wr[kk][n][lane][0], lo = f.wr[kk][n][lane][1];
          const uint32_t wh[2] = {__float_as_uint(hi.x), __float_as_uint(hi.y)};
          const uint32_t wl[2] = {__float_as_uint(lo.x), __float_as_uint(lo.y)};
          mma_split<kSplit>(sacc[m][n], xh, xl, wh, wl);
        }
      }
    }
    // S to shared memory, to be read as B: row y, column (mode) k.
#pragma unroll
    for (int m = 0; m < 2; ++m)
#pragma unroll
      for (int n = 0; n < 2; ++n)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          *reinterpret_cast<float2*>(sbuf + (m * 16 + g + 8 * h) * kStage + n * 8 + 2 * t) =
              make_float2(sacc[m][n][2 * h], sacc[m][n][2 * h + 1]);
    __syncwarp();
    // Cr = Mc S: 32 x 16.
    float r[2][2][4] = {};
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      uint32_t sh[2][2], sl[2][2];
#pragma unroll
      for (int n = 0; n < 2; ++n)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          split(sbuf[(kk * 8 + t + 4 * h) * kStage + n * 8 + g], sh[n][h], sl[n][h]);
#pragma unroll
      for (int m = 0; m < 2; ++m) {
        uint32_t ah[4], al[4];
        load_a(f.mc[m][kk][lane][0], f.mc[m][kk][lane][1], ah, al);
#pragma unroll
        for (int n = 0; n < 2; ++n) mma_split<kSplit>(r[m][n], ah, al, sh[n], sl[n]);
      }
    }
    __syncwarp();
    // The carries out, 3R of each: the rows' through sbuf transposed ([k][y]), the columns'
    // ([k][x]) as they are.
#pragma unroll
    for (int m = 0; m < 2; ++m)
#pragma unroll
      for (int n = 0; n < 2; ++n)
#pragma unroll
        for (int q = 0; q < 4; ++q)
          sbuf[(n * 8 + 2 * t + q % 2) * kStage + m * 16 + g + (q / 2) * 8] = r[m][n][q];
#pragma unroll
    for (int n = 0; n < 4; ++n)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        *reinterpret_cast<float2*>(sbuf + (16 + g + 8 * h) * kStage + n * 8 + 2 * t) =
            make_float2(c[n][2 * h], c[n][2 * h + 1]);
    __syncwarp();
    for (int q = lane; q < 3 * R * 8; q += 32) {
      const int k = q / 8, col = (q % 8) * 4;
      *reinterpret_cast<float4*>(cr_out + (std::size_t(bx) * 3 * R + k) * height + by * kBlock +
                                 col) = *reinterpret_cast<const float4*>(sbuf + k * kStage + col);
      *reinterpret_cast<float4*>(cc_out + (std::size_t(by) * 3 * R + k) * width + bx * kBlock +
                                 col) =
          *reinterpret_cast<const float4*>(sbuf + (16 + k) * kStage + col);
    }
    __syncwarp();
  }
  asm volatile("cp.async.wait_group 0;");
}

// The copy floor of the same bytes: the frame and both carries read, the frame written.
__global__ void copy_kernel(const float4* __restrict__ x, const float4* __restrict__ cc,
                            const float4* __restrict__ cr, float4* __restrict__ out, std::size_t n4,
                            std::size_t c4) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 v = x[i];
    if (i < c4) {
      const float4 a = cc[i], b = cr[i];
      v.x += a.x + b.x;
    }
    out[i] = v;
  }
}

// The read floor of stage 1: the frame read once, 3R floats per line and block written (c4).
__global__ void read_kernel(const float4* __restrict__ x, float4* __restrict__ carries,
                            std::size_t n4, std::size_t c4) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 v = x[i];
    acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
    if (i < c4) carries[i] = acc;
  }
}

// ----------------------------------------------------------------------------------------------
// Host: a real filter's block matrices in double.

// A recursive filter in the direct form, y_i = b0 x_i + sum_k a_k y_{i-k} (a has R entries).
struct DirectForm {
  double b0;
  std::vector<double> a;
};

// Young and van Vliet's third-order Gaussian (Signal Processing 44, 1995): q from sigma, then
// the coefficients from q.
DirectForm young_van_vliet(double sigma) {
  const double q =
      sigma >= 2.5 ? 0.98711 * sigma - 0.96330 : 3.97156 - 4.14554 * std::sqrt(1 - 0.26891 * sigma);
  const double b0 = 1.57825 + 2.44413 * q + 1.4281 * q * q + 0.422205 * q * q * q;
  const double b1 = 2.44413 * q + 2.85619 * q * q + 1.26661 * q * q * q;
  const double b2 = -(1.4281 * q * q + 1.26661 * q * q * q);
  const double b3 = 0.422205 * q * q * q;
  return {1 - (b1 + b2 + b3) / b0, {b1 / b0, b2 / b0, b3 / b0}};
}

// Order 1: the exponential smoother of the same sigma's decay; order 5: the Gaussian above
// cascaded with two of them (denominators multiplied).
DirectForm design(int r, double sigma) {
  const double p = std::exp(-1.0 / sigma);
  const DirectForm e{1 - p, {p}};
  if (r == 1) return e;
  DirectForm g = young_van_vliet(sigma);
  if (r == 3) return g;
  for (int c = 0; c < 2; ++c) {  // (1 - sum a_k z^-k)(1 - p z^-1)
    std::vector<double> d(g.a.size() + 2, 0.0);
    d[0] = 1;
    for (std::size_t k = 0; k < g.a.size(); ++k) d[k + 1] = -g.a[k];
    std::vector<double> m(d.size(), 0.0);
    for (std::size_t k = 0; k + 1 < d.size(); ++k) {
      m[k] += d[k];
      m[k + 1] -= p * d[k];
    }
    g.a.assign(m.size() - 1, 0.0);
    for (std::size_t k = 1; k < m.size(); ++k) g.a[k - 1] = -m[k];
    g.b0 *= 1 - p;
  }
  return g;
}

// A block of n samples through the causal pass then the anticausal one, from the R outputs
// before it (pre) and after it (post) of each pass: the output of both is linear in
// [x ; pre ; post]; returns that 32 x (32 + 2R) map, column by column.
std::vector<std::vector<double>> block_map(const DirectForm& f) {
  const int r = int(f.a.size()), n = kBlock;
  std::vector<std::vector<double>> m(n, std::vector<double>(n + 2 * r, 0.0));
  for (int c = 0; c < n + 2 * r; ++c) {
    std::vector<double> x(n, 0.0), pre(r, 0.0), post(r, 0.0);
    if (c < n)
      x[c] = 1;
    else if (c < n + r)
      pre[c - n] = 1;
    else
      post[c - n - r] = 1;
    std::vector<double> z(n), y(n);
    for (int i = 0; i < n; ++i) {
      double v = f.b0 * x[i];
      for (int k = 1; k <= r; ++k) v += f.a[k - 1] * (i - k >= 0 ? z[i - k] : pre[k - 1 - i]);
      z[i] = v;
    }
    for (int i = n - 1; i >= 0; --i) {
      double v = f.b0 * z[i];
      for (int k = 1; k <= r; ++k) v += f.a[k - 1] * (i + k < n ? y[i + k] : post[i + k - n]);
      y[i] = v;
    }
    for (int i = 0; i < n; ++i) m[i][c] = y[i];
  }
  return m;
}

// The causal pass alone (L), the anticausal alone (U) and both (U L) of a block from zero states.
struct PassMaps {
  std::vector<std::vector<double>> l, u, ul;
};

PassMaps pass_maps(const DirectForm& f) {
  const int r = int(f.a.size()), n = kBlock;
  PassMaps m;
  for (auto* p : {&m.l, &m.u, &m.ul}) p->assign(n, std::vector<double>(n, 0.0));
  auto causal = [&](const std::vector<double>& x) {
    std::vector<double> z(n);
    for (int i = 0; i < n; ++i) {
      double v = f.b0 * x[i];
      for (int k = 1; k <= r && i - k >= 0; ++k) v += f.a[k - 1] * z[i - k];
      z[i] = v;
    }
    return z;
  };
  auto anticausal = [&](const std::vector<double>& x) {
    std::vector<double> y(n);
    for (int i = n - 1; i >= 0; --i) {
      double v = f.b0 * x[i];
      for (int k = 1; k <= r && i + k < n; ++k) v += f.a[k - 1] * y[i + k];
      y[i] = v;
    }
    return y;
  };
  for (int c = 0; c < n; ++c) {
    std::vector<double> e(n, 0.0);
    e[c] = 1;
    const auto z = causal(e), u = anticausal(e), y = anticausal(z);
    for (int i = 0; i < n; ++i) {
      m.l[i][c] = z[i];
      m.u[i][c] = u[i];
      m.ul[i][c] = y[i];
    }
  }
  return m;
}

// Rows of W: the last R causal outputs, the first R of both passes, the first R of the
// anticausal pass over the raw samples (the raw heads); zero past 3R.
double w_row(const PassMaps& m, int r, int k, int j) {
  if (k < r) return m.l[kBlock - 1 - k][j];
  if (k < 2 * r) return m.ul[k - r][j];
  if (k < 3 * r) return m.u[k - 2 * r][j];
  return 0.0;
}

float tf32_host(float v) {  // cvt.rna.tf32.f32: the nearest with 10 mantissa bits, ties away
  uint32_t u;
  std::memcpy(&u, &v, 4);
  u = (u + 0x1000u) & 0xffffe000u;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

template <int R>
void build_fragments(const std::vector<std::vector<double>>& map, Fragments<R>& fr) {
  constexpr int KT = kTiles<R>, K = kBlock + 2 * R;
  auto lhs = [&](int row, int k) { return k < K ? float(map[row][k]) : 0.f; };  // [Mc | Kc]
  // [Mr^T ; Kr^T] (k, col): tiles of the frame's columns with their rows in the order of Y's
  // accumulators (column 2t + h of the tile is its row t + 4h); the carries' tiles as they are.
  auto rhs = [&](int kk, int kt, int col) {
    const int k = kk < 4 ? kk * 8 + 2 * (kt % 4) + kt / 4 : kk * 8 + kt;
    return k < K ? float(map[col][k]) : 0.f;
  };
  auto hilo = [](float v, float& hi, float& lo) {
    hi = tf32_host(v);
    lo = tf32_host(v - hi);
  };
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int m = 0; m < 2; ++m)
      for (int kk = 0; kk < KT; ++kk) {
        const float v[4] = {lhs(m * 16 + g, kk * 8 + t), lhs(m * 16 + g + 8, kk * 8 + t),
                            lhs(m * 16 + g, kk * 8 + t + 4), lhs(m * 16 + g + 8, kk * 8 + t + 4)};
        float h[4], l[4];
        for (int i = 0; i < 4; ++i) hilo(v[i], h[i], l[i]);
        fr.a[m][kk][lane][0] = make_float4(h[0], h[1], h[2], h[3]);
        fr.a[m][kk][lane][1] = make_float4(l[0], l[1], l[2], l[3]);
      }
    for (int kk = 0; kk < KT; ++kk)
      for (int n = 0; n < 4; ++n) {
        float h0, l0, h1, l1;
        hilo(rhs(kk, t, n * 8 + g), h0, l0);
        hilo(rhs(kk, t + 4, n * 8 + g), h1, l1);
        fr.b[kk][n][lane][0] = make_float2(h0, h1);
        fr.b[kk][n][lane][1] = make_float2(l0, l1);
      }
  }
}

template <int R>
void build_perimeter_fragments(const PassMaps& pm, PerimeterFragments<R>& fr) {
  auto hilo = [](double v, float& hi, float& lo) {
    hi = tf32_host(float(v));
    lo = tf32_host(float(v) - hi);
  };
  auto a_frag = [&](auto at, int m, int kk, int lane, float4(&out)[2]) {
    const int g = lane / 4, t = lane % 4;
    const double v[4] = {at(m * 16 + g, kk * 8 + t), at(m * 16 + g + 8, kk * 8 + t),
                         at(m * 16 + g, kk * 8 + t + 4), at(m * 16 + g + 8, kk * 8 + t + 4)};
    float h[4], l[4];
    for (int i = 0; i < 4; ++i) hilo(v[i], h[i], l[i]);
    out[0] = make_float4(h[0], h[1], h[2], h[3]);
    out[1] = make_float4(l[0], l[1], l[2], l[3]);
  };
  auto wc = [&](int k, int j) { return w_row(pm, R, k, j); };
  auto mc = [&](int i, int j) { return pm.ul[i][j]; };
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int kk = 0; kk < 4; ++kk) {
      a_frag(wc, 0, kk, lane, fr.wc[kk][lane]);
      for (int m = 0; m < 2; ++m) a_frag(mc, m, kk, lane, fr.mc[m][kk][lane]);
      for (int n = 0; n < 2; ++n) {  // Wr^T (x, mode): b0 at (t, g), b1 at (t + 4, g)
        float h0, l0, h1, l1;
        hilo(w_row(pm, R, n * 8 + g, kk * 8 + t), h0, l0);
        hilo(w_row(pm, R, n * 8 + g, kk * 8 + t + 4), h1, l1);
        fr.wr[kk][n][lane][0] = make_float2(h0, h1);
        fr.wr[kk][n][lane][1] = make_float2(l0, l1);
      }
    }
  }
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
float time_ms(F&& launch, int warmup = 10, int runs = 100) {
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  for (int i = 0; i < warmup; ++i) launch();
  std::vector<float> t;
  for (int i = 0; i < runs; ++i) {
    CUDA_CHECK(cudaEventRecord(a));
    launch();
    CUDA_CHECK(cudaEventRecord(b));
    CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CUDA_CHECK(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(t);
}

struct Row {
  int size, order;
  std::string what;
  double ms, gips, of_copy, max_err, max_ref;
};

template <int R>
void run_order(int size, double sigma, const float* dx, float* dout, float* dcc, float* dcr,
               const std::vector<float>& hx, const std::vector<float>& hcc,
               const std::vector<float>& hcr, float copy_ms, std::vector<Row>& rows) {
  const auto map = block_map(design(R, sigma));
  Fragments<R> fr;
  build_fragments<R>(map, fr);
  Fragments<R>* dfr;
  CUDA_CHECK(cudaMalloc(&dfr, sizeof fr));
  CUDA_CHECK(cudaMemcpy(dfr, &fr, sizeof fr, cudaMemcpyHostToDevice));
  const int w = size, h = size, bw = w / kBlock, blocks = bw * (h / kBlock);
  int sms = 0, per_sm = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::vector<float> got(std::size_t(w) * h);
  auto one = [&](auto kernel, const char* what, int warps = kWarps, std::size_t shared = 0) {
    if (shared)
      CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * warps, shared));
    const int per_cta = std::string(what).rfind("pairs", 0) == 0 ? warps / 2 : warps;
    const int grid = std::min(std::max(1, per_sm) * sms, (blocks + per_cta - 1) / per_cta);
    CUDA_CHECK(cudaMemset(dout, 0, got.size() * 4));
    auto launch = [&] { kernel<<<grid, 32 * warps, shared>>>(dx, dcc, dcr, dout, w, h, dfr); };
    const float ms = time_ms(launch);
    CUDA_CHECK(cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost));
    // Against the two products in double on a sample of blocks: the corners, a diagonal.
    double err = 0, ref_max = 0;
    for (int blk = 0; blk < blocks; blk += std::max(1, blocks / 257)) {
      const int bx = blk % bw, by = blk / bw, x0 = bx * kBlock, y0 = by * kBlock;
      const int K = kBlock + 2 * R;
      std::vector<double> y(kBlock * K, 0.0);  // [Y | Cr], row-major
      for (int i = 0; i < kBlock; ++i) {
        for (int j = 0; j < kBlock; ++j) {
          double s = 0;
          for (int k = 0; k < K; ++k) {
            const double v = k < kBlock ? hx[std::size_t(y0 + k) * w + x0 + j]
                                        : hcc[(std::size_t(by) * 2 * R + k - kBlock) * w + x0 + j];
            s += map[i][k] * v;
          }
          y[i * K + j] = s;
        }
        for (int c = 0; c < 2 * R; ++c)
          y[i * K + kBlock + c] = hcr[(std::size_t(bx) * 2 * R + c) * h + y0 + i];
      }
      for (int i = 0; i < kBlock; ++i)
        for (int j = 0; j < kBlock; ++j) {
          double s = 0;
          for (int k = 0; k < K; ++k) s += y[i * K + k] * map[j][k];
          err = std::max(err, std::abs(s - got[std::size_t(y0 + i) * w + x0 + j]));
          ref_max = std::max(ref_max, std::abs(s));
        }
    }
    rows.push_back({size, R, what, ms, double(w) * h / (ms * 1e-3) / double(1 << 30), copy_ms / ms,
                    err, ref_max});
    std::printf(
        "%5d^2 order %d  %-22s %8.4f ms %8.1f GiP/s  %.2f of the copy's rate  "
        "max err %.2e (max |out| %.2f)  %d CTAs\n",
        size, R, what, ms, rows.back().gips, copy_ms / ms, err, ref_max, grid);
  };
  one(output_kernel<R, 3>, "tensor 3xTF32");
  one(output_kernel<R, 1>, "tensor 1xTF32");
  one(staged_kernel<R, 3>, "staged 3xTF32", kStagedWarps, Staged<R>::bytes());
  one(staged_kernel<R, 1>, "staged 1xTF32", kStagedWarps, Staged<R>::bytes());
  one(pair_kernel<R, 3>, "pairs 3xTF32", kPairWarps, pair_bytes<R>());
  one(pair_kernel<R, 1>, "pairs 1xTF32", kPairWarps, pair_bytes<R>());
  CUDA_CHECK(cudaFree(dfr));
}

template <int R>
void run_perimeters(int size, double sigma, const float* dx, const std::vector<float>& hx,
                    std::vector<Row>& rows) {
  const PassMaps pm = pass_maps(design(R, sigma));
  PerimeterFragments<R> fr;
  build_perimeter_fragments<R>(pm, fr);
  PerimeterFragments<R>* dfr;
  CUDA_CHECK(cudaMalloc(&dfr, sizeof fr));
  CUDA_CHECK(cudaMemcpy(dfr, &fr, sizeof fr, cudaMemcpyHostToDevice));
  const int w = size, h = size, bw = w / kBlock, blocks = bw * (h / kBlock);
  const std::size_t nc = std::size_t(bw) * 3 * R * size;
  float *dcc, *dcr;
  CUDA_CHECK(cudaMalloc(&dcc, nc * 4));
  CUDA_CHECK(cudaMalloc(&dcr, nc * 4));
  int sms = 0, per_sm = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const float read_ms = time_ms([&] {
    read_kernel<<<sms * 8, 256>>>(reinterpret_cast<const float4*>(dx),
                                  reinterpret_cast<float4*>(dcc), std::size_t(w) * h / 4, nc / 4);
  });
  rows.push_back({size, R, "read (stage 1's floor)", read_ms,
                  double(w) * h / (read_ms * 1e-3) / double(1 << 30), 1.0, 0, 0});
  std::printf("%5d^2 order %d  %-22s %8.4f ms %8.1f GiP/s  %.0f GB/s\n", size, R,
              "read (stage 1's floor)", read_ms, rows.back().gips,
              (double(w) * h * 4 + nc * 4) / (read_ms * 1e-3) / 1e9);
  std::vector<float> gc(nc), gr(nc);
  auto one = [&](auto kernel, const char* what) {
    const std::size_t shared =
        sizeof(PerimeterFragments<R>) + std::size_t(3 * kStagedWarps) * 32 * kStage * 4;
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
    CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * kStagedWarps, shared));
    const int grid =
        std::min(std::max(1, per_sm) * sms, (blocks + kStagedWarps - 1) / kStagedWarps);
    CUDA_CHECK(cudaMemset(dcc, 0, nc * 4));
    CUDA_CHECK(cudaMemset(dcr, 0, nc * 4));
    auto launch = [&] { kernel<<<grid, 32 * kStagedWarps, shared>>>(dx, dcc, dcr, w, h, dfr); };
    const float ms = time_ms(launch);
    CUDA_CHECK(cudaMemcpy(gc.data(), dcc, nc * 4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gr.data(), dcr, nc * 4, cudaMemcpyDeviceToHost));
    double err = 0, ref_max = 0;
    for (int blk = 0; blk < blocks; blk += std::max(1, blocks / 257)) {
      const int bx = blk % bw, by = blk / bw, x0 = bx * kBlock, y0 = by * kBlock;
      auto at = [&](int i, int j) { return double(hx[std::size_t(y0 + i) * w + x0 + j]); };
      std::vector<double> ybar(kBlock * kBlock, 0.0);  // Mc X
      for (int i = 0; i < kBlock; ++i)
        for (int j = 0; j < kBlock; ++j)
          for (int k = 0; k < kBlock; ++k) ybar[i * kBlock + j] += pm.ul[i][k] * at(k, j);
      for (int k = 0; k < 3 * R; ++k)
        for (int j = 0; j < kBlock; ++j) {
          double col = 0, row = 0;
          for (int y = 0; y < kBlock; ++y) col += w_row(pm, R, k, y) * at(y, j);
          for (int x = 0; x < kBlock; ++x) row += ybar[j * kBlock + x] * w_row(pm, R, k, x);
          const double gcol = gc[(std::size_t(by) * 3 * R + k) * w + x0 + j];
          const double grow = gr[(std::size_t(bx) * 3 * R + k) * h + y0 + j];
          err = std::max({err, std::abs(col - gcol), std::abs(row - grow)});
          ref_max = std::max({ref_max, std::abs(col), std::abs(row)});
        }
    }
    rows.push_back({size, R, what, ms, double(w) * h / (ms * 1e-3) / double(1 << 30), read_ms / ms,
                    err, ref_max});
    std::printf(
        "%5d^2 order %d  %-22s %8.4f ms %8.1f GiP/s  %.2f of the read's rate  "
        "max err %.2e (max |carry| %.2f)  %d CTAs\n",
        size, R, what, ms, rows.back().gips, read_ms / ms, err, ref_max, grid);
  };
  one(perimeters_kernel<R, 3>, "perimeters 3xTF32");
  one(perimeters_kernel<R, 1>, "perimeters 1xTF32");
  CUDA_CHECK(cudaFree(dfr));
  CUDA_CHECK(cudaFree(dcc));
  CUDA_CHECK(cudaFree(dcr));
}

}  // namespace

int draft_main(int argc, char** argv) {
  std::string json;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--json" && i + 1 < argc) json = argv[++i];
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  std::vector<Row> rows;
  std::mt19937 rng(20261203);
  std::uniform_real_distribution<float> sample(0.05f, 1.f), carry(-1.f, 1.f);
  const double sigma = 4;
  for (int size : {2048, 4096}) {
    const std::size_t n = std::size_t(size) * size, nc = std::size_t(size / kBlock) * 10 * size;
    std::vector<float> hx(n), hcc(nc), hcr(nc);
    for (auto& v : hx) v = sample(rng);
    for (auto& v : hcc) v = carry(rng);
    for (auto& v : hcr) v = carry(rng);
    float *dx, *dout, *dcc, *dcr;
    CUDA_CHECK(cudaMalloc(&dx, n * 4));
    CUDA_CHECK(cudaMalloc(&dout, n * 4));
    CUDA_CHECK(cudaMalloc(&dcc, nc * 4));
    CUDA_CHECK(cudaMalloc(&dcr, nc * 4));
    CUDA_CHECK(cudaMemcpy(dx, hx.data(), n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dcc, hcc.data(), nc * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dcr, hcr.data(), nc * 4, cudaMemcpyHostToDevice));
    for (int r : {1, 3, 5}) {
      // The copy of this order's bytes: the frame, 2R column and row carries per 32 lines.
      const std::size_t c4 = std::size_t(size / kBlock) * 2 * r * size / 4;
      const float copy_ms = time_ms([&] {
        copy_kernel<<<prop.multiProcessorCount * 8, 256>>>(
            reinterpret_cast<const float4*>(dx), reinterpret_cast<const float4*>(dcc),
            reinterpret_cast<const float4*>(dcr), reinterpret_cast<float4*>(dout), n / 4, c4);
      });
      const double bytes = n * 8.0 + c4 * 32.0;
      rows.push_back(
          {size, r, "copy", copy_ms, double(n) / (copy_ms * 1e-3) / double(1 << 30), 1.0, 0, 0});
      std::printf("%5d^2 order %d  %-22s %8.4f ms %8.1f GiP/s  %.0f GB/s\n", size, r, "copy",
                  copy_ms, rows.back().gips, bytes / (copy_ms * 1e-3) / 1e9);
      if (r == 1) run_order<1>(size, sigma, dx, dout, dcc, dcr, hx, hcc, hcr, copy_ms, rows);
      if (r == 3) run_order<3>(size, sigma, dx, dout, dcc, dcr, hx, hcc, hcr, copy_ms, rows);
      if (r == 5) run_order<5>(size, sigma, dx, dout, dcc, dcr, hx, hcc, hcr, copy_ms, rows);
      if (r == 1) run_perimeters<1>(size, sigma, dx, hx, rows);
      if (r == 3) run_perimeters<3>(size, sigma, dx, hx, rows);
      if (r == 5) run_perimeters<5>(size, sigma, dx, hx, rows);
    }
    cudaFree(dx);
    cudaFree(dout);
    cudaFree(dcc);
    cudaFree(dcr);
  }
  if (!json.empty()) {
    FILE* f = std::fopen(json.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "tensor_blocks: cannot write %s\n", json.c_str());
      return 2;
    }
    std::fprintf(f, "{\"device\": \"%s\", \"sigma\": %g, \"rows\": [\n", prop.name, sigma);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::fprintf(
          f,
          "  {\"size\": %d, \"order\": %d, \"what\": \"%s\", \"ms\": %.5f, \"gips\": %.2f, "
          "\"of_copy_rate\": %.3f, \"max_err\": %.3e, \"max_out\": %.3f}%s\n",
          r.size, r.order, r.what.c_str(), r.ms, r.gips, r.of_copy, r.max_err, r.max_ref,
          i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
    std::fclose(f);
  }
  return 0;
}

int main(int argc, char** argv) {
  return rf::drafts::run_draft("tensor_blocks", draft_main, argc, argv);
}
