// The edge-aware recursive Gaussian on CUDA (edge-aware paper, eq. 1-4): eq. (2)'s spacings once
// per frame from the guide, then per iteration a row pass and a column pass of the complex
// recursions of eq. (4) (edge_aware_math.h), float intermediates throughout.
//
// One thread filters one line (Algorithm A, the paper's stripes) or one segment of a line (C and
// D). Consecutive threads take consecutive lines: along columns their accesses coalesce; along
// rows each thread walks its own row and the L1 cache serves the rest of the 128-byte lines it
// touched. The exact variant runs one kernel per pass that holds whole lines per CTA and scans
// its segments' composites in shared memory (exact_fused_kernel); lines longer than a CTA holds
// take three kernels (composites, carries, final) through global memory.
//
// The edge weights b^dt and the Phi terms of eq. (4) dominate the arithmetic; they are evaluated
// with the hardware exponential and reciprocal and short Taylor series where the C library's
// expm1f and sincosf would cost several times more (fast_edge_weight). Every walk loads its samples
// and spacings in batches ahead of the recursion (kLineAhead, kFusedAhead): one thread's walk is a
// chain of dependent steps, so a memory latency per step would otherwise be paid in full.
//
// RGB is stored as RGBA float but only its three colours are filtered (C = 3).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/device_buffer.cuh"
#include "filters/core/errors.h"
#include "filters/edge_aware/edge_aware.h"
#include "filters/edge_aware/edge_aware_cuda.h"
#include "filters/edge_aware/edge_aware_math.h"

namespace rf::cuda {
namespace {

using edge::Cx;
using PolesF = edge::Poles<float>;

// Threads per block, all along the lines; segments index the grid's y.
constexpr int kThreads = 32;

// C is the number of channels filtered: 1 (gray), 3 (RGB stored as RGBA float, alpha written as 0
// and never filtered) or 4. A sample takes kStride<C> floats in device memory.
template <int C>
constexpr int kStride = C == 1 ? 1 : 4;

template <int C>
struct Sample {
  float v[C];
};

template <int C>
struct State {
  Cx<float> g[2][C];
};

// The affine map g -> W g + U of one segment (per pole W, per pole and channel U).
template <int C>
struct Composite {
  Cx<float> w[2];
  State<C> u;
};

// One pass over `lines` lines of `n` samples: sample k of line l, channel c at
// src[k * fk + l * fl + c] (dst with yk, yl); its spacing dt[k] at dt[k * dk + l * dl].
struct PassArgs {
  const float* src;
  float* dst;
  const float* dt;
  long long fk, fl, yk, yl, dk, dl;
  int n, lines, seg;
  int lines_per_cta, segments;  // exact_fused_kernel: lines per CTA, segments per line
  float warmup;                 // kappa * sigma_i (C, D)
  PolesF poles;
  void* causal;      // Composite<C>[segments][lines] (exact)
  void* anticausal;  // Composite<C>[segments][lines] (exact)
};

// ---------------------------------------------------------------------------------------------
// Device helpers.

// One sample of a device line: a float4 access for RGB and RGBA (RGB writes a zero alpha).
template <int C>
__device__ __forceinline__ Sample<C> load(const float* p) {
  Sample<C> s;
  if constexpr (C == 1) {
    s.v[0] = *p;
  } else {
    const float4 v = *reinterpret_cast<const float4*>(p);
    s.v[0] = v.x;
    s.v[1] = v.y;
    s.v[2] = v.z;
    if constexpr (C == 4) s.v[3] = v.w;
  }
  return s;
}

template <int C>
__device__ __forceinline__ void store(float* p, const Sample<C>& s) {
  if constexpr (C == 1) {
    *p = s.v[0];
  } else {
    *reinterpret_cast<float4*>(p) = make_float4(s.v[0], s.v[1], s.v[2], C == 4 ? s.v[3] : 0.0f);
  }
}

// Sample `i` of C packed floats in shared memory (one float4 access for four channels).
template <int C>
__device__ __forceinline__ Sample<C> load_shared(const float* base, int i) {
  if constexpr (C == 4) return load<C>(base + i * C);
  Sample<C> s;
  for (int c = 0; c < C; ++c) s.v[c] = base[i * C + c];
  return s;
}

template <int C>
__device__ __forceinline__ void store_shared(float* base, int i, const Sample<C>& s) {
  if constexpr (C == 4) {
    store<C>(base + i * C, s);
  } else {
    for (int c = 0; c < C; ++c) base[i * C + c] = s.v[c];
  }
}

// e^x and e^x - 1 for x <= 0 (x = -rho delta of edge::edge_weight()): the hardware exponential
// (a few ulp) and, where e^x - 1 would cancel, its Taylor series to x^9 (below 3e-10 relative for
// |x| < 0.5). The C library's expf and expm1f cost several times more and dominate the passes.
__device__ __forceinline__ void fast_exp_expm1(float x, float* e, float* em1) {
  *e = __expf(x);
  if (x > -0.5f) {
    float p = 1.0f / 362880.0f;
    p = fmaf(p, x, 1.0f / 40320.0f);
    p = fmaf(p, x, 1.0f / 5040.0f);
    p = fmaf(p, x, 1.0f / 720.0f);
    p = fmaf(p, x, 1.0f / 120.0f);
    p = fmaf(p, x, 1.0f / 24.0f);
    p = fmaf(p, x, 1.0f / 6.0f);
    p = fmaf(p, x, 0.5f);
    p = fmaf(p, x, 1.0f);
    *em1 = p * x;
  } else {
    *em1 = *e - 1.0f;
  }
}

// sin and cos of the half angle h = theta delta / 2 >= 0. Below 0.8 the Taylor series (error below
// 3e-9) keeps the relative precision of sin h that 1 - cos = 2 sin^2 needs; above, the hardware's
// absolute error of about 2^-21 moves b^delta by about 1e-6 of its magnitude, and b^delta - 1
// (at least 1 - e^{-1.38} there: rho / theta >= 0.86 for both poles) by less.
__device__ __forceinline__ void fast_sincos(float h, float* s, float* c) {
  if (h < 0.8f) {
    const float h2 = h * h;
    float ps = fmaf(h2, 1.0f / 362880.0f, -1.0f / 5040.0f);
    ps = fmaf(ps, h2, 1.0f / 120.0f);
    ps = fmaf(ps, h2, -1.0f / 6.0f);
    *s = fmaf(ps * h2, h, h);
    float pc = fmaf(h2, -1.0f / 3628800.0f, 1.0f / 40320.0f);
    pc = fmaf(pc, h2, -1.0f / 720.0f);
    pc = fmaf(pc, h2, 1.0f / 24.0f);
    pc = fmaf(pc, h2, -0.5f);
    *c = fmaf(pc, h2, 1.0f);
  } else {
    __sincosf(h, s, c);
  }
}

// 1 / x for the spacings of eq. (2) (x >= 1): the hardware reciprocal, within 1 ulp, where the
// correctly rounded __frcp_rn adds a refinement sequence to every edge.
__device__ __forceinline__ float fast_rcp(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// edge::edge_weight() (section IV-C: b^delta in de Moivre's form, c = (b^delta - 1) / (r0 delta))
// with the functions above and 1 / delta computed once for both poles.
__device__ __forceinline__ edge::EdgeWeight<float> fast_edge_weight(const edge::Pole<float>& p,
                                                                    float delta, float inv_delta) {
  float e, em1, sh, ch;
  fast_exp_expm1(-p.rho * delta, &e, &em1);
  fast_sincos(0.5f * p.theta * delta, &sh, &ch);
  const float sin_full = 2.0f * sh * ch;
  const float one_minus_cos = 2.0f * sh * sh;
  edge::EdgeWeight<float> out;
  out.w = {e - e * one_minus_cos, -e * sin_full};
  out.c = Cx<float>{em1 - e * one_minus_cos, -e * sin_full} * p.inv_r0 * inv_delta;
  return out;
}

// Samples a walk loads in one batch before it runs their recursion steps. The loads do not depend
// on the recursion, so a batch waits for memory once instead of once per sample: along columns
// every step touches a new row, and along rows the fused kernel's shared memory leaves the L1
// cache too small to keep each thread's row segment. The one-thread-per-line kernels are fastest
// with 8 (16: A 5.68 -> 6.40 ms on the H100); the fused kernel, held to 85 registers for three
// CTAs per SM, with 4 (8: 0.86 -> 1.18 ms for the frame of the timing below).
constexpr int kLineAhead = 8;
constexpr int kFusedAhead = 4;

template <int C>
struct Line {
  const PassArgs& a;
  int l;

  __device__ Sample<C> f(int k) const { return load<C>(a.src + k * a.fk + l * a.fl); }
  __device__ float* y(int k) const { return a.dst + k * a.yk + l * a.yl; }
  __device__ float dt(int k) const { return a.dt[k * a.dk + l * a.dl]; }

  __device__ void steady_causal(int k, State<C>& s) const {
    const Sample<C> fk = f(k);
    for (int p = 0; p < 2; ++p)
      for (int c = 0; c < C; ++c) s.g[p][c] = a.poles.p[p].steady_causal * fk.v[c];
  }
  __device__ void steady_anticausal(int k, State<C>& s) const {
    const Sample<C> fk = f(k);
    for (int p = 0; p < 2; ++p)
      for (int c = 0; c < C; ++c) s.g[p][c] = a.poles.p[p].steady_anticausal * fk.v[c];
  }
  __device__ void emit_causal(int k, const State<C>& s) const {
    Sample<C> out;
    for (int c = 0; c < C; ++c) out.v[c] = s.g[0][c].re + s.g[1][c].re;
    store<C>(y(k), out);
  }
  __device__ void emit_anticausal(int k, const State<C>& s) const {
    emit_anticausal(k, s, load<C>(y(k)));
  }
  // y[k] = Re g+[k] (`causal`, written earlier by the causal walk) + Re g-[k].
  __device__ void emit_anticausal(int k, const State<C>& s, Sample<C> causal) const {
    for (int c = 0; c < C; ++c) causal.v[c] += s.g[0][c].re + s.g[1][c].re;
    store<C>(y(k), causal);
  }

  // Algorithm B's walk back from sample p: the first sample at least `warmup` of transformed
  // distance before it (or sample 0). The spacings are summed one by one in the CPU backend's
  // order, so both backends stop at the same sample; they are loaded in batches ahead of the sum.
  __device__ int walk_back(int p, float warmup) const {
    float d = 0.0f;
    while (p > 0 && d < warmup) {
      float ds[kLineAhead];
#pragma unroll
      for (int u = 0; u < kLineAhead; ++u) ds[u] = dt(max(p - u, 0));
#pragma unroll
      for (int u = 0; u < kLineAhead; ++u)
        if (p > 0 && d < warmup) {
          d += ds[u];
          --p;
        }
    }
    return p;
  }

  // The same walk forward from sample q (up to sample n - 1).
  __device__ int walk_forward(int q, float warmup) const {
    float d = 0.0f;
    while (q < a.n - 1 && d < warmup) {
      float ds[kLineAhead];
#pragma unroll
      for (int u = 0; u < kLineAhead; ++u) ds[u] = dt(min(q + 1 + u, a.n - 1));
#pragma unroll
      for (int u = 0; u < kLineAhead; ++u)
        if (q < a.n - 1 && d < warmup) {
          d += ds[u];
          ++q;
        }
    }
    return q;
  }

  // Causal recursion of eq. (4) over samples [k0, k1) (k0 >= 1): s holds g+[k0-1] on entry and
  // g+[k1-1] on exit. With Write, y[k] = Re g+[k]; with w, the product of the b^dt is gathered.
  template <bool Write>
  __device__ void causal(int k0, int k1, State<C>& s, Cx<float>* w = nullptr) const {
    Sample<C> prev = f(k0 - 1);
    for (int kb = k0; kb < k1; kb += kLineAhead) {
      Sample<C> fs[kLineAhead];
      float ds[kLineAhead];
#pragma unroll
      for (int u = 0; u < kLineAhead; ++u) {
        const int k = min(kb + u, k1 - 1);
        fs[u] = f(k);
        ds[u] = dt(k);
      }
#pragma unroll
      for (int u = 0; u < kLineAhead && kb + u < k1; ++u) {
        const float inv_delta = fast_rcp(ds[u]);
        for (int p = 0; p < 2; ++p) {
          const edge::EdgeWeight<float> e = fast_edge_weight(a.poles.p[p], ds[u], inv_delta);
          const edge::CausalStep<float> step = edge::causal_step(a.poles.p[p], e);
          for (int c = 0; c < C; ++c) s.g[p][c] = step(s.g[p][c], fs[u].v[c], prev.v[c]);
          if (w) w[p] = e.w * w[p];
        }
        if (Write) emit_causal(kb + u, s);
        prev = fs[u];
      }
    }
  }

  // Anticausal recursion producing g-[j] for j = k1-1 down to k0: s holds g-[k1] on entry and
  // g-[k0] on exit. With Write, y[j] += Re g-[j].
  template <bool Write>
  __device__ void anticausal(int k0, int k1, State<C>& s, Cx<float>* w = nullptr) const {
    Sample<C> next = f(k1);
    for (int jb = k1 - 1; jb >= k0; jb -= kLineAhead) {
      Sample<C> fs[kLineAhead], ys[kLineAhead];
      float ds[kLineAhead];
#pragma unroll
      for (int u = 0; u < kLineAhead; ++u) {
        const int j = max(jb - u, k0);
        fs[u] = f(j);
        ds[u] = dt(j + 1);
        if (Write) ys[u] = load<C>(y(j));
      }
#pragma unroll
      for (int u = 0; u < kLineAhead && jb - u >= k0; ++u) {
        const float inv_delta = fast_rcp(ds[u]);
        for (int p = 0; p < 2; ++p) {
          const edge::EdgeWeight<float> e = fast_edge_weight(a.poles.p[p], ds[u], inv_delta);
          const edge::AnticausalStep<float> step = edge::anticausal_step(a.poles.p[p], e);
          for (int c = 0; c < C; ++c) s.g[p][c] = step(s.g[p][c], next.v[c], fs[u].v[c]);
          if (w) w[p] = e.w * w[p];
        }
        if (Write) emit_anticausal(jb - u, s, ys[u]);
        next = fs[u];
      }
    }
  }
};

// Eq. (2) as edge::domain_step() computes it, with every product and sum rounded on its own (no
// fused multiply-adds): the spacings then equal the CPU backend's bit for bit, so Algorithm B's
// walk back stops at the same sample on both backends.
template <int Colours>
__device__ __forceinline__ float domain_step_rn(const float* prev, const float* cur, float scale2) {
  float sum = 0.0f;
  for (int c = 0; c < Colours; ++c) {
    const float d = __fsub_rn(cur[c], prev[c]);
    sum = __fadd_rn(sum, __fmul_rn(d, d));
  }
  return __fsqrt_rn(__fadd_rn(1.0f, __fmul_rn(scale2, sum)));
}

// ---------------------------------------------------------------------------------------------
// Kernels.

// Eq. (2) from the guide along rows (dt_rows[y][x]: between x-1 and x) and along columns.
template <int C>
__global__ void domain_steps_kernel(const float* guide, long long pitch, int width, int height,
                                    float scale2, float* dt_rows, float* dt_cols) {
  constexpr int colours = C == 1 ? 1 : 3;
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= width) return;
  const float* row = guide + y * pitch;
  const Sample<C> cur = load<C>(row + x * kStride<C>);
  const long long i = (long long)y * width + x;
  float dr = 1.0f, dc = 1.0f;
  if (x > 0) {
    const Sample<C> left = load<C>(row + (x - 1) * kStride<C>);
    dr = domain_step_rn<colours>(left.v, cur.v, scale2);
  }
  if (y > 0) {
    const Sample<C> up = load<C>(row - pitch + x * kStride<C>);
    dc = domain_step_rn<colours>(up.v, cur.v, scale2);
  }
  dt_rows[i] = dr;
  dt_cols[i] = dc;
}

// Algorithm A: each line filtered sequentially, constant extension at both ends.
template <int C>
__global__ void line_a_kernel(PassArgs a) {
  const int l = blockIdx.x * blockDim.x + threadIdx.x;
  if (l >= a.lines) return;
  const Line<C> line{a, l};
  State<C> s;
  line.steady_causal(0, s);
  line.emit_causal(0, s);
  line.template causal<true>(1, a.n, s);
  line.steady_anticausal(a.n - 1, s);
  line.emit_anticausal(a.n - 1, s);
  line.template anticausal<true>(0, a.n - 1, s);
}

// Algorithms C and D: segment blockIdx.y of every line starts from Algorithm B's estimate: walk
// back until the transformed distance reaches kappa sigma_i, start there from the steady state of
// a constant input and run up to the segment (the same walk as the CPU backend's).
template <int C>
__global__ void line_approx_kernel(PassArgs a) {
  const int l = blockIdx.x * blockDim.x + threadIdx.x;
  if (l >= a.lines) return;
  const Line<C> line{a, l};
  const int n = a.n, s0 = blockIdx.y * a.seg, e = min(n, s0 + a.seg);
  State<C> s;
  const int p = line.walk_back(s0, a.warmup);
  line.steady_causal(p, s);
  line.template causal<false>(p + 1, s0 + 1, s);
  line.emit_causal(s0, s);
  line.template causal<true>(s0 + 1, e, s);
  const int q = line.walk_forward(e - 1, a.warmup);
  line.steady_anticausal(q, s);
  line.template anticausal<false>(e - 1, q, s);
  line.emit_anticausal(e - 1, s);
  line.template anticausal<true>(s0, e - 1, s);
}

// The exact variant, step 1: each segment's composite affine map, causal and anticausal. The
// first segment's causal map starts from the steady state at sample 0 (its U is g+ at its end and
// its W is unused); the last segment's anticausal map likewise from sample n-1.
template <int C>
__global__ void exact_composites_kernel(PassArgs a) {
  const int l = blockIdx.x * blockDim.x + threadIdx.x;
  if (l >= a.lines) return;
  const Line<C> line{a, l};
  const int n = a.n, j = blockIdx.y, segments = gridDim.y;
  const int s0 = j * a.seg, e = min(n, s0 + a.seg);
  Composite<C> comp;
  if (j == 0) {
    line.steady_causal(0, comp.u);
    line.template causal<false>(1, e, comp.u);
    comp.w[0] = comp.w[1] = {1.0f, 0.0f};
  } else {
    comp.u = State<C>{};
    comp.w[0] = comp.w[1] = {1.0f, 0.0f};
    line.template causal<false>(s0, e, comp.u, comp.w);
  }
  static_cast<Composite<C>*>(a.causal)[(long long)j * a.lines + l] = comp;
  comp.w[0] = comp.w[1] = {1.0f, 0.0f};
  if (j == segments - 1) {
    line.steady_anticausal(n - 1, comp.u);
    line.template anticausal<false>(s0, n - 1, comp.u);
  } else {
    comp.u = State<C>{};
    line.template anticausal<false>(s0, e, comp.u, comp.w);
  }
  static_cast<Composite<C>*>(a.anticausal)[(long long)j * a.lines + l] = comp;
}

// Step 2: the carries, a scan of the composites along each line: U_j <- W_j U_{j-1} + U_j for the
// causal maps, U_j <- W_j U_{j+1} + U_j for the anticausal ones; U_j then holds the state leaving
// segment j (causal: g+ at its last sample; anticausal: g- at its first).
template <int C>
__global__ void exact_carries_kernel(PassArgs a, int segments) {
  const int l = blockIdx.x * blockDim.x + threadIdx.x;
  if (l >= a.lines) return;
  auto* cc = static_cast<Composite<C>*>(a.causal);
  auto* ac = static_cast<Composite<C>*>(a.anticausal);
  State<C> carry = cc[l].u;
  for (int j = 1; j < segments; ++j) {
    Composite<C>& c = cc[(long long)j * a.lines + l];
    for (int p = 0; p < 2; ++p)
      for (int ch = 0; ch < C; ++ch) carry.g[p][ch] = c.w[p] * carry.g[p][ch] + c.u.g[p][ch];
    c.u = carry;
  }
  carry = ac[(long long)(segments - 1) * a.lines + l].u;
  for (int j = segments - 2; j >= 0; --j) {
    Composite<C>& c = ac[(long long)j * a.lines + l];
    for (int p = 0; p < 2; ++p)
      for (int ch = 0; ch < C; ++ch) carry.g[p][ch] = c.w[p] * carry.g[p][ch] + c.u.g[p][ch];
    c.u = carry;
  }
}

// Step 3: every segment runs from its exact carry, writing the output.
template <int C>
__global__ void exact_final_kernel(PassArgs a) {
  const int l = blockIdx.x * blockDim.x + threadIdx.x;
  if (l >= a.lines) return;
  const Line<C> line{a, l};
  const int n = a.n, j = blockIdx.y, segments = gridDim.y;
  const int s0 = j * a.seg, e = min(n, s0 + a.seg);
  const auto* cc = static_cast<const Composite<C>*>(a.causal);
  const auto* ac = static_cast<const Composite<C>*>(a.anticausal);
  State<C> s;
  if (j == 0) {
    line.steady_causal(0, s);
    line.emit_causal(0, s);
    line.template causal<true>(1, e, s);
  } else {
    s = cc[(long long)(j - 1) * a.lines + l].u;
    line.template causal<true>(s0, e, s);
  }
  if (j == segments - 1) {
    line.steady_anticausal(n - 1, s);
    line.emit_anticausal(n - 1, s);
    line.template anticausal<true>(s0, n - 1, s);
  } else {
    s = ac[(long long)(j + 1) * a.lines + l].u;
    line.template anticausal<true>(s0, e, s);
  }
}

// The exact variant in one kernel per pass for lines of up to kFusedSeg * kFusedThreads samples.
// A CTA holds whole lines; thread (segment j, line li) owns kFusedSeg samples. Phase 1 turns each
// segment into affine maps (causal and anticausal), a scan in shared memory carries the states
// across the segments, and phase 2 runs the recursions from the carried states, keeping the
// causal part in shared memory so that every output sample is written once (eq. 4 sums the two).
// Composites and carries never leave the chip. The first segment's causal map and the last one's
// anticausal map start from the steady state of the constant extension at the image ends: their
// W is 0, so the scan passes no carry into them.
//
// Timing (H100, 2048x2048 RGB stored as RGBA float, sigma_i 44.7 and 22.4): 0.86 ms for the
// frame (eq. 2 and four passes). Filtering three channels instead of four alone changed nothing;
// loading four samples per batch took the frame from 1.01 to 0.86 ms, so the walks wait on memory
// more than on arithmetic. 16 samples per thread keep three CTAs of 256 threads on an SM.
constexpr int kFusedSeg = 16;
constexpr int kFusedThreads = 256;
constexpr int kFusedMaxLines = 32;
static_assert(kFusedSeg % kFusedAhead == 0, "phase 2 loads whole batches of a segment");

// Shared-memory layout of the fused kernel: per segment and line the composite weights W
// (both directions, both poles) and per chain (direction, pole, channel, line) the composite
// offsets U; then each scan group's aggregate map. Phase 2 reuses the memory for its causal
// results once the carries are read: kFusedSeg samples of C floats per thread.
template <int C>
struct FusedLayout {
  int lb, sb, chains, groups, group_len;
  __host__ __device__ FusedLayout(int lines_per_cta, int segments, int threads)
      : lb(lines_per_cta), sb(segments), chains(4 * C * lines_per_cta) {
    groups = max(1, threads / chains);
    group_len = (sb + groups - 1) / groups;
  }
  __host__ __device__ int chain(int dir, int pole, int ch, int li) const {
    return ((dir * 2 + pole) * C + ch) * lb + li;
  }
  __host__ __device__ std::size_t w_count() const { return std::size_t(2) * sb * lb * 2; }
  __host__ __device__ std::size_t u_count() const { return std::size_t(sb) * chains; }
  __host__ __device__ std::size_t agg_count() const { return std::size_t(groups) * chains; }
  __host__ __device__ std::size_t bytes(int threads) const {
    const std::size_t scan = (w_count() + u_count() + 2 * agg_count()) * sizeof(Cx<float>);
    const std::size_t causal = std::size_t(kFusedSeg) * threads * C * sizeof(float);
    return scan > causal ? scan : causal;
  }
  __host__ __device__ int w_index(int dir, int j, int li, int pole) const {
    return ((dir * sb + j) * lb + li) * 2 + pole;
  }
};

template <int C>
__global__ void __launch_bounds__(kFusedThreads, 3) exact_fused_kernel(PassArgs a) {
  extern __shared__ float4 smem4[];
  const FusedLayout<C> L(a.lines_per_cta, a.segments, blockDim.x);
  Cx<float>* comp_w = reinterpret_cast<Cx<float>*>(smem4);
  Cx<float>* comp_u = comp_w + L.w_count();
  Cx<float>* agg_w = comp_u + L.u_count();
  Cx<float>* agg_u = agg_w + L.agg_count();
  float* causal = reinterpret_cast<float*>(smem4);

  const int tid = threadIdx.x, li = tid % L.lb, j = tid / L.lb;
  const int l = blockIdx.x * L.lb + li;
  const bool active = l < a.lines;
  const int n = a.n, s0 = j * kFusedSeg, e = min(n, s0 + kFusedSeg);
  const bool first = j == 0, last = e == n;
  const Line<C> line{a, active ? l : 0};

  // Phase 1: the segment's causal map over edges s0..e-1 and its anticausal map over edges
  // s0+1..e, both in one forward walk so that each edge's weights are computed once. The
  // anticausal map g-[s0] = M_{s0+1}(...M_e(g-[e])) is composed from the left:
  // (W, U) <- (W w_k, U + W v_k) with v_k = R_k f[k] + S_k f[k-1] (eq. 4).
  {
    State<C> uc{}, ua{};
    Cx<float> wc[2], wa[2];
    for (int i = 0; i < 2; ++i) {
      wc[i] = {first ? 0.0f : 1.0f, 0.0f};
      wa[i] = {1.0f, 0.0f};
    }
    if (active) {
      if (first) line.steady_causal(0, uc);
      const int k0 = max(s0, 1), k1 = min(e, n - 1);
      Sample<C> prev = line.f(k0 - 1);
      for (int kb = k0; kb <= k1; kb += kFusedAhead) {
        Sample<C> fs[kFusedAhead];
        float ds[kFusedAhead];
#pragma unroll
        for (int u = 0; u < kFusedAhead; ++u) {
          fs[u] = line.f(min(kb + u, k1));
          ds[u] = line.dt(min(kb + u, k1));
        }
#pragma unroll
        for (int u = 0; u < kFusedAhead && kb + u <= k1; ++u) {
          const int k = kb + u;
          const Sample<C>& cur = fs[u];
          const float delta = ds[u], inv_delta = fast_rcp(delta);
          for (int i = 0; i < 2; ++i) {
            const edge::Pole<float>& pole = a.poles.p[i];
            const edge::EdgeWeight<float> ew = fast_edge_weight(pole, delta, inv_delta);
            const Cx<float> sk = ew.c + pole.minus_r1b;
            const Cx<float> qk = pole.r1 * ew.w - ew.c;
            if (k < e) {
              const Cx<float> pk = pole.a + sk;
              for (int c = 0; c < C; ++c)
                uc.g[i][c] = ew.w * uc.g[i][c] + pk * cur.v[c] + qk * prev.v[c];
              wc[i] = ew.w * wc[i];
            }
            if (k > s0) {
              const Cx<float> rk = pole.a * ew.w + qk;
              for (int c = 0; c < C; ++c)
                ua.g[i][c] = ua.g[i][c] + wa[i] * (rk * cur.v[c] + sk * prev.v[c]);
              wa[i] = wa[i] * ew.w;
            }
          }
          prev = cur;
        }
      }
      if (last) {
        State<C> tail;
        line.steady_anticausal(n - 1, tail);
        for (int i = 0; i < 2; ++i) {
          for (int c = 0; c < C; ++c) ua.g[i][c] = wa[i] * tail.g[i][c] + ua.g[i][c];
          wa[i] = {0.0f, 0.0f};
        }
      }
    }
    for (int i = 0; i < 2; ++i) {
      comp_w[L.w_index(0, j, li, i)] = wc[i];
      comp_w[L.w_index(1, j, li, i)] = wa[i];
      for (int c = 0; c < C; ++c) {
        comp_u[std::size_t(j) * L.chains + L.chain(0, i, c, li)] = uc.g[i][c];
        comp_u[std::size_t(j) * L.chains + L.chain(1, i, c, li)] = ua.g[i][c];
      }
    }
  }
  __syncthreads();

  // The carries: per chain an inclusive scan of U_j <- W_j U_prev + U_j over the segments
  // (left to right for the causal chains, right to left for the anticausal ones), in groups of
  // group_len: each group scans locally, then adds its predecessors' aggregate.
  const int items = L.chains * L.groups;
  for (int item = tid; item < items; item += blockDim.x) {
    const int ch_id = item % L.chains, g = item / L.chains;
    const int dir = ch_id / (2 * C * L.lb), pole = (ch_id / (C * L.lb)) % 2, cl = ch_id % L.lb;
    Cx<float> wagg{1.0f, 0.0f}, uagg{0.0f, 0.0f};
    for (int r = g * L.group_len, r1 = min(L.sb, r + L.group_len); r < r1; ++r) {
      const int sj = dir ? L.sb - 1 - r : r;
      const Cx<float> w = comp_w[L.w_index(dir, sj, cl, pole)];
      Cx<float>& u = comp_u[std::size_t(sj) * L.chains + ch_id];
      uagg = w * uagg + u;
      wagg = w * wagg;
      u = uagg;
    }
    agg_w[std::size_t(g) * L.chains + ch_id] = wagg;
    agg_u[std::size_t(g) * L.chains + ch_id] = uagg;
  }
  __syncthreads();
  for (int item = tid; item < items; item += blockDim.x) {
    const int ch_id = item % L.chains, g = item / L.chains;
    if (g == 0) continue;
    const int dir = ch_id / (2 * C * L.lb), pole = (ch_id / (C * L.lb)) % 2, cl = ch_id % L.lb;
    Cx<float> carry{0.0f, 0.0f};
    for (int h = 0; h < g; ++h)
      carry = agg_w[std::size_t(h) * L.chains + ch_id] * carry +
              agg_u[std::size_t(h) * L.chains + ch_id];
    Cx<float> wcum{1.0f, 0.0f};
    for (int r = g * L.group_len, r1 = min(L.sb, r + L.group_len); r < r1; ++r) {
      const int sj = dir ? L.sb - 1 - r : r;
      wcum = comp_w[L.w_index(dir, sj, cl, pole)] * wcum;
      Cx<float>& u = comp_u[std::size_t(sj) * L.chains + ch_id];
      u = u + wcum * carry;
    }
  }
  __syncthreads();

  // Phase 2: the causal recursion from g+[s0-1] into shared memory (sample i of thread t at
  // i * blockDim.x + t: no bank conflicts), then the anticausal one from g-[e], adding and writing
  // each sample once.
  State<C> s, carry;
  for (int i = 0; i < 2; ++i)
    for (int c = 0; c < C; ++c) {
      if (!first) s.g[i][c] = comp_u[std::size_t(j - 1) * L.chains + L.chain(0, i, c, li)];
      if (!last) carry.g[i][c] = comp_u[std::size_t(j + 1) * L.chains + L.chain(1, i, c, li)];
    }
  __syncthreads();
  if (!active) return;
  Sample<C> prev = line.f(max(s0 - 1, 0));
  for (int ib = 0; ib < kFusedSeg; ib += kFusedAhead) {
    Sample<C> fs[kFusedAhead];
    float ds[kFusedAhead];
#pragma unroll
    for (int u = 0; u < kFusedAhead; ++u) {
      const int k = min(s0 + ib + u, n - 1);
      fs[u] = line.f(k);
      ds[u] = line.dt(k);
    }
#pragma unroll
    for (int u = 0; u < kFusedAhead; ++u) {
      const int i = ib + u, k = s0 + i;
      if (k < e) {
        const Sample<C>& cur = fs[u];
        if (k == 0) {
          line.steady_causal(0, s);
        } else {
          const float delta = ds[u], inv_delta = fast_rcp(delta);
          for (int h = 0; h < 2; ++h) {
            const edge::CausalStep<float> step =
                edge::causal_step(a.poles.p[h], fast_edge_weight(a.poles.p[h], delta, inv_delta));
            for (int c = 0; c < C; ++c) s.g[h][c] = step(s.g[h][c], cur.v[c], prev.v[c]);
          }
        }
        Sample<C> out;
        for (int c = 0; c < C; ++c) out.v[c] = s.g[0][c].re + s.g[1][c].re;
        store_shared<C>(causal, i * blockDim.x + tid, out);
        prev = cur;
      }
    }
  }
  s = carry;
  Sample<C> next = line.f(min(e, n - 1));
  for (int ib = kFusedSeg - 1; ib >= 0; ib -= kFusedAhead) {
    Sample<C> fs[kFusedAhead];
    float ds[kFusedAhead];
#pragma unroll
    for (int u = 0; u < kFusedAhead; ++u) {
      const int k = min(s0 + ib - u, n - 1);
      fs[u] = line.f(k);
      ds[u] = line.dt(min(k + 1, n - 1));
    }
#pragma unroll
    for (int u = 0; u < kFusedAhead; ++u) {
      const int i = ib - u, k = s0 + i;
      if (k < e) {
        const Sample<C>& cur = fs[u];
        if (k == n - 1) {
          line.steady_anticausal(n - 1, s);
        } else {
          const float delta = ds[u], inv_delta = fast_rcp(delta);
          for (int h = 0; h < 2; ++h) {
            const edge::AnticausalStep<float> step = edge::anticausal_step(
                a.poles.p[h], fast_edge_weight(a.poles.p[h], delta, inv_delta));
            for (int c = 0; c < C; ++c) s.g[h][c] = step(s.g[h][c], next.v[c], cur.v[c]);
          }
        }
        Sample<C> out = load_shared<C>(causal, i * blockDim.x + tid);
        for (int c = 0; c < C; ++c) out.v[c] += s.g[0][c].re + s.g[1][c].re;
        store<C>(line.y(k), out);
        next = cur;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Host side.

void validate(const FilterSpec& spec, int width, int height, int channels) {
  if (spec.kind != FilterKind::EdgeAware)
    throw InvalidParameter(std::string("edge-aware plan: filter kind ") + to_string(spec.kind) +
                           " is not edge-aware");
  validate_edge_aware(spec, width, height);
  if (channels != 1 && channels != 3 && channels != 4)
    throw InvalidParameter("edge-aware filter on CUDA: " + std::to_string(channels) +
                           " channels (1, 3 or 4; RGB is stored as RGBA)");
}

Algorithm resolve(Algorithm a) {
  switch (a) {
    case Algorithm::Auto:
      return Algorithm::EdgeExact;
    case Algorithm::EdgeA:
    case Algorithm::EdgeC:
    case Algorithm::EdgeD:
    case Algorithm::EdgeExact:
      return a;
    default:
      throw InvalidParameter(std::string("edge-aware filter: algorithm '") + to_string(a) +
                             "' does not apply (use edge-a, edge-c, edge-d or edge-exact)");
  }
}

}  // namespace

struct EdgeAwarePlan::Impl {
  int width = 0, height = 0, channels = 0;
  Algorithm algo = Algorithm::EdgeExact;
  float scale2 = 0.0f;
  std::vector<PolesF> poles;   // one per iteration
  std::vector<float> warmups;  // kappa * sigma_i per iteration
  DeviceBuffer dt_rows, dt_cols, tmp, causal, anticausal;
  cudaStream_t capture = nullptr;
  cudaGraphExec_t graph = nullptr;
  const float* graph_in = nullptr;
  float* graph_out = nullptr;
  std::size_t graph_in_pitch = 0, graph_out_pitch = 0;

  ~Impl() {
    if (graph) cudaGraphExecDestroy(graph);
    if (capture) cudaStreamDestroy(capture);
  }

  // Lines that exact_fused_kernel takes whole; longer ones take the three-kernel path.
  static bool fused_exact(int n) { return n <= kFusedSeg * kFusedThreads; }

  // The fused kernel's CTA for lines of n samples: segments of kFusedSeg, whole lines per CTA.
  static void fused_shape(int n, int* segments, int* lines_per_cta) {
    *segments = (n + kFusedSeg - 1) / kFusedSeg;
    *lines_per_cta = std::min(kFusedMaxLines, std::max(1, kFusedThreads / *segments));
  }

  // Lets exact_fused_kernel use more than the default 48 KB of shared memory per CTA.
  template <int C>
  void prepare_fused() const {
    std::size_t bytes = 0;
    for (int n : {width, height})
      if (fused_exact(n)) {
        int sb = 0, lb = 0;
        fused_shape(n, &sb, &lb);
        bytes = std::max(bytes, FusedLayout<C>(lb, sb, lb * sb).bytes(lb * sb));
      }
    if (bytes)
      CUDA_CHECK(cudaFuncSetAttribute(exact_fused_kernel<C>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  }

  int segment_length() const {
    switch (algo) {
      case Algorithm::EdgeC:
        return edge::kSegmentC;
      case Algorithm::EdgeD:
        return edge::kBlockD;
      case Algorithm::EdgeExact:
        return edge::kSegmentExact;
      default:
        return 0;
    }
  }

  template <int C>
  void pass(PassArgs a, int iteration, cudaStream_t stream) const {
    a.poles = poles[std::size_t(iteration)];
    a.warmup = warmups[std::size_t(iteration)];
    a.seg = segment_length();
    const unsigned blocks = unsigned((a.lines + kThreads - 1) / kThreads);
    if (algo == Algorithm::EdgeA) {
      line_a_kernel<C><<<blocks, kThreads, 0, stream>>>(a);
      CUDA_CHECK_LAUNCH();
      return;
    }
    const unsigned segments = unsigned((a.n + a.seg - 1) / a.seg);
    const dim3 grid(blocks, segments);
    if (algo != Algorithm::EdgeExact) {
      line_approx_kernel<C><<<grid, kThreads, 0, stream>>>(a);
      CUDA_CHECK_LAUNCH();
      return;
    }
    if (fused_exact(a.n)) {
      fused_shape(a.n, &a.segments, &a.lines_per_cta);
      const int threads = a.lines_per_cta * a.segments;
      const FusedLayout<C> layout(a.lines_per_cta, a.segments, threads);
      const unsigned ctas = unsigned((a.lines + a.lines_per_cta - 1) / a.lines_per_cta);
      exact_fused_kernel<C><<<ctas, threads, layout.bytes(threads), stream>>>(a);
      CUDA_CHECK_LAUNCH();
      return;
    }
    a.causal = causal.ptr;
    a.anticausal = anticausal.ptr;
    exact_composites_kernel<C><<<grid, kThreads, 0, stream>>>(a);
    CUDA_CHECK_LAUNCH();
    exact_carries_kernel<C><<<blocks, kThreads, 0, stream>>>(a, int(segments));
    CUDA_CHECK_LAUNCH();
    exact_final_kernel<C><<<grid, kThreads, 0, stream>>>(a);
    CUDA_CHECK_LAUNCH();
  }

  // Rows then columns per iteration; the passes alternate between tmp and out so that the last
  // lands in out (in == out is allowed: eq. (2) reads the guide before out is first written).
  template <int C>
  void enqueue(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
               cudaStream_t stream) const {
    const long long w = width, stride = kStride<C>;
    {
      const dim3 grid(unsigned((width + 127) / 128), unsigned(height));
      domain_steps_kernel<C><<<grid, 128, 0, stream>>>(in, (long long)(in_pitch / sizeof(float)),
                                                       width, height, scale2, dt_rows.f(),
                                                       dt_cols.f());
      CUDA_CHECK_LAUNCH();
    }
    struct Buf {
      const float* p;
      long long stride;  // floats between rows
    };
    Buf src{in, (long long)(in_pitch / sizeof(float))};
    const Buf bufs[2] = {{tmp.f(), w * stride}, {out, (long long)(out_pitch / sizeof(float))}};
    int next = 0;
    for (int it = 0; it < int(poles.size()); ++it) {
      for (int dir = 0; dir < 2; ++dir) {
        const Buf dst = bufs[next];
        PassArgs a{};
        a.src = src.p;
        a.dst = const_cast<float*>(dst.p);
        if (dir == 0) {  // rows: samples along x
          a.dt = dt_rows.f();
          a.fk = stride, a.fl = src.stride, a.yk = stride, a.yl = dst.stride, a.dk = 1, a.dl = w;
          a.n = width, a.lines = height;
        } else {  // columns: samples along y, consecutive threads on consecutive columns
          a.dt = dt_cols.f();
          a.fk = src.stride, a.fl = stride, a.yk = dst.stride, a.yl = stride, a.dk = w, a.dl = 1;
          a.n = height, a.lines = width;
        }
        pass<C>(a, it, stream);
        src = dst;
        next ^= 1;
      }
    }
  }

  void enqueue(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
               cudaStream_t stream) const {
    if (channels == 1)
      enqueue<1>(in, in_pitch, out, out_pitch, stream);
    else if (channels == 3)
      enqueue<3>(in, in_pitch, out, out_pitch, stream);
    else
      enqueue<4>(in, in_pitch, out, out_pitch, stream);
  }
};

EdgeAwarePlan::EdgeAwarePlan(const FilterSpec& spec, int width, int height, int channels)
    : impl_(std::make_unique<Impl>()) {
  validate(spec, width, height, channels);
  Impl& m = *impl_;
  m.algo = resolve(spec.algo);
  m.width = width;
  m.height = height;
  m.channels = channels;
  const double q = spec.sigma / spec.sigma_r;
  m.scale2 = float(q * q);
  for (int it = 1; it <= spec.iterations; ++it) {
    const double sigma_i = edge::iteration_sigma(spec.sigma, it, spec.iterations);
    m.poles.push_back(edge::cast_poles<float>(edge::design_poles(sigma_i)));
    m.warmups.push_back(float(spec.kappa * sigma_i));
  }
  const std::size_t pixels = std::size_t(width) * std::size_t(height);
  m.dt_rows.allocate(pixels * sizeof(float));
  m.dt_cols.allocate(pixels * sizeof(float));
  m.tmp.allocate(pixels * std::size_t(channels == 1 ? 1 : 4) * sizeof(float));
  if (m.algo == Algorithm::EdgeExact && !(Impl::fused_exact(width) && Impl::fused_exact(height))) {
    const std::size_t seg = edge::kSegmentExact;
    const std::size_t composites =
        std::max((std::size_t(width) + seg - 1) / seg * std::size_t(height),
                 (std::size_t(height) + seg - 1) / seg * std::size_t(width));
    const std::size_t bytes = composites * (channels == 1   ? sizeof(Composite<1>)
                                            : channels == 3 ? sizeof(Composite<3>)
                                                            : sizeof(Composite<4>));
    m.causal.allocate(bytes);
    m.anticausal.allocate(bytes);
  }
  if (m.algo == Algorithm::EdgeExact) {
    if (channels == 1)
      m.prepare_fused<1>();
    else if (channels == 3)
      m.prepare_fused<3>();
    else
      m.prepare_fused<4>();
  }
  CUDA_CHECK(cudaStreamCreateWithFlags(&m.capture, cudaStreamNonBlocking));
}

EdgeAwarePlan::~EdgeAwarePlan() = default;

int EdgeAwarePlan::channels() const {
  return impl_->channels;
}

void EdgeAwarePlan::enqueue(const float* in, std::size_t in_pitch, float* out,
                            std::size_t out_pitch, void* stream) {
  impl_->enqueue(in, in_pitch, out, out_pitch, static_cast<cudaStream_t>(stream));
}

// The launches of one frame as a graph, captured again only when the buffers change.
void EdgeAwarePlan::run(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                        void* stream) {
  Impl& m = *impl_;
  if (!m.graph || in != m.graph_in || out != m.graph_out || in_pitch != m.graph_in_pitch ||
      out_pitch != m.graph_out_pitch) {
    if (m.graph) cudaGraphExecDestroy(m.graph);
    m.graph = nullptr;
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(m.capture, cudaStreamCaptureModeThreadLocal));
    try {
      m.enqueue(in, in_pitch, out, out_pitch, m.capture);
    } catch (...) {
      cudaStreamEndCapture(m.capture, &graph);
      if (graph) cudaGraphDestroy(graph);
      throw;
    }
    CUDA_CHECK(cudaStreamEndCapture(m.capture, &graph));
    const cudaError_t err = cudaGraphInstantiate(&m.graph, graph, 0);
    cudaGraphDestroy(graph);
    CUDA_CHECK(err);
    m.graph_in = in;
    m.graph_out = out;
    m.graph_in_pitch = in_pitch;
    m.graph_out_pitch = out_pitch;
  }
  CUDA_CHECK(cudaGraphLaunch(m.graph, static_cast<cudaStream_t>(stream)));
}

namespace {

// The host image as 1 or 4 floats per pixel on the device (RGB gets a zero alpha).
std::vector<float> device_layout(const Image& in) {
  if (in.channels != 3) return in.pixels;
  std::vector<float> out(std::size_t(in.width) * in.height * 4, 0.0f);
  for (std::size_t i = 0, n = std::size_t(in.width) * in.height; i < n; ++i)
    for (int c = 0; c < 3; ++c) out[i * 4 + c] = in.pixels[i * 3 + c];
  return out;
}

// Floats per pixel on the device; the plan filters only the image's own channels (3 for RGB).
int device_stride(int channels) {
  if (channels != 1 && channels != 3 && channels != 4)
    throw InvalidParameter("edge-aware filter: " + std::to_string(channels) +
                           " channels (1, 3 or 4 are supported)");
  return channels == 1 ? 1 : 4;
}

}  // namespace

namespace {

// A plan with the image uploaded in the device layout and an output buffer of the same shape,
// as both entry points below use them.
struct Staged {
  EdgeAwarePlan plan;
  std::size_t pitch = 0;
  DeviceBuffer src, dst;

  Staged(const FilterSpec& spec, const Image& in)
      : plan(spec, in.width, in.height, in.channels),
        pitch(std::size_t(in.width) * device_stride(in.channels) * sizeof(float)) {
    const std::vector<float> host = device_layout(in);
    const std::size_t bytes = host.size() * sizeof(float);
    src.allocate(bytes);
    dst.allocate(bytes);
    CUDA_CHECK(cudaMemcpy(src.ptr, host.data(), bytes, cudaMemcpyHostToDevice));
  }
  void run(cudaStream_t stream = nullptr) { plan.run(src.f(), pitch, dst.f(), pitch, stream); }
};

}  // namespace

Image edge_aware_filter(const FilterSpec& spec, const Image& in) {
  Staged staged(spec, in);
  staged.run();
  std::vector<float> result(staged.dst.bytes / sizeof(float));
  CUDA_CHECK(cudaMemcpy(result.data(), staged.dst.ptr, staged.dst.bytes, cudaMemcpyDeviceToHost));
  Image out(in.width, in.height, in.channels);
  if (in.channels != 3) {
    out.pixels = std::move(result);
  } else {
    for (std::size_t i = 0, n = std::size_t(in.width) * in.height; i < n; ++i)
      for (int c = 0; c < 3; ++c) out.pixels[i * 3 + c] = result[i * 4 + c];
  }
  return out;
}

EdgeAwareTiming time_edge_aware(const FilterSpec& spec, const Image& in, int runs) {
  Staged staged(spec, in);
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> ms;
  try {
    for (int i = 0; i < 5; ++i) staged.run(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < std::max(1, runs); ++i) {
      CUDA_CHECK(cudaEventRecord(start, stream));
      staged.run(stream);
      CUDA_CHECK(cudaEventRecord(stop, stream));
      CUDA_CHECK(cudaEventSynchronize(stop));
      float t = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
      ms.push_back(double(t));
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  std::sort(ms.begin(), ms.end());
  EdgeAwareTiming t;
  t.runs = int(ms.size());
  t.median_ms = ms[ms.size() / 2];
  t.min_ms = ms.front();
  return t;
}

}  // namespace rf::cuda
