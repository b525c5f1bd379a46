// The CUDA kernels of the edge-aware filter (edge-aware paper, eq. 1-4) that read and write frames
// of every layout the plan accepts: eq. (2)'s spacings, Algorithm A with 4 lanes per pole and
// direction of a line, and the exact variant's row kernel (exact_rows_kernel, at the end: what
// runs for lines of up to 4096 samples, and up to 32768 in clusters of CTAs on sm_90). The host
// side is edge_aware_cuda.cu.
//
// The scan. Along a line each step of eq. (4) is an affine map of the state, for each pole
//   causal      g+[k]   = w_k g+[k-1]   + u_k,   u_k = P_k f[k]   + Q_k f[k-1]
//   anticausal  g-[k-1] = w_k g-[k]     + v_k,   v_k = R_k f[k]   + S_k f[k-1]
// (edge_aware_math.h), with w_k = b^dt[k] shared by the channels. Maps compose associatively:
// (W2, U2) after (W1, U1) is (W2 W1, W2 U1 + U2). So the exact variant cuts a line into runs of
// samples, turns each run into its composite map (W, U) from a zero state, scans the composites
// across the line for the state entering each run (its carry), and adds each carry's response
// Re(W_k g), W_k the product of the w up to sample k: Algorithm A's result up to float rounding,
// with parallelism over the runs. The line's first run starts from the steady state of the
// constant extension (its W is 0, so the scanned U are the states themselves), and the
// anticausal scan runs from the line's last sample.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "filters/core/image.h"
#include "filters/edge_aware/edge_aware_math.h"

namespace rf::cuda::edge_kernels {

// The CTA's cluster (sm_90): its rank and size, its barrier (whole, or its two halves: every thread
// arrives, then waits), and the same shared-memory object of another CTA of it. The plan launches
// the clustered kernel only on devices with clusters; other architectures compile it against a
// cluster of one CTA.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
using Cluster = cooperative_groups::cluster_group;
__device__ __forceinline__ Cluster this_cluster() {
  return cooperative_groups::this_cluster();
}
#else
struct Cluster {
  __device__ unsigned block_rank() const { return 0; }
  __device__ unsigned num_blocks() const { return 1; }
  __device__ void sync() const {}
  __device__ void barrier_arrive() const {}
  __device__ void barrier_wait() const {}
  template <class T>
  __device__ T* map_shared_rank(T* p, unsigned) const {
    return p;
  }
};
__device__ __forceinline__ Cluster this_cluster() {
  return {};
}
#endif

using edge::Cx;
using Cf = Cx<float>;
using PolesF = edge::Poles<float>;

// ---------------------------------------------------------------------------------------------
// Elementary functions for the edge weights.

// e^x and e^x - 1 for x <= 0 (x = -rho delta of edge::edge_weight()): the hardware exponential
// (a few ulp) and, where e^x - 1 would cancel, its Taylor series to x^9 (below 3e-10 relative for
// |x| < 0.5). The C library's expf and expm1f cost several times more and dominate the passes.
// The series is evaluated for every x and selected, without a branch: nearly every edge takes it
// (|x| < 0.5 unless delta > 0.5 sigma / 1.78), and a branch costs a warp more than its other side.
// The hardware's approximations with denormals flushed to zero (PTX .ftz): without it each call
// gains a compare, a select and a rescale (sm_90), and no operand or result here is that small but
// e^x of a very long edge, where zero is as good.
__device__ __forceinline__ float ex2_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float rcp_ftz(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ void sincos_ftz(float x, float* s, float* c) {
  asm("sin.approx.ftz.f32 %0, %1;" : "=f"(*s) : "f"(x));
  asm("cos.approx.ftz.f32 %0, %1;" : "=f"(*c) : "f"(x));
}

__device__ __forceinline__ void fast_exp_expm1(float x, float* e, float* em1) {
  *e = ex2_ftz(x * 1.44269504f);
  float p = 1.0f / 362880.0f;
  p = fmaf(p, x, 1.0f / 40320.0f);
  p = fmaf(p, x, 1.0f / 5040.0f);
  p = fmaf(p, x, 1.0f / 720.0f);
  p = fmaf(p, x, 1.0f / 120.0f);
  p = fmaf(p, x, 1.0f / 24.0f);
  p = fmaf(p, x, 1.0f / 6.0f);
  p = fmaf(p, x, 0.5f);
  p = fmaf(p, x, 1.0f);
  *em1 = x > -0.5f ? p * x : *e - 1.0f;
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
    sincos_ftz(h, s, c);
  }
}

// 1 / x for the spacings of eq. (2) (x >= 1): the hardware reciprocal, within 1 ulp, where the
// correctly rounded division adds a refinement sequence to every edge.
__device__ __forceinline__ float fast_rcp(float x) {
  return rcp_ftz(x);
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
  out.c = Cf{em1 - e * one_minus_cos, -e * sin_full} * p.inv_r0 * inv_delta;
  return out;
}

// a x + b in four fused multiply-adds, two deep along x (a x + b as written contracts to a
// multiply, a multiply-add and an add, three deep): for the recursions' and the scans' chains.
__device__ __forceinline__ Cf cfma(Cf a, Cf x, Cf b) {
  return {fmaf(a.re, x.re, fmaf(-a.im, x.im, b.re)), fmaf(a.re, x.im, fmaf(a.im, x.re, b.im))};
}

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
// Frames: pitched device images of one float (gray), three floats (RGB), four floats or four
// bytes (RGBA; bytes are read as c / 255 and written clamped and rounded) per pixel. C channels
// are filtered: 1, 3 (the colours; a fourth component is written as 0) or 4.

enum class Kind : int { F32, F32x3, F32x4, U8x4 };

struct Frame {
  char* ptr;
  long long pitch;  // bytes between rows
  Kind kind;
};

template <int C>
struct Pix {
  float v[C];
};

// Pixel x of a row of layout K, and the same with the layout known at run time.
template <int C, Kind K>
__device__ __forceinline__ Pix<C> load_pix_as(const char* row, int x) {
  float q[4] = {0.f, 0.f, 0.f, 0.f};
  if constexpr (K == Kind::F32) {
    q[0] = reinterpret_cast<const float*>(row)[x];
  } else if constexpr (K == Kind::F32x3) {
    const float* p = reinterpret_cast<const float*>(row) + 3 * x;
    q[0] = p[0];
    q[1] = p[1];
    q[2] = p[2];
  } else if constexpr (K == Kind::F32x4) {
    const float4 v = reinterpret_cast<const float4*>(row)[x];
    q[0] = v.x;
    q[1] = v.y;
    q[2] = v.z;
    q[3] = v.w;
  } else {
    const uchar4 v = reinterpret_cast<const uchar4*>(row)[x];
    q[0] = from_unorm8(v.x);
    q[1] = from_unorm8(v.y);
    q[2] = from_unorm8(v.z);
    q[3] = from_unorm8(v.w);
  }
  Pix<C> p;
  for (int c = 0; c < C; ++c) p.v[c] = q[c];
  return p;
}

template <int C, Kind K>
__device__ __forceinline__ void store_pix_as(char* row, int x, const Pix<C>& p) {
  float q[4] = {0.f, 0.f, 0.f, 0.f};
  for (int c = 0; c < C; ++c) q[c] = p.v[c];
  if constexpr (K == Kind::F32) {
    reinterpret_cast<float*>(row)[x] = q[0];
  } else if constexpr (K == Kind::F32x3) {
    float* o = reinterpret_cast<float*>(row) + 3 * x;
    o[0] = q[0];
    o[1] = q[1];
    o[2] = q[2];
  } else if constexpr (K == Kind::F32x4) {
    reinterpret_cast<float4*>(row)[x] = make_float4(q[0], q[1], q[2], q[3]);
  } else {
    reinterpret_cast<uchar4*>(row)[x] =
        make_uchar4(to_unorm8(q[0]), to_unorm8(q[1]), to_unorm8(q[2]), to_unorm8(q[3]));
  }
}

// Calls body(std::integral_constant<Kind, K>{}) with the frame's layout K: code that accesses
// many pixels of one frame dispatches once, not at every access.
template <class Body>
__device__ __forceinline__ void with_kind(Kind k, Body body) {
  switch (k) {
    case Kind::F32:
      body(std::integral_constant<Kind, Kind::F32>{});
      break;
    case Kind::F32x3:
      body(std::integral_constant<Kind, Kind::F32x3>{});
      break;
    case Kind::F32x4:
      body(std::integral_constant<Kind, Kind::F32x4>{});
      break;
    case Kind::U8x4:
      body(std::integral_constant<Kind, Kind::U8x4>{});
      break;
  }
}

template <int C>
__device__ __forceinline__ Pix<C> load_pix(const Frame& f, int x, int y) {
  const char* row = f.ptr + y * f.pitch;
  Pix<C> p;
  with_kind(f.kind, [&](auto k) { p = load_pix_as<C, decltype(k)::value>(row, x); });
  return p;
}

template <int C>
__device__ __forceinline__ void store_pix(const Frame& f, int x, int y, const Pix<C>& p) {
  char* row = f.ptr + y * f.pitch;
  with_kind(f.kind, [&](auto k) { store_pix_as<C, decltype(k)::value>(row, x, p); });
}

// The dynamic shared memory of a launch.
template <class T>
__device__ __forceinline__ T* dynamic_smem() {
  extern __shared__ float4 rf_edge_smem[];
  return reinterpret_cast<T*>(rf_edge_smem);
}

// Copies a frame into another layout (the staging of frames for kernels that take float frames).
template <int C>
__global__ void convert_kernel(Frame src, Frame dst, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < width && y < height) store_pix<C>(dst, x, y, load_pix<C>(src, x, y));
}

// ---------------------------------------------------------------------------------------------
// Eq. (2) from the guide along rows (dt_rows[y][x]: between x-1 and x) and along columns (between
// y-1 and y), the latter stored row-major (dt_cols[y][x]) or, with `cols_by_line`, one column
// after another (dt_cols[x][y]) for the kernels that load a column's spacings whole. A CTA of
// 32 x kDomainRows threads covers 32 x 32 pixels; the transposed store goes through shared
// memory (32 x 33 floats) so that it is coalesced too. A thread loads all its pixels and their
// neighbours before it computes: their loads then wait on memory once, not once per row.
constexpr int kDomainTile = 32;
constexpr int kDomainRows = 8;

template <int C>
__global__ void domain_steps_kernel(Frame guide, int width, int height, float scale2,
                                    float* dt_rows, float* dt_cols, int cols_by_line) {
  constexpr int colours = C == 1 ? 1 : 3, R = kDomainTile / kDomainRows;
  float* tile = dynamic_smem<float>();
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * kDomainTile, y0 = blockIdx.y * kDomainTile;
  const int x = x0 + tx;
  const int xc = min(x, width - 1);
  Pix<C> cur[R], left[R], up[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int y = min(y0 + ty + r * kDomainRows, height - 1);
    cur[r] = load_pix<C>(guide, xc, y);
    left[r] = load_pix<C>(guide, max(xc - 1, 0), y);
    up[r] = load_pix<C>(guide, xc, max(y - 1, 0));
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int j = ty + r * kDomainRows, y = y0 + j;
    if (x < width && y < height) {
      const float dr = x > 0 ? domain_step_rn<colours>(left[r].v, cur[r].v, scale2) : 1.0f;
      const float dc = y > 0 ? domain_step_rn<colours>(up[r].v, cur[r].v, scale2) : 1.0f;
      const long long i = (long long)y * width + x;
      dt_rows[i] = dr;
      if (cols_by_line)
        tile[j * (kDomainTile + 1) + tx] = dc;
      else
        dt_cols[i] = dc;
    }
  }
  if (!cols_by_line) return;
  __syncthreads();
  const int y = y0 + tx;
  for (int j = ty; j < kDomainTile; j += kDomainRows) {
    const int xx = x0 + j;
    if (xx < width && y < height)
      dt_cols[(long long)xx * height + y] = tile[tx * (kDomainTile + 1) + j];
  }
}

// ---------------------------------------------------------------------------------------------
// Algorithm A: each line sequential, its recursions side by side in 4 S lanes: one per pole,
// direction and channel slot (S = 4 slots for RGB and RGBA, the fourth idle for RGB; S = 1 for
// gray). In step i the causal lanes filter sample i and the anticausal ones sample n-1-i; both use
// edge e (i, resp. n-i) and the samples e and e-1. The weights of an edge depend on the pole alone,
// so the S slots of one pole and direction share them: of a batch of kLineBatch edges each slot
// weighs every S-th and takes the others from its neighbours by shuffles (a lane per channel keeps
// enough warps in flight, which all channels in one lane per pole and direction did not;
// README.md). A line's 4 S lanes are in one warp (two lines per warp for RGB, eight for gray). Lane
// pairs (2m, 2m+1) are the two poles of one channel and direction: their real parts are summed
// across the pair, and each direction adds its sum to the output (the causal one with f, of eq. 4's
// difference form), which the host zeroes first: two additions to zero per sample, in either order,
// give the same float. Float frames only (the plan stages others).

// One pass over `lines` lines of n samples: sample k of line l, channel c at src[k * fk + l * fl
// + c] (dst with yk, yl); its spacing dt[k] at dt[k * dk + l * dl].
struct LineArgs {
  const float* src;
  float* dst;
  const float* dt;
  long long fk, fl, yk, yl, dk, dl;
  int n, lines;
  PolesF poles;
};

// Samples a thread loads and weighs in one batch before it runs their recursion steps: the loads
// and the weights do not depend on the recursion, so a batch waits for memory once and its
// weights are independent work.
constexpr int kLineBatch = 8;

// Channel slots per line in Algorithm A's kernel, and its lanes per line.
template <int C>
constexpr int kLineSlots = C == 1 ? 1 : 4;
template <int C>
constexpr int kLineLanes = 4 * kLineSlots<C>;

template <int C>
__global__ void line_a_channel_kernel(LineArgs a) {
  constexpr int S = kLineSlots<C>, per_slot = kLineBatch / S;
  static_assert(kLineBatch % S == 0 && 32 % kLineLanes<C> == 0, "slots divide batch and warp");
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const int line = gid / kLineLanes<C>, r = gid % kLineLanes<C>;
  const int pole = r & 1, dir = (r >> 1) & 1, slot = r >> 2;
  const int ch = min(slot, C - 1);
  const bool ok = line < a.lines, writes = ok && slot < C;
  const int l = ok ? line : a.lines - 1;
  const int lane = threadIdx.x & 31, group = lane & ~(4 * (S - 1));  // slot 0 of this pole, dir
  const edge::Pole<float>& P = a.poles.p[pole];
  const int n = a.n;
  auto sample = [&](int k) { return a.src[k * a.fk + l * a.fl + ch]; };
  // The difference form of eq. (4) (edge_aware_math.h): both walks start from zero, the steady
  // state of the constant extension, and the causal one adds f to its sums.
  auto emit = [&](int k, Cf h, float f) {
    const float other = __shfl_xor_sync(0xffffffffu, h.re, 1);
    if (pole == 0 && writes)
      atomicAdd(a.dst + k * a.yk + l * a.yl + ch, (dir ? 0.0f : f) + (h.re + other));
  };
  auto share = [&](float v, int from_slot) {
    return __shfl_sync(0xffffffffu, v, group | (from_slot << 2));
  };

  float last = sample(dir ? n - 1 : 0);
  Cf h = {0.0f, 0.0f};
  emit(dir ? n - 1 : 0, h, last);
  for (int ib = 1; ib < n; ib += kLineBatch) {
    // This slot's edges of the batch: ib + slot, ib + slot + S, ...
    Cf own_w[per_slot], own_c[per_slot];
#pragma unroll
    for (int j = 0; j < per_slot; ++j) {
      const int i = min(ib + slot + j * S, n - 1);
      const int e = dir ? n - i : i;  // the edge of step i
      const float delta = a.dt[e * a.dk + l * a.dl];
      const edge::EdgeWeight<float> ew = fast_edge_weight(P, delta, fast_rcp(delta));
      own_w[j] = ew.w;
      own_c[j] = ew.c;
    }
    float fs[kLineBatch];
    Cf ws[kLineBatch], cs[kLineBatch];
#pragma unroll
    for (int u = 0; u < kLineBatch; ++u) {
      const int i = min(ib + u, n - 1);
      fs[u] = sample(dir ? n - i - 1 : i);
      const int from = u % S, j = u / S;
      if (S == 1) {
        ws[u] = own_w[j];
        cs[u] = own_c[j];
      } else {
        ws[u] = {share(own_w[j].re, from), share(own_w[j].im, from)};
        cs[u] = {share(own_c[j].re, from), share(own_c[j].im, from)};
      }
    }
#pragma unroll
    for (int u = 0; u < kLineBatch; ++u) {
      const int i = ib + u;
      if (i < n) {
        // Causal, edge i: h+[i] = w h+[i-1] + c (f[i] - f[i-1]). Anticausal, edge e = n - i:
        // h-[e-1] = w h-[e] - c (f[e] - f[e-1]). Both add c (fresh - last).
        const float fresh = fs[u];
        h = cfma(ws[u], h, cs[u] * (fresh - last));
        emit(dir ? n - 1 - i : i, h, fresh);
        last = fresh;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Affine maps of the scan (above) and their composition.

// The map g -> w g + u of a run of samples, for one pole: w shared by the channels.
template <int C>
struct Chain {
  Cf w;
  Cf u[C];
};

// `later` after `earlier`.
template <int C>
__device__ __forceinline__ Chain<C> compose(const Chain<C>& later, const Chain<C>& earlier) {
  Chain<C> r;
  r.w = later.w * earlier.w;
  for (int c = 0; c < C; ++c) r.u[c] = cfma(later.w, earlier.u[c], later.u[c]);
  return r;
}

template <int C>
__device__ __forceinline__ Chain<C> identity_chain() {
  Chain<C> r;
  r.w = {1.0f, 0.0f};
  for (int c = 0; c < C; ++c) r.u[c] = {0.0f, 0.0f};
  return r;
}

__device__ __forceinline__ Cf shfl_up(Cf x, int d) {
  return {__shfl_up_sync(0xffffffffu, x.re, d), __shfl_up_sync(0xffffffffu, x.im, d)};
}
template <int C>
__device__ __forceinline__ Chain<C> shfl_up(const Chain<C>& x, int d) {
  Chain<C> r;
  r.w = shfl_up(x.w, d);
  for (int c = 0; c < C; ++c) r.u[c] = shfl_up(x.u[c], d);
  return r;
}

// ---------------------------------------------------------------------------------------------
// The exact variant with one CTA per line, each pass reading rows and writing its output
// transposed: the four passes of two iterations all read rows (the second and fourth read the
// transposed intermediates, whose rows are the image's columns), and the last one leaves the image
// upright. Frames whose lines all take CTAs of kRowThreads keep the image upright instead: the row
// passes write rows, and the column passes read and write columns (RowArgs). A thread owns
// kRowSamples consecutive samples and keeps them, their edge weights and their outputs in
// registers. It runs eq. (4) in its difference form (edge_aware_math.h), where both recursions
// start from zero at the line's ends:
//   1. per pole (one after the other, which halves the registers of the weights), both
//      recursions over its samples from zero, their real parts added to its outputs, and their
//      composites (W, U) stored for the scan;
//   2. the four chains of composites (pole, direction) scanned across the line in shared memory
//      at once, in groups of consecutive threads (row_groups()): a walker thread per group
//      composes its group's maps one after another, its warp scans the group maps with shuffles,
//      and the same thread walks its group again from the state entering it, leaving each
//      member's entering state (its carry);
//   3. each thread adds its carries' responses Re(W_k h), W_k the product of its w up to sample
//      k, and the samples f.
// Each edge is weighed once per pole, and the scan across the line is serial within a group and a
// shuffle scan across the groups. 128 registers a thread leave two CTAs per SM: the kernel waits
// on the loads at the start of a line, the barriers around the scan and the stores at its end
// more than on its arithmetic. Holding fewer registers for more CTAs spilled, and staging the line
// in shared memory (by one CTA, two, or persistent CTAs copying the next line while filtering
// one) was slower (README.md; docs/edge-aware-kappa.md has the profiles).
constexpr int kRowSamples = 8;
constexpr int kRowThreads = 256;     // lines of up to 2048 samples: two CTAs per SM
constexpr int kRowMaxThreads = 512;  // up to 4096: one
constexpr int kRowMaxLine = kRowSamples * kRowMaxThreads;
// Longer lines: a cluster of up to 8 CTAs per line (sm_90), each CTA a chunk of the line of up to
// kRowMaxLine samples; the chunks' maps cross the cluster through distributed shared memory.
constexpr int kRowMaxChunks = 8;
constexpr int kRowClusterMaxLine = kRowMaxLine * kRowMaxChunks;
// Groups of the scan per direction: 32 (a walker warp) up to 256 threads, 64 (two walker warps)
// beyond, so that a group has at most 8 positions: longer walks were slower on long lines, and 64
// groups slower on short ones (README.md).
__host__ __device__ constexpr int row_groups(int threads) {
  return threads > 256 ? 64 : 32;
}

// How a pass of exact_rows_kernel addresses its lines, a parameter of the kernel (read at run
// time, the two choices cost the transposing passes about 1%). Transposing: line l is row l of
// src, its sample k written at (x = l, y = k) of dst. An upright frame's passes (EdgeAwarePlan's
// `upright`): Rows, line l is row l of src and of dst; Columns, line l is column l of src and of
// dst.
enum class RowPass { Transposing, Rows, Columns };

struct RowArgs {
  Frame src, dst;   // addressed as the kernel's RowPass says
  const float* dt;  // dt[l * n + k]: the spacing between samples k-1 and k of line l
  int n, lines;
  unsigned gs_inv;  // ceil(2^32 / gs) of RowLayout: p / gs = umulhi(p, gs_inv) for p < 2^16
  PolesF poles;
};

// Shared memory of exact_rows_kernel, laid out alike on the host (for its size) and the device:
// per pole and direction the chains of the scan positions in pairs of fields, position p at
// p + p / gs (gs positions to a group), so that the threads storing their chains and the 32
// threads walking the groups both access distinct banks; then the first pole's edge weights.
// Up to 144 KB (RGBA, 512 threads), 54 KB for RGB lines of up to 2048 samples: above the default
// limit of a CTA (the plan raises it), two CTAs still fit an SM.
template <int C>
struct RowLayout {
  // The fields of a scan position (W, then U per channel) in pairs, a float4 each: (W, U0),
  // (U1, U2), (U3, unused), so that a thread stores its chain and a walker reads a position in
  // NP accesses of 16 bytes: a field per 8-byte access queued twice the stores in shared memory.
  static constexpr int NP = (C + 2) / 2;
  int threads, groups, gs, positions;
  std::size_t per_pole, bytes;  // per_pole in float4s
  __host__ __device__ RowLayout(int threads_, bool clustered)
      : RowLayout(threads_, row_groups(threads_), clustered) {}
  // With the groups a constant of the kernel, gs is a shift.
  __host__ __device__ RowLayout(int threads_, int groups_, bool clustered)
      : threads(threads_), groups(groups_), gs(threads_ / groups_), positions(threads_ + groups_) {
    // Per pole and direction NP arrays of the positions, then per direction the first walker
    // warp's total and, in clusters, the chunk's total (NP float4s each).
    per_pole = std::size_t(2) * NP * (positions + (clustered ? 2 : 1));
    // Both poles' chains, then the first pole's edge weights (kRowSamples + 1 per thread).
    bytes = 2 * per_pole * sizeof(float4) + std::size_t(kRowSamples + 1) * threads_ * sizeof(Cf);
  }
  // p / gs in a multiplication (RowArgs::gs_inv).
  static unsigned gs_inverse(int gs) {
    return unsigned((0x100000000ull + unsigned(gs) - 1) / unsigned(gs));
  }
  // Pair p of position `at` of direction dir, of the direction's first walker warp's total, and
  // of the chunk's total.
  __host__ __device__ std::size_t pair(int dir, int p, int at) const {
    return std::size_t(dir * NP + p) * positions + at;
  }
  __host__ __device__ std::size_t total(int dir, int p) const {
    return std::size_t(2) * NP * positions + dir * NP + p;
  }
  __host__ __device__ std::size_t chunk_total(int dir, int p) const {
    return std::size_t(2) * NP * (positions + 1) + dir * NP + p;
  }
};

// A chain's fields as RowLayout's pairs: pair p at at_pairs[p * stride].
template <int C>
__device__ __forceinline__ void put_pairs(float4* at_pairs, std::size_t stride, Cf w, const Cf* u) {
  Cf f[2 * RowLayout<C>::NP];
  f[0] = w;
  for (int c = 0; c < C; ++c) f[1 + c] = u[c];
  if (C + 1 < 2 * RowLayout<C>::NP) f[C + 1] = {0.0f, 0.0f};
  for (int p = 0; p < RowLayout<C>::NP; ++p)
    at_pairs[p * stride] = make_float4(f[2 * p].re, f[2 * p].im, f[2 * p + 1].re, f[2 * p + 1].im);
}
template <int C>
__device__ __forceinline__ Chain<C> get_pairs(const float4* at_pairs, std::size_t stride) {
  Cf f[2 * RowLayout<C>::NP];
  for (int p = 0; p < RowLayout<C>::NP; ++p) {
    const float4 v = at_pairs[p * stride];
    f[2 * p] = {v.x, v.y};
    f[2 * p + 1] = {v.z, v.w};
  }
  Chain<C> x;
  x.w = f[0];
  for (int c = 0; c < C; ++c) x.u[c] = f[1 + c];
  return x;
}

// With Clustered, a line is a cluster of CTAs (consecutive in x), CTA r of it the
// samples r T S .. (r + 1) T S - 1. Each CTA scans its chunk as a line of its own; between the
// walkers' two walks the chunks' maps (the second walker warp's totals) cross the cluster, and
// each CTA composes those before it (causal) or after it (anticausal) into the state entering its
// chunk, from which its walkers start. Otherwise the kernel is the same.
template <int C, int MaxThreads, int MinBlocks, bool Clustered = false,
          RowPass Pass = RowPass::Transposing>
__global__ void __launch_bounds__(MaxThreads, MinBlocks) exact_rows_kernel(RowArgs a) {
  constexpr int S = kRowSamples;
  constexpr int Groups = row_groups(MaxThreads);  // the launches keep 256 threads and fewer apart
  const int t = threadIdx.x, T = blockDim.x, n = a.n;
  const Cluster cluster = this_cluster();
  const int chunks = Clustered ? int(cluster.num_blocks()) : 1;
  const int l = int(blockIdx.x) / chunks, chunk = Clustered ? int(cluster.block_rank()) : 0;
  const RowLayout<C> L(T, Groups, Clustered);
  float4* chains = dynamic_smem<float4>();

  const int k0 = (chunk * T + t) * S;
  const int cnt = max(0, min(S, n - k0));  // the thread's samples k0 .. k0 + cnt - 1
  // Where this thread's chains are stored: scan positions t (causal) and T-1-t (anticausal),
  // computed where they are used. Held from here to the end they take two registers that the
  // compiler finds by spilling a loaded sample, whose store to local memory then holds up the
  // loads of the spacings behind it.
  auto position = [&](int p) { return p + int(__umulhi(unsigned(p), a.gs_inv)); };
  auto at_c = [&] { return position(t); };
  auto at_a = [&] { return position(T - 1 - t); };

  // The spacings of edges k0 .. k0+S and samples k0-1 .. k0+S (fs[i] is sample k0-1+i), clamped
  // to the line, straight from global memory: a warp's threads read 32 adjacent runs. The
  // spacings first: the first pole's edge weights wait on them alone.
  float ds[S + 1];
  const float* dt = a.dt + (long long)l * n;
#pragma unroll
  for (int i = 0; i <= S; ++i) ds[i] = dt[min(k0 + i, n - 1)];
  Pix<C> fs[S + 2];
  const char* src_row = a.src.ptr + (long long)l * a.src.pitch;
  with_kind(a.src.kind, [&](auto kind) {
    // Down a column a pixel from each row: the rest of its sector is lines l +- 1's.
    if constexpr (Pass == RowPass::Columns) {
#pragma unroll
      for (int i = 0; i < S + 2; ++i)
        fs[i] = load_pix_as<C, decltype(kind)::value>(
            a.src.ptr + (long long)min(max(k0 - 1 + i, 0), n - 1) * a.src.pitch, l);
    } else {
#pragma unroll
      for (int i = 0; i < S + 2; ++i)
        fs[i] = load_pix_as<C, decltype(kind)::value>(src_row, min(max(k0 - 1 + i, 0), n - 1));
    }
  });

  // The difference form of eq. (4) (edge_aware_math.h): the recursions run on f[k] - f[k-1]
  // across edges k0 .. k0+S (df(i) for edge k0+i; zero across the line's ends, where the
  // constant extension continues it) and f is added to the output last. Both recursions start
  // from zero at the line's ends, the steady state of the constant extension, so no thread treats
  // its first or last sample apart: past the line's end the differences are zero and the
  // recursions stay at zero. The differences are taken where the walks use them, not once ahead
  // into registers of their own: the samples are held anyway (f is added last), and 27 more
  // registers would spill.
  auto df = [&](int i, int c) { return fs[i + 1].v[c] - fs[i].v[c]; };
  float y[S][C];
#pragma unroll
  for (int i = 0; i < S; ++i)
    for (int c = 0; c < C; ++c) y[i][c] = 0.0f;

  // Both poles' recursions, then one scan for both (4 walker groups: pole and direction), then
  // both poles' carries: the barriers around the scan are crossed once per line, not per pole.
  // The first pole's weights wait in shared memory for its carries.
  Cf* keep = reinterpret_cast<Cf*>(chains + 2 * L.per_pole);  // keep[i * T + t]: pole 0's w[i]
  Cf w[S + 1];                                                // after the loop: pole 1's
#pragma unroll 1
  for (int pole = 0; pole < 2; ++pole) {
    const edge::Pole<float>& P = a.poles.p[pole];
    Cf cw[S + 1];
#pragma unroll
    for (int i = 0; i <= S; ++i) {
      const float delta = ds[i];
      const edge::EdgeWeight<float> ew = fast_edge_weight(P, delta, fast_rcp(delta));
      w[i] = ew.w;
      cw[i] = ew.c;
    }
    float4* ch = chains + pole * L.per_pole;
    auto put = [&](int dir, int at, Cf w_total, const Cf* u) {
      put_pairs<C>(ch + L.pair(dir, 0, at), L.positions, w_total, u);
    };
    {
      Cf u[C];
      for (int c = 0; c < C; ++c) u[c] = {0.0f, 0.0f};
      Cf W = {1.0f, 0.0f};
#pragma unroll
      for (int i = 0; i < S; ++i) {
        // causal, edge k0+i: h+[k] = w h+[k-1] + c (f[k] - f[k-1])
        for (int c = 0; c < C; ++c) u[c] = cfma(w[i], u[c], cw[i] * df(i, c));
        W = w[i] * W;
        for (int c = 0; c < C; ++c) y[i][c] += u[c].re;
      }
      put(0, at_c(), W, u);
    }
    {
      Cf v[C];
      for (int c = 0; c < C; ++c) v[c] = {0.0f, 0.0f};
      Cf W = {1.0f, 0.0f};
#pragma unroll
      for (int i = S - 1; i >= 0; --i) {
        // anticausal, edge k0+i+1: h-[k-1] = w h-[k] - c (f[k] - f[k-1])
        for (int c = 0; c < C; ++c) v[c] = cfma(w[i + 1], v[c], cw[i + 1] * -df(i + 1, c));
        W = w[i + 1] * W;
        for (int c = 0; c < C; ++c) y[i][c] += v[c].re;
      }
      put(1, at_a(), W, v);
    }
    if (pole == 0)
#pragma unroll
      for (int i = 0; i <= S; ++i) keep[i * T + t] = w[i];
  }

  // 2. The scans.
  __syncthreads();
  {
    const bool walker = t < 4 * Groups;
    const int id = t / Groups, dir = id & 1, g = t % Groups, at0 = g * (L.gs + 1);
    const int lane = g % 32, second = g / 32;
    float4* ch = chains + (id >> 1) * L.per_pole;
    auto get = [&](int at) { return get_pairs<C>(ch + L.pair(dir, 0, at), L.positions); };
    Chain<C> agg = identity_chain<C>(), first = identity_chain<C>();
    float4* total = ch + L.total(dir, 0);
    if (walker) {
#pragma unroll 4
      for (int j = 0; j < L.gs; ++j) agg = compose(get(at0 + j), agg);
      for (int s = 1; s < 32; s <<= 1) {
        const Chain<C> lower = shfl_up(agg, s);
        if (lane >= s) agg = compose(agg, lower);
      }
      if (Groups == 64 && second == 0 && lane == 31) put_pairs<C>(total, 1, agg.w, agg.u);
    }
    // The second walk leaves at each position the state entering it, starting from `first`.
    auto second_walk = [&] {
      const Chain<C> before = shfl_up(agg, 1);
      Cf state[C];
      for (int c = 0; c < C; ++c) state[c] = lane > 0 ? before.u[c] : first.u[c];
#pragma unroll 4
      for (int j = 0; j < L.gs; ++j) {
        const Chain<C> m = get(at0 + j);
        put_pairs<C>(ch + L.pair(dir, 0, at0 + j), L.positions, m.w, state);
        for (int c = 0; c < C; ++c) state[c] = cfma(m.w, state[c], m.u[c]);
      }
    };
    if (Groups == 64) __syncthreads();
    if (walker) {
      if (Groups == 64 && second) {
        first = get_pairs<C>(total, 1);
        agg = compose(agg, first);
      }
      if (!Clustered) second_walk();
    }
    if (Clustered) {
      float4* chunk_total = ch + L.chunk_total(dir, 0);
      if (walker && lane == 31 && (Groups == 32 || second))
        put_pairs<C>(chunk_total, 1, agg.w, agg.u);  // the chunk's map
      cluster.sync();
      if (walker) {
        // The state entering the chunk: the maps of the chunks before it in the walk's direction,
        // composed from the line's end, where the state is zero.
        Chain<C> carry = identity_chain<C>();
        const int before = dir ? chunks - 1 - chunk : chunk;
        for (int i = 0; i < before; ++i) {
          const unsigned r = unsigned(dir ? chunks - 1 - i : i);
          carry = compose(get_pairs<C>(cluster.map_shared_rank(chunk_total, r), 1), carry);
        }
        first = compose(first, carry);
        agg = compose(agg, carry);
      }
      cluster.barrier_arrive();  // the other CTAs' totals are read
      if (walker) second_walk();
    }
  }
  __syncthreads();

  // 3. The carries' responses: pole 1 with its weights in registers, then pole 0.
#pragma unroll 1
  for (int pole = 1; pole >= 0; --pole) {
    const float4* ch = chains + pole * L.per_pole;
    if (pole == 0)
#pragma unroll
      for (int i = 0; i <= S; ++i) w[i] = keep[i * T + t];
    Cf carry_c[C], carry_a[C];
    {
      const Chain<C> xc = get_pairs<C>(ch + L.pair(0, 0, at_c()), L.positions);
      const Chain<C> xa = get_pairs<C>(ch + L.pair(1, 0, at_a()), L.positions);
      for (int c = 0; c < C; ++c) {
        carry_c[c] = xc.u[c];
        carry_a[c] = xa.u[c];
      }
    }
    {
      Cf W = {1.0f, 0.0f};
#pragma unroll
      for (int i = 0; i < S; ++i) {
        W = w[i] * W;
        for (int c = 0; c < C; ++c)
          y[i][c] = fmaf(W.re, carry_c[c].re, fmaf(-W.im, carry_c[c].im, y[i][c]));
      }
    }
    {
      Cf W = {1.0f, 0.0f};
#pragma unroll
      for (int i = S - 1; i >= 0; --i) {
        W = w[i + 1] * W;
        for (int c = 0; c < C; ++c)
          y[i][c] = fmaf(W.re, carry_a[c].re, fmaf(-W.im, carry_a[c].im, y[i][c]));
      }
    }
  }

#pragma unroll
  for (int i = 0; i < S; ++i)
    for (int c = 0; c < C; ++c) y[i][c] += fs[i + 1].v[c];

      // Sample k0+i of line l goes to (x = l, y = k0+i) of dst, each store a warp access of 32
      // rows. With the layout dispatched at every store (store_pix) the stores leave apart, not at
      // once behind the last arithmetic, which one dispatch for all eight made slower. These
      // transposing stores are about a third of the frame's time; gathering 8 lines' samples into
      // 128-byte runs of a row through clusters gained at 2048x2048 only (README.md).
#pragma unroll
  for (int i = 0; i < S; ++i) {
    if (i < cnt) {
      Pix<C> o;
      for (int c = 0; c < C; ++c) o.v[c] = y[i][c];
      if constexpr (Pass == RowPass::Rows)
        store_pix<C>(a.dst, k0 + i, l, o);
      else
        store_pix<C>(a.dst, l, k0 + i, o);
    }
  }
  if (Clustered) cluster.barrier_wait();  // no CTA leaves while another may read its totals
}

}  // namespace rf::cuda::edge_kernels
