// The overlapped block-parallel recursive filter (Nehab et al. 2011, algorithm 4 structure per
// dimension: eqs. 15-17, 24, 25-27, 34-36) with exact boundary seeds (Nehab & Maximo 2016), and
// the one-thread-per-line RT baseline. Device helpers, then kernels, then host launchers, then the
// plan.
#include "filters/recursive/direct_form_cuda.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/cuda_launch.cuh"
#include "filters/core/device_buffer.cuh"
#include "filters/core/errors.h"
#include "filters/recursive/direct_form.h"
#include "filters/recursive/direct_form_math.h"
#include "filters/recursive/modal.h"

namespace rf::cuda {
namespace {

// Block carries are computed in double and stored as P: float when the filter is well
// conditioned, double when a float prologue would perturb the block's free response by far more
// than one ulp (poles close to the unit circle, large sigma: see PassRecursion::double_carries).

// Warps per CTA of the block kernels. One channel: each warp owns 32 lines x kBlock samples of
// its own block. Four channels: each lane owns one channel of one line (scalar lines, see
// block_output_kernel4), the CTA's warps 32 lines of one block.
constexpr int kWarps = 4;
// Readers a block kernel is compiled for: a kernel's registers are those of its heaviest path,
// and a float4 surface texel read whole for each of a block's 32 samples takes 128 of them, so
// four-channel sources get one instantiation per group.
enum ReaderGroup : int {
  kBuffers = 0,  // pitched buffers (one float or byte per lane), and one-channel surfaces
  kSurfU8 = 1,   // RGBA8 surfaces
  kSurfF32 = 2,  // RGBA32F surfaces
};

template <int C>
int reader_group(IoKind kind) {
  if (C == 1) return kBuffers;
  return kind == IoKind::SurfU8x4 ? kSurfU8 : kind == IoKind::SurfF32x4 ? kSurfF32 : kBuffers;
}

// The coefficients as the block recursions use them: S is the window type (see causal_block).
template <int R, class S = double>
__device__ __forceinline__ Coeffs<R, S> coeffs_of(double b0, const double* a) {
  Coeffs<R, S> f;
  f.b0 = S(b0);
  double s = 1.0;
#pragma unroll
  for (int k = 0; k < R; ++k) {
    f.a[k] = S(a[k]);
    s += a[k];
  }
  f.s = S(s);
  return f;
}

template <int R>
__device__ __forceinline__ void matrix_of(const double* src, double (&m)[R][R]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int j = 0; j < R; ++j) m[i][j] = src[i * kMaxOrder + j];
}

template <int C, class T = float>
__device__ __forceinline__ Vec<C, T>* carry_ptr(void* base, int s, int k, int R, int lines,
                                                int line) {
  return static_cast<Vec<C, T>*>(base) + (std::size_t(s) * R + k) * lines + line;
}

// Carries are stored as P (float or double, see PassRecursion::double_carries) and used in double.
template <int C, class P>
__device__ __forceinline__ Vec<C, double> load_carry(void* base, int s, int k, int R, int lines,
                                                     int line) {
  return convert<double>(*carry_ptr<C, P>(base, s, k, R, lines, line));
}
template <int C, class P>
__device__ __forceinline__ void store_carry(void* base, int s, int k, int R, int lines, int line,
                                            const Vec<C, double>& v) {
  *carry_ptr<C, P>(base, s, k, R, lines, line) = convert<P>(v);
}

// Channel c of a sample.
template <int C>
__device__ __forceinline__ float channel_of(const Vec<C>& v, int c) {
  if constexpr (C == 1)
    return v.v[0];
  else
    return c == 0 ? v.v[0] : c == 1 ? v.v[1] : c == 2 ? v.v[2] : v.v[3];
}

// Calls f(rd) with rd(x, y) = channel c of sample (x, y). Buffers of four channels read the one
// float or byte (the four lanes of a pixel then share its 16 or 4 bytes, so a warp's loads stay
// coalesced); surfaces read the whole texel.
template <int C, int G, class F>
__device__ __forceinline__ void with_channel_reader(const Io& io, int c, F&& f) {
  if constexpr (C == 1) {
    with_reader<1, Kinds::No16>(io,
                                [&](auto rd) { f([=](int x, int y) { return rd(x, y).v[0]; }); });
  } else if constexpr (G == kSurfU8) {
    const Reader<4, IoKind::SurfU8x4> rd{io.surf};
    f([=](int x, int y) { return channel_of<4>(rd(x, y), c); });
  } else if constexpr (G == kSurfF32) {
    const Reader<4, IoKind::SurfF32x4> rd{io.surf};
    f([=](int x, int y) { return channel_of<4>(rd(x, y), c); });
  } else if (io.kind == IoKind::U8x4) {
    f([=](int x, int y) {
      return from_unorm8(
          reinterpret_cast<const unsigned char*>(io.ptr + std::size_t(y) * io.pitch)[x * 4 + c]);
    });
  } else {
    f([=](int x, int y) {
      return reinterpret_cast<const float*>(io.ptr + std::size_t(y) * io.pitch)[x * 4 + c];
    });
  }
}

// Loads channel c of samples [base, base + len) of column `line` of src; zeros past len.
template <int C, int G = kBuffers>
__device__ __forceinline__ void load_block(const Io& src, int line, int c, int base, int len,
                                           Vec<1> (&v)[kBlock]) {
  with_channel_reader<C, G>(src, c, [&](auto rd) {
#pragma unroll
    for (int i = 0; i < kBlock; ++i) v[i] = Vec<1>{i < len ? rd(line, base + i) : 0.f};
  });
}

// ---------------------------------------------------------------------------------------------
// Kernels

// The incomplete prologue P_m(y-bar) (eq. 17) and the twice-incomplete epilogue E_m(z-hat)
// (eqs. 35-36) of one block held in v (overwritten), stored at block s of `line`.
template <int R, int C, class P, class S>
__device__ __forceinline__ void store_block_carries(const Coeffs<R, S>& f, Vec<C> (&v)[kBlock],
                                                    int len, bool causal_only, void* pbar,
                                                    void* ebar, int s, int lines, int line) {
  Vec<C, S> w[R];
#pragma unroll
  for (int k = 0; k < R; ++k) w[k] = zero_vec<C, S>();
  if (len == kBlock)
    causal_block<R, C, true>(f, v, w, len);
  else
    causal_block<R, C, false>(f, v, w, len);
#pragma unroll
  for (int k = 0; k < R; ++k) store_carry<C, P>(pbar, s, k, R, lines, line, convert<double>(w[k]));
  if (causal_only) return;
#pragma unroll
  for (int k = 0; k < R; ++k) w[k] = zero_vec<C, S>();
  if (len == kBlock)
    anticausal_block<R, C, true>(f, v, w, len);
  else
    anticausal_block<R, C, false>(f, v, w, len);
#pragma unroll
  for (int k = 0; k < R; ++k) store_carry<C, P>(ebar, s, k, R, lines, line, convert<double>(w[k]));
}

// Pass step 1: block carries of every block in parallel (the column pass only: the row pass gets
// its carries from the column pass's output step), on scalar lines (one channel of one line per
// lane, the layout of carries_kernel).
template <int R, int C, class P, class S, int G>
__global__ void __launch_bounds__(32 * kWarps) block_carries_kernel(const PassArgs a) {
  const int lines = a.shape.lines * C;
  const int sl = blockIdx.x * 32 + threadIdx.x;
  const int s = blockIdx.y * kWarps + threadIdx.y;
  if (s >= a.shape.nb || sl >= lines) return;
  const int line = sl / C, c = sl - line * C;
  const int base = s * kBlock;
  const int len = min(kBlock, a.shape.n - base);
  Vec<1> v[kBlock];
  load_block<C, G>(a.src, line, c, base, len, v);
  store_block_carries<R, 1, P>(coeffs_of<R, S>(a.rec.b0, a.rec.a), v, len, a.rec.causal_only,
                               a.carries.pbar, a.carries.ebar, s, lines, sl);
}

// Carry completion runs on scalar lines: the C channels of an image line are C lines of their
// own, whose carries sit at scalar index line * C + c of the Vec<C, P> carry arrays, so four
// channels get four times the threads rather than four times the registers per thread. kGroups
// warps share 32 scalar lines: each warp owns a contiguous run of blocks, so the serial chain of
// eq. (24) per thread is kGroups times shorter and kGroups times more warps hide the memory
// latency; the runs are stitched through shared memory with T^m (and U^m).
constexpr int kGroups = kCarryGroups;
using Scalar = Vec<1, double>;
// CTAs per SM the carry kernel is compiled for. It is bound by the latency of its instruction
// chains, so warps per SM count most: two CTAs (64 registers per lane) up to order 3, where the
// spills stay small (at most ~160 bytes per lane, served by L1); one CTA beyond.
template <int R>
constexpr int kCarryCtas = R <= 3 ? 2 : 1;

// out = add + m * p, for matrices stored with the kMaxOrder stride of PassArgs.
template <int R, int C>
__device__ __forceinline__ void affine(const double* m, const Vec<C, double> (&p)[R],
                                       Vec<C, double> (&out)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int j = 0; j < R; ++j) fma_into(out[i], m[i * kMaxOrder + j], p[j]);
}

// Sum over the kGroups warps of v (per lane), through shared memory; every warp gets the sum.
template <int R>
__device__ __forceinline__ void sum_over_groups(Scalar (&share)[kGroups][R][32], Scalar (&v)[R]) {
#pragma unroll
  for (int k = 0; k < R; ++k) share[threadIdx.y][k][threadIdx.x] = v[k];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < R; ++k) {
    v[k] = zero_vec<1, double>();
    for (int g = 0; g < kGroups; ++g) fma_into(v[k], 1.0, share[g][k][threadIdx.x]);
  }
  __syncthreads();
}

// State entering this warp's run: `first` folded through the runs of the warps before it, each
// run's zero-start end state `q` taken from shared memory (x_{j+1} = A^m x_j + q_j).
template <int R>
__device__ __forceinline__ void stitch_runs(Scalar (&share)[kGroups][R][32], const double* power,
                                            const Scalar (&q)[R], Scalar (&state)[R]) {
#pragma unroll
  for (int k = 0; k < R; ++k) share[threadIdx.y][k][threadIdx.x] = q[k];
  __syncthreads();
  for (int g = 0; g < int(threadIdx.y); ++g) {
    Scalar next[R];
#pragma unroll
    for (int k = 0; k < R; ++k) next[k] = share[g][k][threadIdx.x];
    affine<R, 1>(power, state, next);
#pragma unroll
    for (int k = 0; k < R; ++k) state[k] = next[k];
  }
  __syncthreads();
}

// The r carries of one scalar line at block s: base[(s * r + k) * lines] for k < r.
template <int R, class P>
struct CarryLine {
  P* base;
  int lines;
  __device__ P& at(int s, int k) const { return base[(std::size_t(s) * R + k) * lines]; }
  __device__ Scalar load(int s, int k) const { return Scalar{double(at(s, k))}; }
  __device__ void store(int s, int k, const Scalar& v) const { at(s, k) = P(v.v[0]); }
};

// Visits `count` blocks of a run, block_of(i) for i = 0, 1, ..., calling step(s, x, y) with the
// carries x of `first` (and y of `second` when Two) at block s. The chains that call it are
// latency-bound, so the carries of kChunk blocks are loaded before any is used: their loads
// overlap instead of each waiting for the previous step.
template <int R, class P, bool Two, class BlockOf, class Step>
__device__ __forceinline__ void visit_run(int count, BlockOf block_of, const CarryLine<R, P>& first,
                                          const CarryLine<R, P>& second, Step step) {
  constexpr int kChunk = sizeof(P) == 4 ? 4 : 2;
  for (int i0 = 0; i0 < count; i0 += kChunk) {
    P x[kChunk][R], y[kChunk][Two ? R : 1];
#pragma unroll
    for (int u = 0; u < kChunk; ++u)
      if (i0 + u < count) {
        const int s = block_of(i0 + u);
#pragma unroll
        for (int k = 0; k < R; ++k) {
          x[u][k] = first.at(s, k);
          if constexpr (Two) y[u][k] = second.at(s, k);
        }
      }
#pragma unroll
    for (int u = 0; u < kChunk; ++u)
      if (i0 + u < count) {
        Scalar xs[R], ys[R];
#pragma unroll
        for (int k = 0; k < R; ++k) {
          xs[k] = Scalar{double(x[u][k])};
          ys[k] = Scalar{Two ? double(y[u][Two ? k : 0]) : 0.0};
        }
        step(block_of(i0 + u), xs, ys);
      }
  }
}

// Channel c of sample (x, y).
template <int C>
__device__ __forceinline__ double read_channel(const Io& io, int x, int y, int c) {
  return channel_of<C>(read<C, Kinds::No16>(io, x, y), c);
}

// Pass step 2, in double: the exact boundary seeds (Nehab & Maximo 2016) as dot products with
// the extension's samples, then the prologues completed front to back, eq. (24), and the
// epilogues back to front, eq. (34). The last (possibly partial) block is handled apart.
template <int R, int C, class P>
__global__ void __launch_bounds__(32 * kGroups, kCarryCtas<R>) carries_kernel(const PassArgs a) {
  __shared__ Scalar share[kGroups][R][32];
  const int lane = threadIdx.x, group = threadIdx.y;
  const int lines = a.shape.lines * C;
  const int sl = min(int(blockIdx.x) * 32 + lane, lines - 1);  // duplicates write alike
  const int line = sl / C, channel = sl - line * C;
  const int last = a.shape.nb - 1;  // full blocks: [0, last)
  const int m = (last + kGroups - 1) / kGroups;
  const int s0 = min(group * m, last), s1 = min(s0 + m, last);
  const CarryLine<R, P> pbar{static_cast<P*>(a.carries.pbar) + sl, lines};
  const CarryLine<R, P> ebar{static_cast<P*>(a.carries.ebar) + sl, lines};
  const CarryLine<R, P> pst{static_cast<P*>(a.carries.pst) + sl, lines};
  const CarryLine<R, P> est{static_cast<P*>(a.carries.est) + sl, lines};
  // The last block's carries, loaded first: nothing before their use depends on them.
  Scalar p_end[R], e_full[R];
#pragma unroll
  for (int k = 0; k < R; ++k) {
    p_end[k] = pbar.load(last, k);
    e_full[k] = a.rec.causal_only ? zero_vec<1, double>() : ebar.load(last, k);
  }
  // Both boundary seeds at once, their terms split over the warps and a batch of samples loaded
  // before any is used (this is on the kernel's critical path, so the loads must overlap): the
  // causal seed y_{-1-k} = sum_{i>=k} g_{i-k} x(-1-i), terms i < pad + r - 1, and the part of
  // the anticausal seed that the samples beyond the line give, z_{n+m} = sum_t A(|t - m|) x(n + t),
  // terms t < pad + r. a.seeds.seed_index maps each term to its sample (-1: zero), the same every
  // line.
  Scalar p[R], e[R];
#pragma unroll
  for (int k = 0; k < R; ++k) p[k] = e[k] = zero_vec<1, double>();
  if (a.seeds.by_constant) {
#pragma unroll
    for (int k = 0; k < R; ++k) {
      p[k] = Scalar{a.rec.outside * a.seeds.causal_sum[k]};
      e[k] = Scalar{a.rec.outside * a.seeds.tail_sum[k]};
    }
  } else if (a.shape.pad > 0) {
    const int causal_terms = a.shape.pad + R - 1;
    const int count = causal_terms + (a.rec.causal_only ? 0 : a.shape.pad + R);
    constexpr int kBatch = 8;
    for (int base = group; base < count; base += kGroups * kBatch) {
      double x[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        const int i = base + u * kGroups;
        const int j = i < count ? a.seeds.seed_index[i] : -1;
        x[u] = j < 0 ? a.rec.outside : read_channel<C>(a.src, line, j, channel);
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        const int i = base + u * kGroups;
        if (i >= count) continue;
        if (i < causal_terms) {
#pragma unroll
          for (int k = 0; k < R; ++k)
            if (i >= k) fma_into(p[k], a.seeds.g[i - k], Scalar{x[u]});
        } else {
          const int t = i - causal_terms;
#pragma unroll
          for (int k = 0; k < R; ++k)
            fma_into(e[k], a.seeds.acorr[t > k ? t - k : k - t], Scalar{x[u]});
        }
      }
    }
    sum_over_groups<R>(share, p);
    if (!a.rec.causal_only) sum_over_groups<R>(share, e);
  }

  // Prologues, eq. (24): each run from zero, stitched, then again from its true start.
  const auto forward = [&](int i) { return s0 + i; };
  Scalar q[R];
#pragma unroll
  for (int k = 0; k < R; ++k) q[k] = zero_vec<1, double>();
  visit_run<R, P, false>(s1 - s0, forward, pbar, pbar, [&](int, Scalar(&x)[R], Scalar(&)[R]) {
    affine<R, 1>(a.mats.T, q, x);
#pragma unroll
    for (int k = 0; k < R; ++k) q[k] = x[k];
  });
  stitch_runs<R>(share, a.mats.Tm, q, p);
  visit_run<R, P, false>(s1 - s0, forward, pbar, pbar, [&](int s, Scalar(&x)[R], Scalar(&)[R]) {
#pragma unroll
    for (int k = 0; k < R; ++k) pst.store(s, k, p[k]);
    affine<R, 1>(a.mats.T, p, x);
#pragma unroll
    for (int k = 0; k < R; ++k) p[k] = x[k];
  });
  // The warp whose run ends the full blocks (warp 0 when there are none) holds p_last.
  const bool owner = last == 0 ? group == 0 : (s0 < s1 && s1 == last);
  if (owner) {
#pragma unroll
    for (int k = 0; k < R; ++k) {
      pst.store(last, k, p[k]);
      share[0][k][lane] = p[k];
    }
  }
  __syncthreads();
  Scalar p_last[R];
#pragma unroll
  for (int k = 0; k < R; ++k) p_last[k] = share[0][k][lane];
  __syncthreads();
  if (a.rec.causal_only) return;

  // The causal state (y_{n-1}, ..., y_{n-r}) at the end of the line.
  affine<R, 1>(a.mats.Tl, p_last, p_end);

  // The anticausal seed: the samples beyond the line (above) plus N times the causal end state.
  if (a.rec.ext != Extension::Ignore) affine<R, 1>(a.mats.N, p_end, e);

    // The last block, then epilogues of the full blocks, eq. (34), runs taken from the end: block
    // s contributes E_m(z-hat) + M P_{m-1}(y) (eq. 34's terms that do not depend on z).
#pragma unroll
  for (int k = 0; k < R; ++k)
    if (group == 0) est.store(last, k, e[k]);
  affine<R, 1>(a.mats.Ml, p_last, e_full);
  affine<R, 1>(a.mats.Ul, e, e_full);

  const auto backward = [&](int i) { return last - 1 - (s0 + i); };  // run [s0, s1) from the end
#pragma unroll
  for (int k = 0; k < R; ++k) q[k] = zero_vec<1, double>();
  visit_run<R, P, true>(s1 - s0, backward, ebar, pst, [&](int, Scalar(&term)[R], Scalar(&ps)[R]) {
    affine<R, 1>(a.mats.M, ps, term);
    affine<R, 1>(a.mats.U, q, term);
#pragma unroll
    for (int k = 0; k < R; ++k) q[k] = term[k];
  });
  stitch_runs<R>(share, a.mats.Um, q, e_full);
  visit_run<R, P, true>(s1 - s0, backward, ebar, pst, [&](int s, Scalar(&term)[R], Scalar(&ps)[R]) {
#pragma unroll
    for (int k = 0; k < R; ++k) est.store(s, k, e_full[k]);
    affine<R, 1>(a.mats.M, ps, term);
    affine<R, 1>(a.mats.U, e_full, term);
#pragma unroll
    for (int k = 0; k < R; ++k) e_full[k] = term[k];
  });
}

// Pass step 3: filter every block from its completed prologue and epilogue (eqs. 15 and 25) and
// write it transposed through a shared-memory tile, so stores stay coalesced. In the column pass
// the tile also yields the row pass's block carries (step 1 of the row pass, fused). One channel.
template <int R, class P, class S>
__global__ void __launch_bounds__(32 * kWarps) block_output_kernel(const PassArgs a) {
  constexpr int C = 1;
  __shared__ Vec<C> tile[kWarps][32][kBlock + 1];
  const int lane = threadIdx.x;
  const int l0 = blockIdx.x * 32;
  const int line = l0 + lane;
  const int s = blockIdx.y * kWarps + threadIdx.y;
  if (s >= a.shape.nb) return;  // uniform per warp
  const int base = s * kBlock;
  const int len = min(kBlock, a.shape.n - base);
  const bool active = line < a.shape.lines;
  const Coeffs<R, S> f = coeffs_of<R, S>(a.rec.b0, a.rec.a);

  Vec<C> v[kBlock];
  Vec<C, S> w[R];
  if (active) {
    load_block<C>(a.src, line, 0, base, len, v);
#pragma unroll
    for (int k = 0; k < R; ++k)
      w[k] = convert<S>(load_carry<C, P>(a.carries.pst, s, k, R, a.shape.lines, line));
    if (len == kBlock)
      causal_block<R, C, true>(f, v, w, len);
    else
      causal_block<R, C, false>(f, v, w, len);
    if (!a.rec.causal_only) {
#pragma unroll
      for (int k = 0; k < R; ++k)
        w[k] = convert<S>(load_carry<C, P>(a.carries.est, s, k, R, a.shape.lines, line));
      if (len == kBlock)
        anticausal_block<R, C, true>(f, v, w, len);
      else
        anticausal_block<R, C, false>(f, v, w, len);
    }
  }
  auto& t = tile[threadIdx.y];
  if (active) {
#pragma unroll
    for (int i = 0; i < kBlock; ++i) t[lane][i] = v[i];
  }
  __syncwarp();
  // Lane i now writes sample base + i of the warp's 32 lines: row `l0 + j` of dst.
  const int lines_here = min(32, a.shape.lines - l0);
  if (lane >= len) return;
  for (int j = 0; j < lines_here; ++j)
    write<C, Kinds::No16>(a.dst, base + lane, l0 + j, t[j][lane]);
  if (!a.carries.next_pbar) return;
    // The same 32 x 32 tile, read along dst's rows, is block blockIdx.x of row base + lane of the
    // next pass: its block carries come from here instead of a second read of dst.
#pragma unroll
  for (int j = 0; j < kBlock; ++j) v[j] = j < lines_here ? t[j][lane] : zero_vec<C>();
  store_block_carries<R, C, P>(coeffs_of<R, S>(a.rec.next_b0, a.rec.next_a), v, lines_here,
                               a.rec.causal_only, a.carries.next_pbar, a.carries.next_ebar,
                               blockIdx.x, a.shape.n, base + lane);
}

// Pass step 3 for four channels: the lanes of a warp take 8 lines x 4 channels, one scalar line
// each, so a lane holds 32 floats as with one channel instead of 128 (which limited the SM to a
// dozen warps); the CTA's four warps cover the 32 lines of one block. The tile then goes out
// transposed as whole pixels and, in the column pass, yields the row pass's block carries.
template <int R, class P, class S, int G>
__global__ void __launch_bounds__(32 * kWarps) block_output_kernel4(const PassArgs a) {
  constexpr int C = 4;
  static_assert(kWarps * 32 == 32 * C, "one CTA covers 32 lines x 4 channels");
  constexpr int kStride = kBlock * C + C;  // floats per tile line; the pad spreads the banks
  __shared__ __align__(16) float tile[32 * kStride];
  const int lane = threadIdx.x, warp = threadIdx.y;
  const int l0 = blockIdx.x * 32;
  const int j = warp * (32 / C) + lane / C, c = lane % C;  // tile line and channel of this lane
  const int s = blockIdx.y;
  const int base = s * kBlock;
  const int len = min(kBlock, a.shape.n - base);
  const Coeffs<R, S> f = coeffs_of<R, S>(a.rec.b0, a.rec.a);
  const int lines = a.shape.lines * C, sl = (l0 + j) * C + c;

  if (l0 + j < a.shape.lines) {
    Vec<1> v[kBlock];
    Vec<1, S> w[R];
    load_block<C, G>(a.src, l0 + j, c, base, len, v);
#pragma unroll
    for (int k = 0; k < R; ++k)
      w[k] = convert<S>(load_carry<1, P>(a.carries.pst, s, k, R, lines, sl));
    if (len == kBlock)
      causal_block<R, 1, true>(f, v, w, len);
    else
      causal_block<R, 1, false>(f, v, w, len);
    if (!a.rec.causal_only) {
#pragma unroll
      for (int k = 0; k < R; ++k)
        w[k] = convert<S>(load_carry<1, P>(a.carries.est, s, k, R, lines, sl));
      if (len == kBlock)
        anticausal_block<R, 1, true>(f, v, w, len);
      else
        anticausal_block<R, 1, false>(f, v, w, len);
    }
#pragma unroll
    for (int i = 0; i < kBlock; ++i) tile[j * kStride + i * C + c] = v[i].v[0];
  }
  __syncthreads();
  // Lane i writes sample base + i of the tile's lines: row l0 + t of dst, whole pixels.
  const int lines_here = min(32, a.shape.lines - l0);
  if (lane < len)
    for (int t = warp; t < lines_here; t += kWarps) {
      const float4 p = *reinterpret_cast<const float4*>(&tile[t * kStride + lane * C]);
      write<C, Kinds::No16>(a.dst, base + lane, l0 + t, Vec<C>{p.x, p.y, p.z, p.w});
    }
  if (!a.carries.next_pbar) return;
  // The tile read along dst's rows is block blockIdx.x of row base + i of the next pass: thread
  // (i, channel) filters it for that pass's block carries instead of a second read of dst.
  const int t = warp * 32 + lane, i = t / C, ci = t % C;
  if (i >= len) return;
  Vec<1> u[kBlock];
#pragma unroll
  for (int k = 0; k < kBlock; ++k)
    u[k] = Vec<1>{k < lines_here ? tile[k * kStride + i * C + ci] : 0.f};
  store_block_carries<R, 1, P>(coeffs_of<R, S>(a.rec.next_b0, a.rec.next_a), u, lines_here,
                               a.rec.causal_only, a.carries.next_pbar, a.carries.next_ebar,
                               blockIdx.x, a.shape.n * C, (base + i) * C + ci);
}

// Sample `pos` of line `line` of a frame: along a row, or down a column.
struct LineAt {
  int line;
  bool rows;
  __device__ int2 operator()(int pos) const {
    return rows ? make_int2(pos, line) : make_int2(line, pos);
  }
  template <int C>
  __device__ Vec<C> load(const Io& io, int pos) const {
    const int2 p = (*this)(pos);
    return read<C, Kinds::No16>(io, p.x, p.y);
  }
  template <int C>
  __device__ void store(const Io& io, int pos, const Vec<C>& v) const {
    const int2 p = (*this)(pos);
    write<C, Kinds::No16>(io, p.x, p.y, v);
  }
};

// Samples of its line an RT thread has in flight: it loads the next kRtAhead before it filters
// the ones loaded last, so that its loads overlap instead of each waiting behind the step before
// it (a thread per line is bound by load latency: docs/bench/README.md, the volumes' z pass).
template <int C>
constexpr int kRtAhead = C == 1 ? 8 : 4;

// out(i, step(sample i of src's line)) for i = 0, 1, ..., n - 1, or n - 1, ..., 0 where
// `backward`; the samples are read kRtAhead<C> at a time, a batch ahead of the steps. A sample is
// read before the step that writes its position, so src may be the output.
template <int C, class Step, class Out>
__device__ __forceinline__ void rt_sweep(const Io& src, LineAt at, int n, bool backward, Step step,
                                         Out out) {
  constexpr int K = kRtAhead<C>;
  with_reader<C, Kinds::No16>(src, [&](auto rd) {
    const auto pos = [&](int k) { return backward ? n - 1 - k : k; };
    const auto load = [&](int first, Vec<C>(&x)[K]) {
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const int2 p = at(pos(first + j));
        if (first + j < n) x[j] = rd(p.x, p.y);
      }
    };
    Vec<C> cur[K], next[K];
    load(0, cur);
    for (int first = 0; first < n; first += K) {
      if (first + K < n) load(first + K, next);
#pragma unroll
      for (int j = 0; j < K; ++j)
        if (first + j < n) out(pos(first + j), step(cur[j]));
#pragma unroll
      for (int j = 0; j < K; ++j) cur[j] = next[j];
    }
  });
}

// Ruijters-Thevenaz: one thread per line, causal then anticausal, the same exact seeds.
template <int R, int C>
__global__ void __launch_bounds__(128) rt_kernel(const PassArgs a, const Io tmp, bool rows) {
  const int line = blockIdx.x * blockDim.x + threadIdx.x;
  if (line >= a.shape.lines) return;
  const int n = a.shape.n;
  const LineAt at{line, rows};
  const auto load = [&](int j) { return at.load<C>(a.src, j); };
  const Coeffs<R, double> f = coeffs_of<R>(a.rec.b0, a.rec.a);

  Vec<C, double> w[R];
  if (a.seeds.by_constant) {
#pragma unroll
    for (int k = 0; k < R; ++k) w[k] = filled<C>(a.rec.outside * a.seeds.causal_sum[k]);
  } else {
    causal_seed<R, C>(f, a.rec.ext, a.rec.outside, n, a.shape.pad, load, w);
  }
  const Io& causal_out = a.rec.causal_only ? a.dst : tmp;
  const auto step = [&](const Vec<C>& x) { return recursion_step(f, x, w); };
  rt_sweep<C>(a.src, at, n, false, step,
              [&](int i, const Vec<C>& y) { at.store<C>(causal_out, i, y); });
  if (a.rec.causal_only) return;

  Vec<C, double> e[R];
  if (a.seeds.by_constant) {
#pragma unroll
    for (int k = 0; k < R; ++k) e[k] = filled<C>(a.rec.outside * a.seeds.tail_sum[k]);
  } else {
    anticausal_seed_from_tail<R, C>(f, a.rec.ext, a.rec.outside, n, a.shape.pad, a.seeds.g, load,
                                    e);
  }
  if (a.rec.ext != Extension::Ignore) {
    double N[R][R];
    matrix_of<R>(a.mats.N, N);
    mat_vec_add<R, C>(N, w, e);
  }
#pragma unroll
  for (int k = 0; k < R; ++k) w[k] = e[k];
  rt_sweep<C>(tmp, at, n, true, step, [&](int i, const Vec<C>& y) { at.store<C>(a.dst, i, y); });
}

// One step of the modal recursion in its real basis (modal::step): u_k <- p_k u_k + c_k x for each
// mode, a complex pair held as (Re u, Im u); the output is the real modes' sum plus twice the real
// part of each pair.
template <int R, int C>
__device__ __forceinline__ Vec<C, double> modal_step(const PassModes& m, Vec<C, double> (&s)[R],
                                                     const Vec<C, double>& x) {
  Vec<C, double> y = zero_vec<C, double>();
#pragma unroll
  for (int b = 0; b < R; ++b) {
    if (b < m.real_modes) {
#pragma unroll
      for (int c = 0; c < C; ++c) {
        s[b].v[c] = m.p_re[b] * s[b].v[c] + m.c_re[b] * x.v[c];
        y.v[c] += s[b].v[c];
      }
    } else if (((b - m.real_modes) & 1) == 0 && b + 1 < R) {
      const int i = b + 1 < R ? b + 1 : b;  // the pair's imaginary part
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const double re = m.p_re[b] * s[b].v[c] - m.p_im[b] * s[i].v[c] + m.c_re[b] * x.v[c];
        const double im = m.p_re[b] * s[i].v[c] + m.p_im[b] * s[b].v[c] + m.c_im[b] * x.v[c];
        s[b].v[c] = re;
        s[i].v[c] = im;
        y.v[c] += 2.0 * re;
      }
    }
  }
  return y;
}

// s += the map's weights times the samples it reads (sample(j) for j in its columns).
template <int R, int C, class Sample>
__device__ __forceinline__ void add_map(const PassModes::Map& map, Sample sample,
                                        Vec<C, double> (&s)[R]) {
  for (int j = 0; j < map.count; ++j) {
    const Vec<C, double> v = convert<double>(sample(map.first + j));
    const double* w = map.w + std::size_t(j) * R;
#pragma unroll
    for (int k = 0; k < R; ++k) fma_into(s[k], w[k], v);
  }
}
// RT in mode states (PassModes): one thread per line, the seeds from the line's own samples (and
// the constant's value), causal then anticausal, each r first-order recursions in double.
template <int R, int C>
__global__ void __launch_bounds__(128) rt_modal_kernel(const PassArgs a, const Io tmp, bool rows) {
  const int line = blockIdx.x * blockDim.x + threadIdx.x;
  if (line >= a.shape.lines) return;
  const int n = a.shape.n;
  const LineAt at{line, rows};
  const auto load = [&](int j) { return at.load<C>(a.src, j); };
  const auto load_causal = [&](int j) { return at.load<C>(tmp, j); };
  const PassModes& m = a.modes;

  Vec<C, double> s[R];
  const auto step = [&](const Vec<C>& x) {
    return convert<float>(modal_step<R, C>(m, s, convert<double>(x)));
  };
#pragma unroll
  for (int k = 0; k < R; ++k) s[k] = filled<C>(a.rec.outside * m.causal_from_value[k]);
  add_map<R, C>(m.causal_from_x, load, s);
  const Io& causal_out = a.rec.causal_only ? a.dst : tmp;
  rt_sweep<C>(a.src, at, n, false, step,
              [&](int i, const Vec<C>& y) { at.store<C>(causal_out, i, y); });
  if (a.rec.causal_only) return;

#pragma unroll
  for (int k = 0; k < R; ++k) s[k] = filled<C>(a.rec.outside * m.anticausal_from_value[k]);
  add_map<R, C>(m.anticausal_from_x, load, s);
  add_map<R, C>(m.anticausal_from_y, load_causal, s);
  rt_sweep<C>(tmp, at, n, true, step, [&](int i, const Vec<C>& y) { at.store<C>(a.dst, i, y); });
}

// Lines whole in shared memory: a CTA loads L lines of at most kSharedLineMax samples, filters
// them causal then anticausal from exact seeds (algorithm 4's sums over the taps), and stores
// them: the frame is read and written once (a thread per line reads it twice, and algorithm 4
// adds a transpose). Each line is cut into blocks of kBlock samples, a thread to a block (and every
// kLineThreads-th block after it): the block's zero-entry window F(0, B_m(x)) of eq. (15); the
// windows completed across the blocks by one thread per line, P_m(y) = P_m(ybar) + T P_{m-1}(y)
// (eq. 24); each block filtered again from its complete window; then the same right to left on y
// (eq. 34 with U: the blocks' y is complete, so M is not needed).
//
// A CTA's shape: L lines. 32 (a warp takes one block of each, 16 threads a line) where the pass
// has lines enough to fill the device; 8 (a warp takes four blocks of each of 8 lines, 32 threads
// a line) where it has few, as a single frame of at most 1024 lines does: its 32-line CTAs would
// leave most SMs idle (docs/bench/README.md, "Tiles of 8 lines").
template <int L>
struct Tile {
  static_assert(L == 32 || L == 8, "tiles of 32 or 8 lines");
  static constexpr int kThreads = L == 32 ? 512 : 32 * L;
  static constexpr int kLineThreads = kThreads / L;
  static constexpr int kWarps = kThreads / 32;
};

// Where sample `pos` of the CTA's line `l` lives in the tile. Down columns the tile is kept as the
// frame holds it (L adjacent samples a row); along rows each line is a row of `stride`
// (tile_stride). With 32 lines a warp's lanes are 32 lines at one position: an odd stride puts
// them in 32 banks. With 8, a warp also spans four blocks of each line: a word of skew after every
// block, and a stride of 4 modulo 32, put those in distinct banks too.
template <int L>
struct TileLayout {
  bool rows;
  int stride;
  __device__ int operator()(int l, int pos) const {
    const int p = L < 32 ? pos + pos / kBlock : pos;
    return rows ? l * stride + p : p * L + l;
  }
};

template <int L>
__host__ __device__ inline int tile_stride(int n) {
  if (L == 32) return n | 1;
  const int skewed = n + (n - 1) / kBlock + 1, c = 32 / L;
  return skewed + ((c - skewed) % 32 + 32) % 32;
}

// Rows of R x L doubles of a CTA's windows: one a block, and at least two for each thread along a
// line, where those first leave their parts of the seeds.
template <int L>
__host__ __device__ inline int shared_lines_windows(int n) {
  const int nb = (n + kBlock - 1) / kBlock;
  return nb > 2 * Tile<L>::kLineThreads ? nb : 2 * Tile<L>::kLineThreads;
}

// The bytes of shared memory of a CTA: the tile, then the windows [shared_lines_windows][R][L] and
// the line's two seeds [2][R][L] in double.
template <int L>
__host__ __device__ inline std::size_t shared_lines_bytes(int n, int order) {
  return std::size_t(L) * tile_stride<L>(n) * sizeof(float) +
         std::size_t(shared_lines_windows<L>(n) + 2) * order * L * sizeof(double);
}

// K: the kinds of frames read and written. The 16-bit paths are compiled into instantiations of
// their own, so that float frames keep a kernel without them (docs/bench/README.md, "Tiles of 8
// lines": with them compiled in, float frames lost 2-4% at order 5): at order 5 one for each 16-bit
// kind with pitched float alone, below that one with every kind (kSplit16).
template <int R, class S, int L, Kinds K>
__global__ void __launch_bounds__(Tile<L>::kThreads)
    shared_lines_kernel(const PassArgs a, bool rows) {
  constexpr int kTileLines = L, kLineThreads = Tile<L>::kLineThreads, kWarps = Tile<L>::kWarps;
  // Launched as a dependent (a frame's row pass), nothing of the frame is read before this.
  cuda::wait_for_previous_stage();
  extern __shared__ double shared_lines_smem[];
  const int n = a.shape.n, nb = a.shape.nb;
  // This thread's line of the tile and its first block along it; its warp, and its lane there.
  const int lane = threadIdx.x % L, g = threadIdx.x / L;
  const int warp = threadIdx.x / 32, warp_lane = threadIdx.x % 32;
  const int line0 = blockIdx.x * kTileLines, here = min(kTileLines, a.shape.lines - line0);
  const int row0 = blockIdx.y * n;  // down columns: the first row of the batch's frame
  const TileLayout<L> at{rows, tile_stride<L>(n)};
  double* win = shared_lines_smem;  // [nb][R][kTileLines]
  double* seed = win + std::size_t(shared_lines_windows<L>(n)) * R * kTileLines;  // [2][R][lines]
  float* tile = reinterpret_cast<float*>(seed + 2 * R * kTileLines);
  const auto window = [&](double* base, int s, int k) -> double& {
    return base[(s * R + k) * kTileLines + lane];
  };

  // Along rows a warp loads one line, its lanes along it; down columns a warp loads rows of the
  // tile, its L lines side by side. Down the columns of float buffers a thread moves four
  // adjacent lines at a time (16 bytes): with four times the bytes in flight the pass through a
  // 512^3 volume's pages took 0.77-0.89 of the time at orders 1 and 3, 0.94-0.96 at order 5
  // (docs/bench/README.md, "Lines in shared memory"). The loads are unrolled 8 and 16 deep, for
  // yet more in flight: 0.95-0.98 of the time at 512^2 and 1024^2 and on a 512^3 volume's x,y pass
  // at order 3, though 1.05-1.07 at 256^2 (docs/bench/README.md, "Tiles of 8 lines").
  // The buffers' addresses and pitches or-ed together: a multiple of 16 when all are.
  const std::uintptr_t spans = reinterpret_cast<std::uintptr_t>(a.src.ptr) | a.src.pitch |
                               reinterpret_cast<std::uintptr_t>(a.dst.ptr) | a.dst.pitch;
  // A 16-bit kind's own instantiation never has float frames on both sides.
  constexpr bool kFloatBoth = K != Kinds::U16 && K != Kinds::F16;
  const bool wide = kFloatBoth && !rows && here == kTileLines && a.src.kind == IoKind::F32 &&
                    a.dst.kind == IoKind::F32 && spans % 16 == 0;
  const int quad = threadIdx.x % (kTileLines / 4), quad_row = threadIdx.x / (kTileLines / 4);
  constexpr int kQuadRows = Tile<L>::kThreads / (kTileLines / 4);
  if (wide) {
    // Four adjacent lines read as the channels of one pixel.
    const Reader<4, IoKind::F32x4> rd{a.src.ptr, a.src.pitch};
#pragma unroll 8
    for (int p = quad_row; p < n; p += kQuadRows) {
      const Vec<4> v = rd(line0 / 4 + quad, row0 + p);
      *reinterpret_cast<float4*>(&tile[at(4 * quad, p)]) =
          make_float4(v.v[0], v.v[1], v.v[2], v.v[3]);
    }
  } else {
    with_reader<1, K>(a.src, [&](auto rd) {
      if (rows) {
        for (int l = warp; l < here; l += kWarps)
#pragma unroll 16
          for (int p = warp_lane; p < n; p += 32) tile[at(l, p)] = rd(p, line0 + l).v[0];
      } else if (lane < here) {
#pragma unroll 8
        for (int p = g; p < n; p += kLineThreads)
          tile[at(lane, p)] = rd(line0 + lane, row0 + p).v[0];
      }
    });
  }
  __syncthreads();

  const Coeffs<R, S> fs = coeffs_of<R, S>(a.rec.b0, a.rec.a);
  const bool live = lane < here;
  const auto sample = [&](int p) { return Vec<1>{tile[at(lane, p)]}; };
  const auto block_len = [&](int s) { return s + 1 < nb ? kBlock : a.shape.last_len; };
  const bool anticausal = !a.rec.causal_only;

  // The seeds from the line's samples, before they are overwritten, their terms split over the
  // warps as algorithm 4's carries kernel splits them: the causal seed y_{-1-k} = sum_{i>=k}
  // g_{i-k} x(-1-i), terms i < pad + r - 1, and the part of the anticausal seed that the samples
  // beyond the line give, z_{n+m} = sum_t A(|t - m|) x(n + t), terms t < pad + r. Each warp's
  // sums go to its two rows of the windows, and warp 0 adds them up.
  if (a.seeds.by_constant || a.shape.pad == 0) {
    if (live && g == 0) {
#pragma unroll
      for (int k = 0; k < R; ++k) {
        window(seed, 0, k) = a.seeds.by_constant ? a.rec.outside * a.seeds.causal_sum[k] : 0.0;
        window(seed, 1, k) = a.seeds.by_constant ? a.rec.outside * a.seeds.tail_sum[k] : 0.0;
      }
    }
  } else {
    double p[R], e[R];
#pragma unroll
    for (int k = 0; k < R; ++k) p[k] = e[k] = 0.0;
    const int causal_terms = a.shape.pad + R - 1;
    const int count = causal_terms + (anticausal ? a.shape.pad + R : 0);
    if (live) {
      for (int i = g; i < count; i += kLineThreads) {
        const int j = a.seeds.seed_index[i];
        const double x = j < 0 ? a.rec.outside : double(tile[at(lane, j)]);
        if (i < causal_terms) {
#pragma unroll
          for (int k = 0; k < R; ++k)
            if (i >= k) p[k] = fma(a.seeds.g[i - k], x, p[k]);
        } else {
          const int t = i - causal_terms;
#pragma unroll
          for (int k = 0; k < R; ++k) e[k] = fma(a.seeds.acorr[t > k ? t - k : k - t], x, e[k]);
        }
      }
#pragma unroll
      for (int k = 0; k < R; ++k) {
        window(win, 2 * g, k) = p[k];
        window(win, 2 * g + 1, k) = e[k];
      }
    }
    __syncthreads();
    if (live && g == 0) {
#pragma unroll
      for (int k = 0; k < R; ++k) {
        double ps = 0.0, es = 0.0;
        for (int h = 0; h < kLineThreads; ++h) {
          ps += window(win, 2 * h, k);
          es += window(win, 2 * h + 1, k);
        }
        window(seed, 0, k) = ps;
        window(seed, 1, k) = es;
      }
    }
    __syncthreads();
  }

  // Block s's recursion over its samples from the window ws, left to right or right to left, with
  // y written over x or only the window kept.
  const auto filter_block = [&](int s, Vec<1, S>(&ws)[R], auto backward, auto write) {
    const int first = s * kBlock, len = block_len(s);
    for (int j = 0; j < len; ++j) {
      const int i = first + (decltype(backward)::value ? len - 1 - j : j);
      const auto y = recursion_step(fs, sample(i), ws);
      if constexpr (decltype(write)::value) tile[at(lane, i)] = y.v[0];
    }
  };
  const auto window_of = [&](int s, Vec<1, S>(&ws)[R], auto zero) {
#pragma unroll
    for (int k = 0; k < R; ++k)
      ws[k] = decltype(zero)::value ? zero_vec<1, S>() : filled<1>(S(window(win, s, k)));
  };
  const auto keep_window = [&](int s, const Vec<1, S>(&ws)[R]) {
#pragma unroll
    for (int k = 0; k < R; ++k) window(win, s, k) = double(ws[k].v[0]);
  };
  using Yes = std::true_type;
  using No = std::false_type;

  // Each block's zero-entry causal window.
  if (live) {
    for (int s = g; s < nb; s += kLineThreads) {
      Vec<1, S> ws[R];
      window_of(s, ws, Yes{});
      filter_block(s, ws, No{}, No{});
      keep_window(s, ws);
    }
  }
  __syncthreads();

  // One step of a walk across the blocks: block s's zero-entry window gives way to p, the window
  // entering it, and p becomes the window entering the next block, the zero-entry window plus M p
  // (M = T left to right, eq. 24; U right to left, eq. 34). The walk's last step leaves a window
  // that nothing reads, R^2 FMAs a line.
  const auto enter = [&](int s, const double(&M)[R][R], Vec<1, double>(&p)[R]) {
    Vec<1, double> next[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
      next[k] = filled<1>(window(win, s, k));
      window(win, s, k) = p[k].v[0];
    }
    mat_vec_add<R, 1>(M, p, next);
#pragma unroll
    for (int k = 0; k < R; ++k) p[k] = next[k];
  };

  // The windows entering each block, left to right.
  if (live && g == 0) {
    double T[R][R];
    matrix_of<R>(a.mats.T, T);
    Vec<1, double> p[R];
#pragma unroll
    for (int k = 0; k < R; ++k) p[k] = filled<1>(window(seed, 0, k));
    for (int s = 0; s < nb; ++s) enter(s, T, p);
  }
  __syncthreads();

  // Each block from its complete window, y over x; the last leaves the line's causal end window
  // for the anticausal seed. Then each block's zero-entry anticausal window.
  if (live) {
    for (int s = g; s < nb; s += kLineThreads) {
      Vec<1, S> ws[R];
      window_of(s, ws, No{});
      filter_block(s, ws, No{}, Yes{});
      if (!anticausal) continue;
      if (s == nb - 1) {
#pragma unroll
        for (int k = 0; k < R; ++k) window(seed, 0, k) = double(ws[k].v[0]);
      }
      window_of(s, ws, Yes{});
      filter_block(s, ws, Yes{}, No{});
      keep_window(s, ws);
    }
  }
  __syncthreads();

  if (anticausal) {
    // The anticausal windows entering each block from the right: the line's seed, the tail's
    // part plus N times the causal end window, then U (Ul across the last block).
    if (live && g == 0) {
      Vec<1, double> e[R], w[R];
#pragma unroll
      for (int k = 0; k < R; ++k) {
        e[k] = filled<1>(window(seed, 1, k));
        w[k] = filled<1>(window(seed, 0, k));
      }
      if (a.rec.ext != Extension::Ignore) {
        double N[R][R];
        matrix_of<R>(a.mats.N, N);
        mat_vec_add<R, 1>(N, w, e);
      }
      double U[R][R];
      matrix_of<R>(a.mats.Ul, U);
      enter(nb - 1, U, e);
      matrix_of<R>(a.mats.U, U);
      for (int s = nb - 2; s >= 0; --s) enter(s, U, e);
    }
    __syncthreads();
    if (live) {
      for (int s = g; s < nb; s += kLineThreads) {
        Vec<1, S> ws[R];
        window_of(s, ws, No{});
        filter_block(s, ws, Yes{}, Yes{});
      }
    }
    __syncthreads();
  }

  if (wide) {
    const PitchedWriter<float4, EncodeF32x4> wr{a.dst.ptr, a.dst.pitch};
#pragma unroll 4
    for (int p = quad_row; p < n; p += kQuadRows) {
      const float4 t = *reinterpret_cast<const float4*>(&tile[at(4 * quad, p)]);
      wr.column(line0 / 4 + quad, row0 + p, 0).put(Vec<4>{t.x, t.y, t.z, t.w});
    }
    return;
  }
  with_writer<1, K>(a.dst, [&](auto wr) {
    if (rows) {
      for (int l = warp; l < here; l += kWarps)
#pragma unroll 4
        for (int p = warp_lane; p < n; p += 32)
          wr.column(p, line0 + l, 0).put(Vec<1>{tile[at(l, p)]});
    } else if (lane < here) {
#pragma unroll 4
      for (int p = g; p < n; p += kLineThreads)
        wr.column(line0 + lane, row0 + p, 0).put(Vec<1>{tile[at(lane, p)]});
    }
  });
}

// A pass left alone (AxisDesigns::axes) as the other's partner: dst(y, x) = src(x, y) for a src of
// width x height, through a shared-memory tile so that reads and writes both coalesce.
template <int C>
__global__ void __launch_bounds__(32 * 8)
    transpose_kernel(const Io src, const Io dst, int width, int height) {
  __shared__ Vec<C> tile[32][33];
  const int x0 = blockIdx.x * 32, y0 = blockIdx.y * 32;
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int x = x0 + threadIdx.x, y = y0 + j;
    if (x < width && y < height) tile[j][threadIdx.x] = read<C, Kinds::No16>(src, x, y);
  }
  __syncthreads();
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int x = y0 + threadIdx.x, y = x0 + j;
    if (x < height && y < width) write<C, Kinds::No16>(dst, x, y, tile[threadIdx.x][j]);
  }
}

// ---------------------------------------------------------------------------------------------
// Host launchers

void transpose(const Io& src, const Io& dst, int width, int height, int channels,
               cudaStream_t stream) {
  const dim3 grid((width + 31) / 32, (height + 31) / 32), block(32, 8);
  if (channels == 1)
    transpose_kernel<1><<<grid, block, 0, stream>>>(src, dst, width, height);
  else
    transpose_kernel<4><<<grid, block, 0, stream>>>(src, dst, width, height);
  CUDA_CHECK_LAUNCH();
}

template <int R, int C, class P, class S, int G>
void overlapped_pass(const PassArgs& a, bool block_carries, cudaStream_t stream) {
  const dim3 block(32, kWarps);
  if (block_carries) {
    const dim3 grid((a.shape.lines * C + 31) / 32, (a.shape.nb + kWarps - 1) / kWarps);
    block_carries_kernel<R, C, P, S, G><<<grid, block, 0, stream>>>(a);
    CUDA_CHECK_LAUNCH();
  }
  carries_kernel<R, C, P><<<(a.shape.lines * C + 31) / 32, dim3(32, kGroups), 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
  if constexpr (C == 1) {
    const dim3 grid((a.shape.lines + 31) / 32, (a.shape.nb + kWarps - 1) / kWarps);
    block_output_kernel<R, P, S><<<grid, block, 0, stream>>>(a);
  } else {
    block_output_kernel4<R, P, S, G>
        <<<dim3((a.shape.lines + 31) / 32, a.shape.nb), block, 0, stream>>>(a);
  }
  CUDA_CHECK_LAUNCH();
}

template <int R, int C, class P, class S>
void overlapped_pass(const PassArgs& a, bool block_carries, cudaStream_t stream) {
  switch (reader_group<C>(a.src.kind)) {
    case kSurfU8:
      if constexpr (C == 4) return overlapped_pass<R, C, P, S, kSurfU8>(a, block_carries, stream);
      break;
    case kSurfF32:
      if constexpr (C == 4) return overlapped_pass<R, C, P, S, kSurfF32>(a, block_carries, stream);
      break;
    default:
      break;
  }
  overlapped_pass<R, C, P, S, kBuffers>(a, block_carries, stream);
}

template <int R, int C>
void rt_pass(const PassArgs& a, const Io& tmp, bool rows, cudaStream_t stream) {
  const int grid = (a.shape.lines + 127) / 128;
  if (a.modes.on)
    rt_modal_kernel<R, C><<<grid, 128, 0, stream>>>(a, tmp, rows);
  else
    rt_kernel<R, C><<<grid, 128, 0, stream>>>(a, tmp, rows);
  CUDA_CHECK_LAUNCH();
}

// Whether a 16-bit pass of order R runs its kind's own instantiation of shared_lines_kernel
// (Kinds::U16, F16) rather than the one with every kind (Kinds::All). At order 5 it took 0.90-0.96
// of the time at 256^2 to 1024^2, uint16 and float16, mirror and zero; at order 4 0.99-1.01; at
// order 3 1.03-1.09 under mirror, though its kernels alone ran faster under Nsight Compute
// (docs/bench/README.md, "A 16-bit kind's own lines kernel").
template <int R>
constexpr bool kSplit16 = R >= 5;

template <int R, class S, int L>
void shared_lines_pass(const PassArgs& a, bool rows, int frames, bool overlap,
                       cudaStream_t stream) {
  const std::size_t bytes = shared_lines_bytes<L>(a.shape.n, R);
  // The pass's 16-bit kind, if it has one: its other side is a float buffer or the same kind.
  const IoKind k16 = is_16bit(a.src.kind) ? a.src.kind : a.dst.kind;
  if (is_16bit(a.dst.kind) && a.dst.kind != k16)
    throw InvalidParameter("lines in shared memory: a pass reads and writes one 16-bit kind");
  const auto launch = [&](const PassArgs& b, int grid_frames) {
    const dim3 grid((b.shape.lines + L - 1) / L, grid_frames);
    auto kernel = shared_lines_kernel<R, S, L, Kinds::No16>;
    if constexpr (kSplit16<R>) {
      if (k16 == IoKind::U16) kernel = shared_lines_kernel<R, S, L, Kinds::U16>;
      if (k16 == IoKind::F16) kernel = shared_lines_kernel<R, S, L, Kinds::F16>;
    } else if (is_16bit(k16)) {
      kernel = shared_lines_kernel<R, S, L, Kinds::All>;
    }
    cuda::launch(overlap, kernel, grid, dim3(Tile<L>::kThreads), bytes, stream, b, rows);
  };
  PassArgs b = a;
  if (rows) {  // the frames' rows, one after another, are lines of one frame
    b.shape.lines = a.shape.lines * frames;
    return launch(b, 1);
  }
  // Down columns, a frame a row of the grid, at most 65535 frames a launch.
  for (int f0 = 0; f0 < frames; f0 += 65535) {
    b.src.ptr = a.src.ptr + std::size_t(f0) * a.shape.n * a.src.pitch;
    b.dst.ptr = a.dst.ptr + std::size_t(f0) * a.shape.n * a.dst.pitch;
    launch(b, std::min(65535, frames - f0));
  }
}

// Tiles of 8 lines where tiles of 32 would make fewer CTAs than the device has `sms` SMs. With
// `overlap`, a programmatic dependent launch on the stream's previous kernel (a frame's row pass
// on its column pass).
template <int R, class S>
void shared_lines_pass(const PassArgs& a, bool rows, int frames, int sms, bool overlap,
                       cudaStream_t stream) {
  // Along rows the frames' lines are one grid's; down columns each frame has its row of the grid.
  const long long tiles_of_32 =
      rows ? (1LL * a.shape.lines * frames + 31) / 32 : (a.shape.lines + 31LL) / 32 * frames;
  if (tiles_of_32 < sms) return shared_lines_pass<R, S, 8>(a, rows, frames, overlap, stream);
  shared_lines_pass<R, S, 32>(a, rows, frames, overlap, stream);
}

template <int R, class S>
void allow_shared_lines() {
  const auto allow = [](auto kernel, std::size_t bytes) {
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  };
  const std::size_t bytes32 = shared_lines_bytes<32>(kSharedLineMax, R),
                    bytes8 = shared_lines_bytes<8>(kSharedLineMax, R);
  allow(shared_lines_kernel<R, S, 32, Kinds::No16>, bytes32);
  allow(shared_lines_kernel<R, S, 8, Kinds::No16>, bytes8);
  if constexpr (kSplit16<R>) {
    allow(shared_lines_kernel<R, S, 32, Kinds::U16>, bytes32);
    allow(shared_lines_kernel<R, S, 32, Kinds::F16>, bytes32);
    allow(shared_lines_kernel<R, S, 8, Kinds::U16>, bytes8);
    allow(shared_lines_kernel<R, S, 8, Kinds::F16>, bytes8);
  } else {
    allow(shared_lines_kernel<R, S, 32, Kinds::All>, bytes32);
    allow(shared_lines_kernel<R, S, 8, Kinds::All>, bytes8);
  }
}

using OverlappedFn = void (*)(const PassArgs&, bool, cudaStream_t);
using RtFn = void (*)(const PassArgs&, const Io&, bool, cudaStream_t);

template <int C, class P, class S = double>
constexpr OverlappedFn kOverlapped[kMaxOrder] = {
    overlapped_pass<1, C, P, S>, overlapped_pass<2, C, P, S>, overlapped_pass<3, C, P, S>,
    overlapped_pass<4, C, P, S>, overlapped_pass<5, C, P, S>};
using SharedLinesFn = void (*)(const PassArgs&, bool, int, int, bool, cudaStream_t);
template <class S>
constexpr SharedLinesFn kSharedLines[kMaxOrder] = {shared_lines_pass<1, S>, shared_lines_pass<2, S>,
                                                   shared_lines_pass<3, S>, shared_lines_pass<4, S>,
                                                   shared_lines_pass<5, S>};
using AllowFn = void (*)();
template <class S>
constexpr AllowFn kAllowSharedLines[kMaxOrder] = {
    allow_shared_lines<1, S>, allow_shared_lines<2, S>, allow_shared_lines<3, S>,
    allow_shared_lines<4, S>, allow_shared_lines<5, S>};
template <int C>
constexpr RtFn kRt[kMaxOrder] = {rt_pass<1, C>, rt_pass<2, C>, rt_pass<3, C>, rt_pass<4, C>,
                                 rt_pass<5, C>};

}  // namespace

void launch_overlapped_pass(int order, int channels, const PassArgs& args, bool block_carries,
                            cudaStream_t stream) {
  const OverlappedFn* table =
      args.rec.double_carries ? (channels == 1 ? kOverlapped<1, double> : kOverlapped<4, double>)
      : channels == 1
          ? (args.rec.float_blocks ? kOverlapped<1, float, float> : kOverlapped<1, float>)
      : args.rec.float_blocks ? kOverlapped<4, float, float>
                              : kOverlapped<4, float>;
  table[order - 1](args, block_carries, stream);
}

void launch_rt_pass(int order, int channels, const PassArgs& args, const Io& tmp, bool rows,
                    cudaStream_t stream) {
  (channels == 1 ? kRt<1> : kRt<4>)[order - 1](args, tmp, rows, stream);
}

namespace {
void launch_shared_lines_pass(int order, const PassArgs& args, bool rows, int frames, int sms,
                              bool overlap, cudaStream_t stream) {
  (args.rec.float_blocks ? kSharedLines<float> : kSharedLines<double>)[order - 1](
      args, rows, frames, sms, overlap, stream);
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// The plan

namespace {

// Largest 1 / |b0| for which block carries are stored in float (PassRecursion::double_carries): a
// float carry's rounding reaches the output amplified by about 1 / |b0|.
constexpr double kFloatCarryGain = 200.0;
// Largest 1 / |b0| for which the block recursions run with a float window (PassRecursion::
// float_blocks). The float step (recursion_step in direct_form_math.h) rounds about half an ulp
// of the window per step, which reaches the output amplified by up to 1 / |b0| once per direction
// and pass: these bounds keep orders 1-3 within their 1e-5 and orders 4-5 within their 1e-4
// (README.md of this folder has the measured errors). RGBA8 frames take a float window wherever
// the carries are float: 200 ulps of float are far below half an 8-bit step. Beyond, the window
// is double, whose FP64 steps make the block kernels compute-bound.
constexpr double kFloatWindowGain = 32.0;
constexpr double kFloatWindowGainHighOrder = 128.0;

// The precision of algorithm 4's carries and block recursions for these filters (the larger
// 1 / |b0| of the two decides for both passes).
struct BlockPrecision {
  bool double_carries, float_blocks;
};
BlockPrecision block_precision(const AxisDesigns& filters, PixelFormat format) {
  const double gain = std::max(std::fabs(1.0 / filters.x.b0), std::fabs(1.0 / filters.y.b0));
  const bool double_carries = gain > kFloatCarryGain;
  const double window_gain = format == PixelFormat::RGBA8 ? kFloatCarryGain
                             : filters.x.order() <= 3     ? kFloatWindowGain
                                                          : kFloatWindowGainHighOrder;
  return {double_carries, !double_carries && gain <= window_gain};
}

void put(const modal::Mat& m, double* dst) {
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) dst[i * kMaxOrder + j] = m(i, j);
}

// A pass's carries (PassArgs) and the samples its boundary seeds read.
struct PassBuffers {
  DeviceBuffer pbar, ebar, pst, est, seed_index;
  DeviceBuffer g, acorr;  // the filter's taps over the extension (direct_form::ExtensionTaps)
  DeviceBuffer modes_causal, modes_x, modes_y;  // RT in mode states: PassModes' maps
};

class DirectFormFilter final : public FrameFilter {
 public:
  DirectFormFilter(const AxisDesigns& filters, Extension ext, double cval, int width, int height,
                   PixelFormat format, DirectAlgorithm algorithm, int frames)
      : rt_(algorithm == DirectAlgorithm::RT),
        shared_lines_(algorithm == DirectAlgorithm::SharedLines),
        order_(filters.x.order()),
        channels_(channel_count(format)),
        width_(width),
        height_(height),
        frames_(shared_lines_ ? frames : 1) {
    if (order_ < 1 || order_ > kMaxOrder)
      throw InvalidParameter("order must be 1.." + std::to_string(kMaxOrder));
    if (filters.y.order() != order_ || filters.y.causal_only != filters.x.causal_only)
      throw InvalidParameter(this->algorithm() + ": the filters along x and y must have one order");
    const std::size_t sample = sizeof(float) * std::size_t(channels_);
    if (shared_lines_ && (channels_ != 1 || (filters.filters(Axis::X) && width > kSharedLineMax) ||
                          (filters.filters(Axis::Y) && height > kSharedLineMax)))
      throw InvalidParameter("lines in shared memory: one channel, at most " +
                             std::to_string(kSharedLineMax) + " samples a line");
    if (shared_lines_) {
      // No scratch: each pass holds its lines whole.
    } else if (rt_) {
      rt_columns_.allocate_pitched(std::size_t(width) * sample, std::size_t(height));
      rt_rows_.allocate_pitched(std::size_t(width) * sample, std::size_t(height));
    } else {
      // The transposed column result, and the block carries of each pass (the column pass's
      // output step writes the row pass's while the column pass's are still being read).
      scratch_.allocate_pitched(std::size_t(height) * sample, std::size_t(width));
    }
    const BlockPrecision precision = block_precision(filters, format);
    const bool double_carries = precision.double_carries;
    const std::size_t carry = std::size_t(order_) * (double_carries ? 2 : 1) * sample;
    const auto blocks = [](int n) { return std::size_t((n + kBlock - 1) / kBlock); };
    if (!rt_ && !shared_lines_) {
      for (auto* b : {&cols_.pbar, &cols_.ebar, &cols_.pst, &cols_.est})
        b->allocate(carry * blocks(height) * std::size_t(width));
      for (auto* b : {&rows_.pbar, &rows_.ebar, &rows_.pst, &rows_.est})
        b->allocate(carry * blocks(width) * std::size_t(height));
    }
    const ConstantValues k = constant_values(filters, cval);
    columns_ = pass_args(filters.y, ext, k.columns, width, height, cols_);
    row_args_ = pass_args(filters.x, ext, k.rows, height, width, rows_);
    columns_.rec.double_carries = row_args_.rec.double_carries = double_carries ? 1 : 0;
    columns_.rec.float_blocks = row_args_.rec.float_blocks = precision.float_blocks ? 1 : 0;
    filters_columns_ = filters.filters(Axis::Y);
    filters_rows_ = filters.filters(Axis::X);
    // Both passes: the column pass's output step yields the row pass's block carries.
    if (filters_columns_ && filters_rows_) {
      columns_.carries.next_pbar = row_args_.carries.pbar;
      columns_.carries.next_ebar = row_args_.carries.ebar;
    }
    columns_.rec.next_b0 = row_args_.rec.b0;
    for (int k = 0; k < kMaxOrder; ++k) columns_.rec.next_a[k] = row_args_.rec.a[k];
    if (shared_lines_) {
      (columns_.rec.float_blocks ? kAllowSharedLines<float>
                                 : kAllowSharedLines<double>)[order_ - 1]();
      sms_ = device_attribute(cudaDevAttrMultiProcessorCount);
      overlap_ = cuda::overlapping_launches();
    }
  }

  // Lines in shared memory take the batch whole: its rows are more rows, its columns a grid's y.
  bool batches() const override { return shared_lines_; }

  // Every kind through io.cuh. Algorithm 4 and RT leave the 16-bit ones to the engine, which
  // converts them (Kinds::No16); lines in shared memory take them, each sample read and written
  // once.
  bool reads(IoKind k) const override { return shared_lines_ || !is_16bit(k); }
  bool writes(IoKind k) const override { return reads(k); }

  // Both axes of lines in shared memory into a 16-bit frame: the columns' result waits in float
  // for the rows, not rounded to 16 bits in the frame.
  void prepare(IoKind /*src*/, IoKind dst) override {
    if (shared_lines_ && filters_columns_ && filters_rows_ && is_16bit(dst) && !scratch_.ptr)
      scratch_.allocate_pitched(std::size_t(width_) * sizeof(float),
                                std::size_t(height_) * frames_);
  }
  std::string algorithm() const override {
    return shared_lines_ ? "lines" : to_string(rt_ ? Algorithm::RT : Algorithm::Alg4);
  }
  std::vector<std::string> stage_names() const override {
    if (!filters_rows_) return {"columns"};
    if (!filters_columns_) return {"rows"};
    return {"columns", "rows"};
  }

  // Columns (src -> transposed scratch), then rows (scratch -> dst); lines in shared memory
  // columns (src -> dst), then rows in place. An axis left alone: its pass is a transpose (alg4),
  // or not run (rt and lines in shared memory, which do not transpose).
  void enqueue(const Io& src, const Io& dst, cudaStream_t stream, cudaEvent_t* marks) override {
    PassArgs cols = columns_;
    PassArgs rows = row_args_;
    if (!filters_columns_ || !filters_rows_) {
      enqueue_one_axis(src, dst, stream);
      if (marks) CUDA_CHECK(cudaEventRecord(marks[0], stream));
      return;
    }
    if (shared_lines_) {
      // Columns (src -> dst), then rows in place: each CTA holds its lines whole. A 16-bit dst
      // takes the columns' result through the float scratch (prepare).
      if (is_16bit(dst.kind) && !scratch_.ptr)
        throw std::logic_error("lines in shared memory: a 16-bit frame before prepare()");
      const Io between = is_16bit(dst.kind) ? float_io(scratch_) : dst;
      cols.src = src;
      cols.dst = between;
      launch_shared_lines_pass(order_, cols, false, frames_, sms_, false, stream);
      if (marks) CUDA_CHECK(cudaEventRecord(marks[0], stream));
      rows.src = between;
      rows.dst = dst;
      launch_shared_lines_pass(order_, rows, true, frames_, sms_, overlap_, stream);
    } else if (rt_) {
      const Io c = float_io(rt_columns_), t = float_io(rt_rows_);
      rt_columns(cols, src, c, c, stream);
      if (marks) CUDA_CHECK(cudaEventRecord(marks[0], stream));
      rows.src = c;
      rows.dst = dst;
      launch_rt_pass(order_, channels_, rows, t, true, stream);
    } else {
      cols.src = src;
      cols.dst = float_io(scratch_);
      launch_overlapped_pass(order_, channels_, cols, true, stream);
      if (marks) CUDA_CHECK(cudaEventRecord(marks[0], stream));
      rows.src = float_io(scratch_);
      rows.dst = dst;
      launch_overlapped_pass(order_, channels_, rows, false, stream);
    }
    if (marks) CUDA_CHECK(cudaEventRecord(marks[1], stream));
  }

 private:
  void enqueue_one_axis(const Io& src, const Io& dst, cudaStream_t stream) {
    PassArgs pass = filters_columns_ ? columns_ : row_args_;
    pass.src = src;
    pass.dst = dst;
    if (shared_lines_) {
      launch_shared_lines_pass(order_, pass, !filters_columns_, frames_, sms_, false, stream);
      return;
    }
    if (rt_) {
      if (filters_columns_)
        rt_columns(pass, src, dst, float_io(rt_columns_), stream);
      else
        launch_rt_pass(order_, channels_, pass, float_io(rt_rows_), true, stream);
      return;
    }
    const Io scratch = float_io(scratch_);
    if (filters_columns_) {
      pass.dst = scratch;
      launch_overlapped_pass(order_, channels_, pass, true, stream);
      transpose(scratch, dst, height_, width_, channels_, stream);
    } else {
      // The rows as the columns of the transposed frame: the pass finds its own block carries.
      transpose(src, scratch, width_, height_, channels_, stream);
      pass.src = scratch;
      launch_overlapped_pass(order_, channels_, pass, true, stream);
    }
  }

  // RT down the columns of src into dst through tmp. Four adjacent columns of one float channel
  // are the four channels of a column of pixels a quarter as wide: a thread then filters four
  // lines with loads and stores 16 bytes wide, and a wide frame (a volume's pages) takes a
  // quarter of the threads, which the SMs hold at once (docs/bench/README.md, volumes).
  void rt_columns(PassArgs pass, const Io& src, const Io& dst, const Io& tmp,
                  cudaStream_t stream) const {
    pass.src = src;
    pass.dst = dst;
    if (packs_columns(src) && packs_columns(dst) && packs_columns(tmp)) {
      pass.shape.lines = width_ / 4;
      pass.src = as_pixels(src);
      pass.dst = as_pixels(dst);
      launch_rt_pass(order_, 4, pass, as_pixels(tmp), false, stream);
      return;
    }
    launch_rt_pass(order_, channels_, pass, tmp, false, stream);
  }

  // Whether the columns of io, one float channel in a buffer, can be read as the channels of
  // pixels of four floats (16-byte aligned rows).
  bool packs_columns(const Io& io) const {
    return channels_ == 1 && width_ % 4 == 0 && io.kind == IoKind::F32 &&
           reinterpret_cast<std::uintptr_t>(io.ptr) % 16 == 0 && io.pitch % 16 == 0;
  }
  static Io as_pixels(const Io& io) { return Io{IoKind::F32x4, io.ptr, io.pitch, 0}; }

  Io float_io(const DeviceBuffer& b) const {
    return Io{channels_ == 1 ? IoKind::F32 : IoKind::F32x4, static_cast<char*>(b.ptr), b.pitch, 0};
  }

  // The modal form of `f` on lines of n samples. Beyond the direct form's limit for lines of this
  // length (direct_form::window_limit) algorithm 4 and lines in shared memory refuse it; RT runs
  // it in mode states (*in_modes).
  modal::Form checked_form(const Recursive& f, int n, bool* in_modes) const {
    modal::Form form;
    try {
      form = modal::modal_form(f);
    } catch (const std::domain_error& e) {
      throw InvalidParameter(algorithm() + ": " + e.what());
    }
    const double condition = direct_form::window_condition(form);
    const double limit = direct_form::window_limit(n, !rt_ && !shared_lines_);
    *in_modes = !(condition <= limit);
    if (*in_modes && !rt_) {
      char buf[240];
      std::snprintf(buf, sizeof buf,
                    "%s: the direct form cannot hold this filter exactly on lines of %d samples "
                    "(its window condition %.3g exceeds %.3g): rt holds it, alg5 and alg6 too on "
                    "both axes",
                    algorithm().c_str(), n, condition, limit);
      throw InvalidParameter(buf);
    }
    return form;
  }

  // RT's pass in mode states: the modes' coefficients and the line maps, uploaded.
  static void put_modes(const modal::Form& form, const Recursive& f, Extension ext, int n,
                        PassBuffers& buffers, PassModes& m) {
    m.on = 1;
    m.real_modes = form.real_modes;
    for (int k = 0, b = 0; k < form.modes(); b += k < form.real_modes ? 1 : 2, ++k) {
      m.p_re[b] = form.pole_re[std::size_t(k)];
      m.p_im[b] = form.pole_im[std::size_t(k)];
      m.c_re[b] = form.residue_re[std::size_t(k)];
      m.c_im[b] = form.residue_im[std::size_t(k)];
    }
    const direct_form::LineMaps maps = direct_form::line_maps(
        form, f.causal_only ? Extension::Ignore : ext, n, direct_form::State::Modes);
    for (auto [buffer, columns, map] :
         {std::tuple{&buffers.modes_causal, &maps.causal_from_x, &m.causal_from_x},
          std::tuple{&buffers.modes_x, &maps.anticausal_from_x, &m.anticausal_from_x},
          std::tuple{&buffers.modes_y, &maps.anticausal_from_y, &m.anticausal_from_y}}) {
      buffer->allocate(std::max<std::size_t>(1, columns->w.size()) * sizeof(double));
      if (!columns->w.empty())
        CUDA_CHECK(cudaMemcpy(buffer->ptr, columns->w.data(), columns->w.size() * sizeof(double),
                              cudaMemcpyHostToDevice));
      map->w = static_cast<const double*>(buffer->ptr);
      map->first = columns->first;
      map->count = columns->count;
    }
    for (int k = 0; k < form.order; ++k) {
      m.causal_from_value[k] = maps.causal_from_value[std::size_t(k)];
      m.anticausal_from_value[k] = maps.anticausal_from_value[std::size_t(k)];
    }
  }

  // The pass of `lines` lines of n samples filtered by f.
  PassArgs pass_args(const Recursive& f, Extension ext, double outside, int lines, int n,
                     PassBuffers& buffers) const {
    bool in_modes = false;
    const modal::Form form = checked_form(f, n, &in_modes);
    if (in_modes) {
      PassArgs a;
      a.shape.lines = lines;
      a.shape.n = n;
      a.rec.ext = f.causal_only ? Extension::Ignore : ext;
      a.rec.outside = a.rec.ext == Extension::Constant ? outside : 0.0;
      a.rec.causal_only = f.causal_only ? 1 : 0;
      put_modes(form, f, ext, n, buffers, a.modes);
      return a;
    }
    const direct_form::ExtensionTaps taps =
        direct_form::extension_taps(form, f.causal_only ? Extension::Ignore : ext);
    for (auto [buffer, values] :
         {std::pair{&buffers.g, &taps.g}, std::pair{&buffers.acorr, &taps.acorr}}) {
      buffer->allocate(std::max<std::size_t>(1, values->size()) * sizeof(double));
      if (!values->empty())
        CUDA_CHECK(cudaMemcpy(buffer->ptr, values->data(), values->size() * sizeof(double),
                              cudaMemcpyHostToDevice));
    }
    PassArgs a;
    const int r = order_;
    a.shape.lines = lines;
    a.shape.n = n;
    a.shape.nb = (n + kBlock - 1) / kBlock;
    a.shape.last_len = n - (a.shape.nb - 1) * kBlock;
    a.shape.pad = taps.pad;
    a.rec.ext = f.causal_only ? Extension::Ignore : ext;
    a.rec.outside = a.rec.ext == Extension::Constant ? outside : 0.0;
    a.rec.causal_only = f.causal_only ? 1 : 0;
    a.rec.b0 = f.b0;
    for (int k = 0; k < r; ++k) a.rec.a[k] = f.a[std::size_t(k)];
    a.seeds.g = static_cast<const double*>(buffers.g.ptr);
    a.seeds.acorr = static_cast<const double*>(buffers.acorr.ptr);
    // The samples of the boundary seeds' terms (PassSeeds::seed_index), the same for every line.
    std::vector<int> index;
    if (taps.pad > 0) {
      for (int i = 0; i < taps.pad + r - 1; ++i)
        index.push_back(extend_index(-1 - i, n, a.rec.ext));
      for (int t = 0; t < taps.pad + r; ++t) index.push_back(extend_index(n + t, n, a.rec.ext));
    }
    buffers.seed_index.allocate(std::max<std::size_t>(1, index.size()) * sizeof(int));
    if (!index.empty())
      CUDA_CHECK(cudaMemcpy(buffers.seed_index.ptr, index.data(), index.size() * sizeof(int),
                            cudaMemcpyHostToDevice));
    a.seeds.seed_index = static_cast<const int*>(buffers.seed_index.ptr);
    if (a.rec.ext == Extension::Constant && taps.pad > 0) {
      a.seeds.by_constant = 1;
      const int causal_terms = taps.pad + r - 1, tail_terms = taps.pad + r;
      for (int k = 0; k < r; ++k) {
        for (int i = k; i < causal_terms; ++i) a.seeds.causal_sum[k] += taps.g[std::size_t(i - k)];
        for (int t = 0; t < tail_terms; ++t)
          a.seeds.tail_sum[k] += taps.acorr[std::size_t(t > k ? t - k : k - t)];
      }
    }
    a.carries.pbar = buffers.pbar.ptr;
    a.carries.ebar = buffers.ebar.ptr;
    a.carries.pst = buffers.pst.ptr;
    a.carries.est = buffers.est.ptr;
    const direct_form::BlockMatrices full = direct_form::block_matrices(form, kBlock);
    const direct_form::BlockMatrices last = direct_form::block_matrices(form, a.shape.last_len);
    put(full.T, a.mats.T);
    put(full.M, a.mats.M);
    put(full.U, a.mats.U);
    put(last.T, a.mats.Tl);
    put(last.M, a.mats.Ml);
    put(last.U, a.mats.Ul);
    put(taps.N, a.mats.N);
    const int run = (a.shape.nb - 1 + kCarryGroups - 1) / kCarryGroups;
    put(modal::power(full.T, run), a.mats.Tm);
    put(modal::power(full.U, run), a.mats.Um);
    return a;
  }

  bool rt_, shared_lines_;
  bool filters_columns_ = true, filters_rows_ = true;  // the axes filtered (AxisDesigns::axes)
  int order_, channels_, width_, height_;
  int frames_;            // of the batch, taken whole by lines in shared memory
  int sms_ = 0;           // the device's SMs, which choose the tiles of lines in shared memory
  bool overlap_ = false;  // the row pass a programmatic dependent launch on the column pass
  PassArgs columns_, row_args_;
  PassBuffers cols_, rows_;
  DeviceBuffer scratch_, rt_columns_, rt_rows_;
};

}  // namespace

bool alg4_float_blocks(const AxisDesigns& filters, PixelFormat format) {
  return block_precision(filters, format).float_blocks;
}

std::unique_ptr<FrameFilter> make_direct_form_filter(const AxisDesigns& filters, Extension ext,
                                                     int width, int height, PixelFormat format,
                                                     DirectAlgorithm algorithm, double cval,
                                                     int frames) {
  return std::make_unique<DirectFormFilter>(filters, ext, cval, width, height, format, algorithm,
                                            frames);
}

}  // namespace rf::cuda
