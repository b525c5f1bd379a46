// The edge-aware recursive Gaussian on CUDA (edge-aware paper, eq. 1-4): eq. (2)'s spacings once
// per frame from the guide, then per iteration a row pass and a column pass of the complex
// recursions of eq. (4) (edge_aware_math.h), float intermediates throughout. Algorithm A, C, D
// and exact_rows_kernel run eq. (4) in its difference form (edge_aware_math.h); the fused and
// three-kernel paths of the exact variant for longer lines run it as printed.
//
// Algorithm A runs with 4 lanes per pole and direction of a line (edge_aware_kernels.cuh). The
// exact variant runs exact_rows_kernel (edge_aware_kernels.cuh) where both sides are at most 4096
// pixels, and on devices with thread block clusters (sm_90) up to 32768, a line of more than 4096
// samples then taking a cluster of CTAs: each pass reads rows and writes the transposed image, so
// the column passes read rows too, or, where both sides are at most 2048 pixels, keeps the image
// upright (the column passes read and write columns; Impl::upright); frames of every layout are
// read and written without a float copy; it is the fastest form of the exact variant measured
// (README.md). C and D run line_approx_split_kernel below (a warp per direction), measured faster
// than a scan of whole lines with a correction per segment (README.md). The kernels here take
// float frames only (the plan stages others):
//
// Two threads filter one segment of a line in each direction (C and D), one per pole.
// Consecutive pairs take consecutive lines: along columns their accesses coalesce; along rows each
// pair walks its own row and the L1 cache serves the rest of the 128-byte lines it touched. Where
// exact_rows_kernel does not take the image (a side longer than 32768 pixels, or than 4096
// without clusters), the exact variant runs one kernel per pass that holds whole lines per CTA and
// scans its segments' composites in shared memory (exact_fused_kernel, lines up to 4096 samples);
// lines longer than a CTA holds take three kernels (composites, carries, final) through global
// memory. Every walk loads its samples and spacings in batches ahead of the recursion
// (kLineAhead, kFusedAhead): one thread's walk is a chain of dependent steps, so a memory latency
// per step would otherwise be paid in full. RGB is stored as RGBA float but only its three
// colours are filtered (C = 3).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/device_buffer.cuh"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/filter_table.h"
#include "filters/edge_aware/edge_aware.h"
#include "filters/edge_aware/edge_aware_cuda.h"
#include "filters/edge_aware/edge_aware_kernels.cuh"
#include "filters/edge_aware/edge_aware_math.h"

namespace rf::cuda {
namespace {

using edge::Cx;
using PolesF = edge::Poles<float>;
using namespace edge_kernels;

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
  if constexpr (C == 4) {
    return load<C>(base + i * C);
  } else {
    Sample<C> s;
    for (int c = 0; c < C; ++c) s.v[c] = base[i * C + c];
    return s;
  }
}

template <int C>
__device__ __forceinline__ void store_shared(float* base, int i, const Sample<C>& s) {
  if constexpr (C == 4) {
    store<C>(base + i * C, s);
  } else {
    for (int c = 0; c < C; ++c) base[i * C + c] = s.v[c];
  }
}

// Samples a walk loads in one batch before it runs their recursion steps. The loads do not depend
// on the recursion, so a batch waits for memory once instead of once per sample: along columns
// every step touches a new row, and along rows the fused kernel's shared memory leaves the L1
// cache too small to keep each thread's row segment. The one-thread-per-line kernels measured
// fastest with 8, the fused kernel, held to 85 registers for three CTAs per SM, with 4 (README.md).
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

  // Samples k0 .. k1-1 (k0 >= 1) in order, loaded kLineAhead at a time ahead of
  // step(k, dt[k], f[k], f[k-1]).
  template <class Step>
  __device__ void forward(int k0, int k1, Step step) const {
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
        step(kb + u, ds[u], fs[u], prev);
        prev = fs[u];
      }
    }
  }

  // Samples k1-1 down to k0 alike, ahead of step(j, dt[j+1], f[j], f[j+1], y[j]); y[j], the
  // output's sample j, is loaded with LoadY only.
  template <bool LoadY, class Step>
  __device__ void backward(int k0, int k1, Step step) const {
    Sample<C> next = f(k1);
    for (int jb = k1 - 1; jb >= k0; jb -= kLineAhead) {
      Sample<C> fs[kLineAhead], ys[kLineAhead];
      float ds[kLineAhead];
#pragma unroll
      for (int u = 0; u < kLineAhead; ++u) {
        const int j = max(jb - u, k0);
        fs[u] = f(j);
        ds[u] = dt(j + 1);
        if (LoadY) ys[u] = load<C>(y(j));
      }
#pragma unroll
      for (int u = 0; u < kLineAhead && jb - u >= k0; ++u) {
        step(jb - u, ds[u], fs[u], next, ys[u]);
        next = fs[u];
      }
    }
  }

  // Both poles' steps of eq. (4) across one edge of spacing delta: g = step(g, f_a, f_b), with
  // step = make(pole, its edge weight) (edge::causal_step or edge::anticausal_step); with w, the
  // products of the b^dt are gathered.
  template <class MakeStep>
  __device__ void both_poles(State<C>& s, Cx<float>* w, float delta, const Sample<C>& fa,
                             const Sample<C>& fb, MakeStep make) const {
    const float inv_delta = fast_rcp(delta);
    for (int p = 0; p < 2; ++p) {
      const edge::EdgeWeight<float> e = fast_edge_weight(a.poles.p[p], delta, inv_delta);
      const auto step = make(a.poles.p[p], e);
      for (int c = 0; c < C; ++c) s.g[p][c] = step(s.g[p][c], fa.v[c], fb.v[c]);
      if (w) w[p] = e.w * w[p];
    }
  }

  // Causal recursion of eq. (4) over samples [k0, k1) (k0 >= 1): s holds g+[k0-1] on entry and
  // g+[k1-1] on exit. With Write, y[k] = Re g+[k]; with w, the product of the b^dt is gathered.
  template <bool Write>
  __device__ void causal(int k0, int k1, State<C>& s, Cx<float>* w = nullptr) const {
    forward(k0, k1, [&](int k, float delta, const Sample<C>& fk, const Sample<C>& prev) {
      both_poles(s, w, delta, fk, prev, [](const edge::Pole<float>& P, edge::EdgeWeight<float> e) {
        return edge::causal_step(P, e);
      });
      if (Write) emit_causal(k, s);
    });
  }

  // Anticausal recursion producing g-[j] for j = k1-1 down to k0: s holds g-[k1] on entry and
  // g-[k0] on exit. With Write, y[j] += Re g-[j].
  template <bool Write>
  __device__ void anticausal(int k0, int k1, State<C>& s, Cx<float>* w = nullptr) const {
    backward<Write>(
        k0, k1,
        [&](int j, float delta, const Sample<C>& fj, const Sample<C>& next, const Sample<C>& yj) {
          both_poles(s, w, delta, next, fj,
                     [](const edge::Pole<float>& P, edge::EdgeWeight<float> e) {
                       return edge::anticausal_step(P, e);
                     });
          if (Write) emit_anticausal(j, s, yj);
        });
  }
};

// ---------------------------------------------------------------------------------------------
// Kernels.

// Eq. (4) for one pole in its difference form (edge_aware_math.h): the causal step into sample k
// and the anticausal one into sample j.
template <int C>
__device__ __forceinline__ void pole_causal(const edge::Pole<float>& P, Cx<float>* h, float delta,
                                            const Sample<C>& fk, const Sample<C>& prev) {
  const edge::EdgeWeight<float> e = fast_edge_weight(P, delta, fast_rcp(delta));
  for (int c = 0; c < C; ++c) h[c] = cfma(e.w, h[c], e.c * (fk.v[c] - prev.v[c]));
}
template <int C>
__device__ __forceinline__ void pole_anticausal(const edge::Pole<float>& P, Cx<float>* h,
                                                float delta, const Sample<C>& fj,
                                                const Sample<C>& next) {
  const edge::EdgeWeight<float> e = fast_edge_weight(P, delta, fast_rcp(delta));
  for (int c = 0; c < C; ++c) h[c] = cfma(e.w, h[c], e.c * (fj.v[c] - next.v[c]));
}

// Algorithms C and D: segment blockIdx.y of every line starts from Algorithm B's estimate: walk
// back until the transformed distance reaches kappa sigma_i, start there from the steady state of
// a constant input and run up to the segment (the same walk as the CPU backend's); the
// anticausal recursion alike with the walk forward. A CTA's first warp runs the causal
// recursions of 16 lines' segments, its second warp the anticausal ones, which it keeps in shared
// memory until both are done and then adds to the output. In a warp, lanes 2m and 2m+1 walk the
// same samples, each with its own pole's weights, and the output is the sum of the pair's real
// parts (a shuffle), taken by the first lane. The walks are serial: the pole lanes and the
// direction warps give an SM more of them in flight, which measured faster than both poles on one
// thread and both directions in one warp (README.md).
constexpr int kSplitLines = 16;  // lines per CTA: a warp of pole pairs

// Floats of the kept anticausal sums per sample: the CTA's lines side by side, and one more so
// that the threads adding samples of one line read distinct banks.
template <int C>
constexpr int kept_row() {
  return C * kSplitLines + 1;
}

// B is the segment length a.seg, a constant so that the divisions below are by constants.
template <int C, int B>
__global__ void line_approx_split_kernel(PassArgs a) {
  const int dir = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int li = lane >> 1, pole = lane & 1;
  const int l0 = blockIdx.x * kSplitLines, l = min(l0 + li, a.lines - 1);
  const bool ok = l0 + li < a.lines;  // lanes past the last line repeat it without writing
  const Line<C> line{a, l};
  const edge::Pole<float>& P = a.poles.p[pole];
  const unsigned pair = 3u << (lane & 30);
  const int n = a.n, s0 = blockIdx.y * a.seg, e = min(n, s0 + a.seg);
  float* kept = dynamic_smem<float>();  // the anticausal sums at [k - s0][li][c], rows kept_row()
  // The difference form of eq. (4): h starts from zero, the steady state of the constant input
  // f[p] (resp. f[q]), and the output is f + Re{h+ + h-} summed over the poles.
  Cx<float> h[C];
  for (int c = 0; c < C; ++c) h[c] = {0.0f, 0.0f};
  // The pair's sums at sample k, plus `base` (the causal walk: f[k]; the anticausal one: 0):
  // written (causal) or kept (anticausal) by the first lane.
  auto emit = [&](int k, const Sample<C>& base) {
    Sample<C> out;
    for (int c = 0; c < C; ++c)
      out.v[c] = base.v[c] + (h[c].re + __shfl_xor_sync(pair, h[c].re, 1));
    if (dir == 0) {
      if (pole == 0 && ok) store<C>(line.y(k), out);
    } else if (pole == 0) {
      for (int c = 0; c < C; ++c) kept[(k - s0) * kept_row<C>() + li * C + c] = out.v[c];
    }
  };
  if (dir == 0) {
    const int p = line.walk_back(s0, a.warmup);
    if (p == s0) emit(s0, line.f(s0));
    line.forward(p + 1, e, [&](int k, float delta, const Sample<C>& fk, const Sample<C>& prev) {
      pole_causal<C>(P, h, delta, fk, prev);
      if (k >= s0) emit(k, fk);
    });
  } else {
    const int q = line.walk_forward(e - 1, a.warmup);
    const Sample<C> zero{};
    if (q == e - 1) emit(e - 1, zero);
    line.template backward<false>(
        s0, q,
        [&](int j, float delta, const Sample<C>& fj, const Sample<C>& next, const Sample<C>&) {
          pole_anticausal<C>(P, h, delta, fj, next);
          if (j < e) emit(j, zero);
        });
  }
  __syncthreads();
  // y += the kept anticausal sums: adjacent threads on adjacent lines, or on adjacent samples
  // where those are adjacent in the output (along rows, where adjacent lines measured slower).
  const int lines = min(kSplitLines, a.lines - l0), len = e - s0;
  const bool along = a.yk < a.yl;
  for (int i = threadIdx.x; i < B * kSplitLines; i += blockDim.x) {
    const int m = along ? i / B : i % kSplitLines, k = along ? i % B : i / kSplitLines;
    if (m >= lines || k >= len) continue;
    const Line<C> out{a, l0 + m};
    Sample<C> y = load<C>(out.y(s0 + k));
    for (int c = 0; c < C; ++c) y.v[c] += kept[k * kept_row<C>() + m * C + c];
    store<C>(out.y(s0 + k), y);
  }
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
// W is 0, so the scan passes no carry into them. Its walks wait on memory more than on
// arithmetic (loading samples in batches is what made it faster; README.md); 16 samples per
// thread keep three CTAs of 256 threads on an SM.
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
                           " channels (1, 3 or 4)");
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
                             "' does not apply (" +
                             names_of(algorithms_for(Backend::Cuda, FilterKind::EdgeAware)) + ")");
  }
}

Kind kind_of(EdgeFormat f) {
  switch (f) {
    case EdgeFormat::Gray32F:
      return Kind::F32;
    case EdgeFormat::Rgb32F:
      return Kind::F32x3;
    case EdgeFormat::Rgba8:
      return Kind::U8x4;
    default:
      return Kind::F32x4;
  }
}

const char* name_of(EdgeFormat f) {
  switch (f) {
    case EdgeFormat::Gray32F:
      return "gray float";
    case EdgeFormat::Rgb32F:
      return "RGB float";
    case EdgeFormat::Rgba8:
      return "RGBA8";
    default:
      return "RGBA float";
  }
}

std::size_t bytes_per_pixel(Kind k) {
  return k == Kind::F32x3 ? 12 : k == Kind::F32x4 ? 16 : 4;
}

// The layouts the line kernels and Algorithm A take: floats, 1 or 4 per pixel.
Kind float_kind(int channels) {
  return channels == 1 ? Kind::F32 : Kind::F32x4;
}

// Launches of one size.
dim3 pixel_grid(int width, int height) {
  return dim3(unsigned((width + 255) / 256), unsigned(height));
}

void convert(const Frame& src, const Frame& dst, int width, int height, int channels,
             cudaStream_t stream) {
  if (channels == 1)
    convert_kernel<1><<<pixel_grid(width, height), 256, 0, stream>>>(src, dst, width, height);
  else if (channels == 3)
    convert_kernel<3><<<pixel_grid(width, height), 256, 0, stream>>>(src, dst, width, height);
  else
    convert_kernel<4><<<pixel_grid(width, height), 256, 0, stream>>>(src, dst, width, height);
  CUDA_CHECK_LAUNCH();
}

bool same(const Frame& a, const Frame& b) {
  return a.ptr == b.ptr && a.pitch == b.pitch && a.kind == b.kind;
}

// Raises a kernel's limit of dynamic shared memory per CTA to `bytes`, never lowering it: the
// limit belongs to the function, and plans of other sizes in the process launch it too. Plans
// made on several threads at once raise limits one at a time.
template <class Kernel>
void raise_smem_limit(Kernel kernel, std::size_t bytes) {
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  if (bytes > std::size_t(attr.maxDynamicSharedSizeBytes))
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

}  // namespace

struct EdgeAwarePlan::Impl {
  int width = 0, height = 0, channels = 0;
  Algorithm algo = Algorithm::EdgeExact;
  float scale2 = 0.0f;
  std::vector<PolesF> poles;   // one per iteration
  std::vector<float> warmups;  // kappa * sigma_i per iteration
  bool rows_exact = false;     // the exact variant with exact_rows_kernel (transposing)
  bool float_chain = true;     // some pass takes float frames only (all but exact_rows_kernel)
  Kind mid = Kind::F32x4;      // the intermediates' layout
  DeviceBuffer dt_rows, dt_cols, tmp_a, tmp_b, stage_in, stage_out, causal, anticausal;
  DeviceBuffer tmp_t;  // rows_exact: the transposed intermediates (width rows of height pixels)
  // rows_exact on frames whose sides are at most kUprightMaxLine: the passes keep the image
  // upright (RowPass), the column passes reading and writing columns, rather than transposing it.
  // At 2048^2 RGB that took the paper's case from 0.558 to 0.512 ms. Frames with a longer side
  // (lines in CTAs of kRowMaxThreads, or clusters) lost with it: in a draft that took it at every
  // size, 4096^2 2.15 -> 2.31 ms, 3840x2160 1.25 -> 1.31, 8192^2 9.01 -> 9.39; 1920x1080 was level
  // (H200, docs/bench/edge-exact-upright-h200.json).
  static constexpr int kUprightMaxLine = kRowSamples * kRowThreads;
  bool upright = false;

  // Lines that exact_fused_kernel takes whole; longer ones take the three-kernel path.
  static bool fused_exact(int n) { return n <= kFusedSeg * kFusedThreads; }

  // The fused kernel's CTA for lines of n samples: segments of kFusedSeg, whole lines per CTA.
  static void fused_shape(int n, int* segments, int* lines_per_cta) {
    *segments = (n + kFusedSeg - 1) / kFusedSeg;
    *lines_per_cta = std::min(kFusedMaxLines, std::max(1, kFusedThreads / *segments));
  }

  // exact_rows_kernel's threads for lines of n samples: kRowSamples each, whole warps (pairs of
  // them beyond 256: the scan's 64 groups), at least four warps (its walkers).
  static int row_threads(int n) {
    const int t = std::max(128, ((n + kRowSamples - 1) / kRowSamples + 31) / 32 * 32);
    return t > 256 ? (t + 63) / 64 * 64 : t;
  }

  // How exact_rows_kernel takes lines of n samples: one CTA a line up to kRowMaxLine, beyond it
  // a cluster of `chunks` CTAs, the line split evenly, each chunk more than kRowThreads threads:
  // fewer, longer chunks measured faster, and a line that one CTA holds is faster in one CTA than
  // in a cluster (README.md).
  struct RowShape {
    int threads, chunks;
    template <int C>
    RowLayout<C> layout() const {
      return RowLayout<C>(threads, chunks > 1);
    }
    // f(the kernel's instance for this shape and pass). Upright passes (RowPass::Rows and
    // Columns) take lines of at most kUprightMaxLine, one CTA of at most kRowThreads each.
    template <int C, class F>
    void with_kernel(RowPass pass, F f) const {
      if (chunks > 1)
        f(exact_rows_kernel<C, kRowMaxThreads, 1, true>);
      else if (threads > kRowThreads)
        f(exact_rows_kernel<C, kRowMaxThreads, 1>);
      else if (pass == RowPass::Rows)
        f(exact_rows_kernel<C, kRowThreads, 2, false, RowPass::Rows>);
      else if (pass == RowPass::Columns)
        f(exact_rows_kernel<C, kRowThreads, 2, false, RowPass::Columns>);
      else
        f(exact_rows_kernel<C, kRowThreads, 2>);
    }
  };
  static RowShape row_shape(int n) {
    if (n <= kRowMaxLine) return {row_threads(n), 1};
    const int chunks = (n + kRowMaxLine - 1) / kRowMaxLine;
    return {row_threads((n + chunks - 1) / chunks), chunks};
  }

  // The longest line exact_rows_kernel takes on this device: clusters need sm_90.
  static int row_max_line() {
    return device_attribute(cudaDevAttrClusterLaunch) ? kRowClusterMaxLine : kRowMaxLine;
  }

  // Lets exact_rows_kernel use more than the default 48 KB of shared memory per CTA.
  template <int C>
  void prepare_rows() const {
    for (const bool image_rows : {true, false}) {
      const RowShape shape = row_shape(image_rows ? width : height);
      const std::size_t bytes = shape.layout<C>().bytes;
      shape.with_kernel<C>(row_pass(image_rows),
                           [&](void (*kernel)(RowArgs)) { raise_smem_limit(kernel, bytes); });
    }
  }

  // The shared-memory limits of the exact variant's kernels that this plan launches.
  template <int C>
  void prepare_limits(bool line_exact) const {
    if (rows_exact) prepare_rows<C>();
    if (line_exact) prepare_fused<C>();
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
    if (bytes) raise_smem_limit(exact_fused_kernel<C>, bytes);
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

  // The addressing of a rows or columns pass over float frames of C channels, for the line
  // kernels' arguments (PassArgs, LineArgs): sample k of line l at src[k * fk + l * fl], its
  // output at dst[k * yk + l * yl], the spacing before it at dt[k * dk + l * dl].
  template <int C, class Args>
  void line_layout(Args& a, const Frame& src, const Frame& dst, bool rows) const {
    const long long w = width, stride = kStride<C>;
    const long long sp = src.pitch / (long long)sizeof(float);
    const long long dp = dst.pitch / (long long)sizeof(float);
    a.src = reinterpret_cast<const float*>(src.ptr);
    a.dst = reinterpret_cast<float*>(dst.ptr);
    if (rows) {
      a.dt = dt_rows.f();
      a.fk = stride, a.fl = sp, a.yk = stride, a.yl = dp, a.dk = 1, a.dl = w;
      a.n = width, a.lines = height;
    } else {  // dt_cols row-major: exact_rows_kernel, which reads it by column, does not run here
      a.dt = dt_cols.f();
      a.fk = sp, a.fl = stride, a.yk = dp, a.yl = stride, a.dk = w, a.dl = 1;
      a.n = height, a.lines = width;
    }
  }

  // One pass of the exact variant, C or D with the one-thread-per-segment kernels: float frames.
  template <int C>
  void line_pass(const Frame& src, const Frame& dst, bool rows, int iteration,
                 cudaStream_t stream) const {
    PassArgs a{};
    line_layout<C>(a, src, dst, rows);
    a.poles = poles[std::size_t(iteration)];
    a.warmup = warmups[std::size_t(iteration)];
    a.seg = segment_length();
    const unsigned blocks = unsigned((a.lines + kThreads - 1) / kThreads);
    const unsigned segments = unsigned((a.n + a.seg - 1) / a.seg);
    const dim3 grid(blocks, segments);
    if (algo != Algorithm::EdgeExact) {
      const dim3 ctas(unsigned((a.lines + kSplitLines - 1) / kSplitLines), segments);
      const std::size_t kept = std::size_t(a.seg) * kept_row<C>() * sizeof(float);
      if (algo == Algorithm::EdgeD)
        line_approx_split_kernel<C, edge::kBlockD><<<ctas, 64, kept, stream>>>(a);
      else
        line_approx_split_kernel<C, edge::kSegmentC><<<ctas, 64, kept, stream>>>(a);
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

  // Algorithm A with kLineLanes<C> threads per line (float frames); the output is zeroed first,
  // since each direction adds its part.
  template <int C>
  void line_a_pass(const Frame& src, const Frame& dst, bool rows, int iteration,
                   cudaStream_t stream) const {
    CUDA_CHECK(cudaMemset2DAsync(dst.ptr, std::size_t(dst.pitch), 0,
                                 std::size_t(width) * kStride<C> * sizeof(float),
                                 std::size_t(height), stream));
    LineArgs a{};
    line_layout<C>(a, src, dst, rows);
    a.poles = poles[std::size_t(iteration)];
    // A frame has few of these threads (16 per line for RGB): one warp per CTA spreads them over
    // all SMs.
    constexpr int threads = 32;
    const unsigned blocks = unsigned(((long long)kLineLanes<C> * a.lines + threads - 1) / threads);
    line_a_channel_kernel<C><<<blocks, threads, 0, stream>>>(a);
    CUDA_CHECK_LAUNCH();
  }

  // How a pass over the image's rows (or columns) addresses its lines (RowPass).
  RowPass row_pass(bool image_rows) const {
    return !upright ? RowPass::Transposing : image_rows ? RowPass::Rows : RowPass::Columns;
  }

  // One pass of the exact variant with exact_rows_kernel: the rows of `src` (the image's rows
  // or, transposed, its columns) filtered and written transposed into `dst`; with `upright`, the
  // image's rows or columns of `src` into the same of `dst`.
  template <int C>
  void rows_pass(const Frame& src, const Frame& dst, bool image_rows, int iteration,
                 cudaStream_t stream) const {
    RowArgs a{};
    a.src = src;
    a.dst = dst;
    a.n = image_rows ? width : height;
    a.lines = image_rows ? height : width;
    a.dt = image_rows ? dt_rows.f() : dt_cols.f();  // dt_cols column after column here
    a.poles = poles[std::size_t(iteration)];
    const RowShape shape = row_shape(a.n);
    const RowLayout<C> layout = shape.layout<C>();
    a.gs_inv = RowLayout<C>::gs_inverse(layout.gs);
    // A CTA per line, or per chunk of it in clusters of shape.chunks CTAs.
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(unsigned(a.lines) * unsigned(shape.chunks));
    config.blockDim = dim3(unsigned(shape.threads));
    config.dynamicSmemBytes = layout.bytes;
    config.stream = stream;
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = unsigned(shape.chunks);
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = shape.chunks > 1 ? 1 : 0;
    shape.with_kernel<C>(row_pass(image_rows), [&](void (*kernel)(RowArgs)) {
      CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, a));
    });
  }

  Frame buffer_frame(const DeviceBuffer& b, Kind kind) const {
    return Frame{static_cast<char*>(b.ptr), (long long)b.pitch, kind};
  }

  // Eq. (2) from `in`, then rows and columns per iteration. Intermediates alternate between
  // tmp_a and tmp_b so that the last pass lands in `out` (in == out is allowed: eq. (2) and the
  // first pass read `in` before anything writes `out`). Frames a float-only pass cannot take go
  // through stage_in and stage_out.
  template <int C>
  void enqueue(const Frame& in, const Frame& out, cudaStream_t stream) const {
    {
      const dim3 grid(unsigned((width + kDomainTile - 1) / kDomainTile),
                      unsigned((height + kDomainTile - 1) / kDomainTile));
      const std::size_t smem = std::size_t(kDomainTile) * (kDomainTile + 1) * sizeof(float);
      domain_steps_kernel<C><<<grid, dim3(kDomainTile, kDomainRows), smem, stream>>>(
          in, width, height, scale2, dt_rows.f(), dt_cols.f(), rows_exact ? 1 : 0);
      CUDA_CHECK_LAUNCH();
    }
    const int passes = 2 * int(poles.size());
    if (upright) {
      // Every pass but the first in place in tmp_a: a CTA reads its line whole before the
      // barriers of its scan and writes it after them, and no other CTA touches it.
      const Frame work = buffer_frame(tmp_a, mid);
      for (int p = 0; p < passes; ++p)
        rows_pass<C>(p == 0 ? in : work, p == passes - 1 ? out : work, p % 2 == 0, p / 2, stream);
      return;
    }
    if (rows_exact) {
      // Even passes write the transposed image into tmp_t, odd ones the upright one into tmp_a;
      // the last (odd) one into `out`.
      const Frame upright = buffer_frame(tmp_a, mid), transposed = buffer_frame(tmp_t, mid);
      for (int p = 0; p < passes; ++p) {
        const Frame src = p == 0 ? in : p % 2 ? transposed : upright;
        const Frame dst = p == passes - 1 ? out : p % 2 ? upright : transposed;
        rows_pass<C>(src, dst, p % 2 == 0, p / 2, stream);
      }
      return;
    }
    Frame first = in, last = out;
    if (float_chain && in.kind != float_kind(C)) {
      first = buffer_frame(stage_in, float_kind(C));
      convert(in, first, width, height, C, stream);
    }
    if (float_chain && out.kind != float_kind(C)) last = buffer_frame(stage_out, float_kind(C));
    Frame src = first;
    for (int p = 0; p < passes; ++p) {
      const Frame dst = p == passes - 1             ? last
                        : (passes - 1 - p) % 2 == 1 ? buffer_frame(tmp_a, mid)
                                                    : buffer_frame(tmp_b, mid);
      const bool rows = p % 2 == 0;
      const int iteration = p / 2;
      if (algo == Algorithm::EdgeA)
        line_a_pass<C>(src, dst, rows, iteration, stream);
      else
        line_pass<C>(src, dst, rows, iteration, stream);
      src = dst;
    }
    if (!same(last, out)) convert(last, out, width, height, C, stream);
  }

  void enqueue(const Frame& in, const Frame& out, cudaStream_t stream) const {
    if (channels == 1)
      enqueue<1>(in, out, stream);
    else if (channels == 3)
      enqueue<3>(in, out, stream);
    else
      enqueue<4>(in, out, stream);
  }

  // One line naming the problem when an image does not suit the plan.
  Frame frame_of(const void* data, std::size_t pitch, EdgeFormat format, const char* what) const {
    const bool fits = channels == 1   ? format == EdgeFormat::Gray32F
                      : channels == 4 ? format == EdgeFormat::Rgba32F || format == EdgeFormat::Rgba8
                                      : format != EdgeFormat::Gray32F;
    if (!fits)
      throw InvalidParameter(std::string("edge-aware filter on CUDA: ") + what + " image is " +
                             name_of(format) + ", which a " + std::to_string(channels) +
                             "-channel plan does not take");
    const Kind kind = kind_of(format);
    const std::size_t align = kind == Kind::F32x4 ? 16 : 4;
    const auto address = reinterpret_cast<std::uintptr_t>(data);
    if (!data || pitch < std::size_t(width) * bytes_per_pixel(kind) || pitch % align ||
        address % align)
      throw InvalidParameter(std::string("edge-aware filter on CUDA: ") + what + " image: pitch " +
                             std::to_string(pitch) + " or address does not suit " +
                             std::to_string(width) + " " + name_of(format) + " pixels per row");
    return Frame{static_cast<char*>(const_cast<void*>(data)), (long long)pitch, kind};
  }

  // Staging for the frames a float-only pass cannot take, allocated outside any capture.
  void prepare(EdgeFormat in, EdgeFormat out) {
    const Kind fk = float_kind(channels);
    const std::size_t row = std::size_t(width) * bytes_per_pixel(fk);
    if (float_chain && kind_of(in) != fk && !stage_in.ptr)
      stage_in.allocate_pitched(row, std::size_t(height));
    if (float_chain && kind_of(out) != fk && !stage_out.ptr)
      stage_out.allocate_pitched(row, std::size_t(height));
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
  m.rows_exact = m.algo == Algorithm::EdgeExact && std::max(width, height) <= Impl::row_max_line();
  m.upright = m.rows_exact && std::max(width, height) <= Impl::kUprightMaxLine;
  m.float_chain = !m.rows_exact;
  m.mid = float_kind(channels);

  const std::size_t pixels = std::size_t(width) * std::size_t(height);
  m.dt_rows.allocate(pixels * sizeof(float));
  m.dt_cols.allocate(pixels * sizeof(float));
  const std::size_t row = std::size_t(width) * bytes_per_pixel(m.mid);
  if (m.rows_exact) {
    if (!m.upright)
      m.tmp_t.allocate_pitched(std::size_t(height) * bytes_per_pixel(m.mid), std::size_t(width));
    if (m.upright || spec.iterations > 1) m.tmp_a.allocate_pitched(row, std::size_t(height));
  } else {
    m.tmp_a.allocate_pitched(row, std::size_t(height));
    if (spec.iterations > 1) m.tmp_b.allocate_pitched(row, std::size_t(height));
  }

  const bool line_exact = m.algo == Algorithm::EdgeExact && !m.rows_exact;
  if (line_exact && !(Impl::fused_exact(width) && Impl::fused_exact(height))) {
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
  if (channels == 1)
    m.prepare_limits<1>(line_exact);
  else if (channels == 3)
    m.prepare_limits<3>(line_exact);
  else
    m.prepare_limits<4>(line_exact);
}

EdgeAwarePlan::~EdgeAwarePlan() = default;

Algorithm EdgeAwarePlan::algorithm() const {
  return impl_->algo;
}

int EdgeAwarePlan::channels() const {
  return impl_->channels;
}

void EdgeAwarePlan::prepare(EdgeFormat in, EdgeFormat out) {
  impl_->prepare(in, out);
}

void EdgeAwarePlan::enqueue(const EdgeImage& in, const EdgeOutput& out, void* stream) {
  Impl& m = *impl_;
  const Frame fi = m.frame_of(in.data, in.pitch, in.format, "input");
  const Frame fo = m.frame_of(out.data, out.pitch, out.format, "output");
  m.prepare(in.format, out.format);
  m.enqueue(fi, fo, static_cast<cudaStream_t>(stream));
}

void EdgeAwarePlan::run(const EdgeImage& in, const EdgeOutput& out, void* stream) {
  enqueue(in, out, stream);
}

namespace {

EdgeFormat float_format(int channels) {
  return channels == 1 ? EdgeFormat::Gray32F : EdgeFormat::Rgba32F;
}

}  // namespace

void EdgeAwarePlan::run(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                        void* stream) {
  const EdgeFormat f = float_format(impl_->channels);
  run(EdgeImage{in, in_pitch, f}, EdgeOutput{out, out_pitch, f}, stream);
}

void EdgeAwarePlan::enqueue(const float* in, std::size_t in_pitch, float* out,
                            std::size_t out_pitch, void* stream) {
  const EdgeFormat f = float_format(impl_->channels);
  enqueue(EdgeImage{in, in_pitch, f}, EdgeOutput{out, out_pitch, f}, stream);
}

namespace {

int device_channels(int channels) {
  if (channels != 1 && channels != 3 && channels != 4)
    throw InvalidParameter("edge-aware filter: " + std::to_string(channels) +
                           " channels (1, 3 or 4 are supported)");
  return channels;
}

// A plan with the image uploaded in `format` (packed rows; RGB padded to four floats only for
// Rgba32F; Rgba8 quantised) and an output of the same layout, as the entry points below use them.
struct Staged {
  EdgeAwarePlan plan;
  EdgeFormat format;
  int width, height, channels;
  std::size_t pitch = 0;
  DeviceBuffer src, dst;

  Staged(const FilterSpec& spec, const Image& in, EdgeFormat f)
      : plan(spec, in.width, in.height, device_channels(in.channels)),
        format(f),
        width(in.width),
        height(in.height),
        channels(in.channels) {
    const std::size_t pixels = std::size_t(width) * height;
    const int values = values_per_pixel();
    pitch = std::size_t(width) * bytes_per_pixel(kind_of(format));
    src.allocate(pitch * height);
    dst.allocate(pitch * height);
    if (format == EdgeFormat::Rgba8) {
      std::vector<unsigned char> host(pixels * 4, 0);
      for (std::size_t i = 0; i < pixels; ++i)
        for (int c = 0; c < channels; ++c) host[i * 4 + c] = to_unorm8(in.pixels[i * channels + c]);
      CUDA_CHECK(cudaMemcpy(src.ptr, host.data(), host.size(), cudaMemcpyHostToDevice));
      return;
    }
    std::vector<float> host;
    const std::vector<float>* up = &in.pixels;
    if (values != channels) {
      host.assign(pixels * values, 0.0f);
      for (std::size_t i = 0; i < pixels; ++i)
        for (int c = 0; c < channels; ++c) host[i * values + c] = in.pixels[i * channels + c];
      up = &host;
    }
    CUDA_CHECK(cudaMemcpy(src.ptr, up->data(), up->size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  int values_per_pixel() const {
    return format == EdgeFormat::Gray32F ? 1 : format == EdgeFormat::Rgb32F ? 3 : 4;
  }
  void run(cudaStream_t stream = nullptr) {
    plan.run(EdgeImage{src.ptr, pitch, format}, EdgeOutput{dst.ptr, pitch, format}, stream);
  }
  Image download() const {
    const std::size_t pixels = std::size_t(width) * height;
    const int values = values_per_pixel();
    Image out(width, height, channels);
    if (format == EdgeFormat::Rgba8) {
      std::vector<unsigned char> host(pixels * 4);
      CUDA_CHECK(cudaMemcpy(host.data(), dst.ptr, host.size(), cudaMemcpyDeviceToHost));
      for (std::size_t i = 0; i < pixels; ++i)
        for (int c = 0; c < channels; ++c)
          out.pixels[i * channels + c] = from_unorm8(host[i * 4 + c]);
      return out;
    }
    std::vector<float> result(pixels * values);
    CUDA_CHECK(
        cudaMemcpy(result.data(), dst.ptr, result.size() * sizeof(float), cudaMemcpyDeviceToHost));
    if (values == channels) {
      out.pixels = std::move(result);
    } else {
      for (std::size_t i = 0; i < pixels; ++i)
        for (int c = 0; c < channels; ++c) out.pixels[i * channels + c] = result[i * values + c];
    }
    return out;
  }
};

EdgeFormat own_format(int channels) {
  return channels == 1   ? EdgeFormat::Gray32F
         : channels == 3 ? EdgeFormat::Rgb32F
                         : EdgeFormat::Rgba32F;
}

}  // namespace

Image edge_aware_filter(const FilterSpec& spec, const Image& in) {
  return edge_aware_filter(spec, in, own_format(device_channels(in.channels)));
}

Image edge_aware_filter(const FilterSpec& spec, const Image& in, EdgeFormat format) {
  Staged staged(spec, in, format);
  staged.run();
  return staged.download();
}

}  // namespace rf::cuda
