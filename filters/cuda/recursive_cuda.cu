// The overlapped block-parallel recursive filter (Nehab et al. 2011, algorithm 4 structure per
// dimension: eqs. 15-17, 24, 25-27, 34-36) with exact boundary seeds (Nehab & Maximo 2016), and
// the one-thread-per-line RT baseline. Device helpers, then kernels, then host launchers.
#include "filters/cuda/recursive_cuda.cuh"

#include "filters/cuda/cuda_check.cuh"

namespace rf::cuda {
namespace {

// Block carries are computed in double and stored as P: float when the filter is well
// conditioned, double when a float prologue would perturb the block's free response by far more
// than one ulp (poles close to the unit circle, large sigma: see PassArgs::double_carries).

// Warps per CTA: each warp owns 32 lines x kBlock samples; 4 channels need 4x the registers and
// shared memory per warp.
template <int C>
constexpr int kWarps = C == 1 ? 4 : 2;

// The coefficients as the block recursions use them: S is the window type (see causal_block).
template <int R, class S = double>
__device__ __forceinline__ Coeffs<R, S> coeffs_of(double b0, const double* a) {
  Coeffs<R, S> f;
  f.b0 = S(b0);
#pragma unroll
  for (int k = 0; k < R; ++k) f.a[k] = S(a[k]);
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

// Carries are stored as P (float or double, see PassArgs::double_carries) and used in double.
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

// Loads samples [base, base + len) of column `line` of src; zeros past len.
template <int C>
__device__ __forceinline__ void load_block(const Io& src, int line, int base, int len,
                                           Vec<C> (&v)[kBlock]) {
  with_reader<C>(src, [&](auto rd) {
#pragma unroll
    for (int i = 0; i < kBlock; ++i) v[i] = i < len ? rd(line, base + i) : zero_vec<C>();
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
// its carries from the column pass's output step).
template <int R, int C, class P, class S>
__global__ void __launch_bounds__(32 * kWarps<C>) block_carries_kernel(const PassArgs a) {
  const int line = blockIdx.x * 32 + threadIdx.x;
  const int s = blockIdx.y * kWarps<C> + threadIdx.y;
  if (s >= a.nb || line >= a.lines) return;
  const int base = s * kBlock;
  const int len = min(kBlock, a.n - base);
  Vec<C> v[kBlock];
  load_block<C>(a.src, line, base, len, v);
  store_block_carries<R, C, P>(coeffs_of<R, S>(a.b0, a.a), v, len, a.causal_only, a.pbar, a.ebar, s,
                               a.lines, line);
}

// Carry completion runs kGroups warps per 32 lines: each warp owns a contiguous run of blocks, so
// the serial chain of eq. (24) per thread is kGroups times shorter and kGroups times more warps
// hide the memory latency; the runs are stitched through shared memory with T^m (and U^m).
constexpr int kGroups = kCarryGroups;

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
template <int R, int C>
__device__ __forceinline__ void sum_over_groups(Vec<C, double> (&share)[kGroups][R][32],
                                                Vec<C, double> (&v)[R]) {
#pragma unroll
  for (int k = 0; k < R; ++k) share[threadIdx.y][k][threadIdx.x] = v[k];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < R; ++k) {
    v[k] = zero_vec<C, double>();
    for (int g = 0; g < kGroups; ++g) fma_into(v[k], 1.0, share[g][k][threadIdx.x]);
  }
  __syncthreads();
}

// State entering this warp's run: `first` folded through the runs of the warps before it, each
// run's zero-start end state `q` taken from shared memory (x_{j+1} = A^m x_j + q_j).
template <int R, int C>
__device__ __forceinline__ void stitch_runs(Vec<C, double> (&share)[kGroups][R][32],
                                            const double* power, const Vec<C, double> (&q)[R],
                                            Vec<C, double> (&state)[R]) {
#pragma unroll
  for (int k = 0; k < R; ++k) share[threadIdx.y][k][threadIdx.x] = q[k];
  __syncthreads();
  for (int g = 0; g < int(threadIdx.y); ++g) {
    Vec<C, double> next[R];
#pragma unroll
    for (int k = 0; k < R; ++k) next[k] = share[g][k][threadIdx.x];
    affine<R, C>(power, state, next);
#pragma unroll
    for (int k = 0; k < R; ++k) state[k] = next[k];
  }
  __syncthreads();
}

// Pass step 2, in double: the exact boundary seeds (Nehab & Maximo 2016) as dot products with
// the extension's samples, then the prologues completed front to back, eq. (24), and the
// epilogues back to front, eq. (34). The last (possibly partial) block is handled apart.
template <int R, int C, class P>
__global__ void __launch_bounds__(32 * kGroups) carries_kernel(const PassArgs a) {
  __shared__ Vec<C, double> share[kGroups][R][32];
  const int lane = threadIdx.x, group = threadIdx.y;
  const int line = min(int(blockIdx.x) * 32 + lane, a.lines - 1);  // duplicates write alike
  const int last = a.nb - 1;                                       // full blocks: [0, last)
  const int m = (last + kGroups - 1) / kGroups;
  const int s0 = min(group * m, last), s1 = min(s0 + m, last);
  auto ld = [&](void* base, int s, int k) {
    return load_carry<C, P>(base, s, k, R, a.lines, line);
  };
  auto st = [&](void* base, int s, int k, const Vec<C, double>& v) {
    store_carry<C, P>(base, s, k, R, a.lines, line, v);
  };
  // Visits the extension samples of terms [0, count) split over the warps, loading a batch of
  // them before using any: this loop is on the kernel's critical path, so the loads must overlap.
  auto seed_dot = [&](int count, auto position, auto use) {
    constexpr int kBatch = 4;
    for (int base = group; base < count; base += kGroups * kBatch) {
      Vec<C> x[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        const int i = base + u * kGroups;
        const int j = i < count ? extend_index(position(i), a.n, a.ext) : -1;
        x[u] = j < 0 ? zero_vec<C>() : read<C>(a.src, line, j);
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (base + u * kGroups < count) use(base + u * kGroups, convert<double>(x[u]));
    }
  };

  // Causal seed y_{-1-k} = sum_{i>=k} g_{i-k} x(-1-i), split over the warps.
  Vec<C, double> p[R];
#pragma unroll
  for (int k = 0; k < R; ++k) p[k] = zero_vec<C, double>();
  if (a.pad > 0) {
    seed_dot(
        a.pad + R - 1, [&](int i) { return -1 - i; },
        [&](int i, const Vec<C, double>& x) {
#pragma unroll
          for (int k = 0; k < R; ++k)
            if (i >= k) fma_into(p[k], a.g[i - k], x);
        });
    sum_over_groups<R, C>(share, p);
  }

  // Prologues, eq. (24): each run from zero, stitched, then again from its true start.
  Vec<C, double> q[R];
#pragma unroll
  for (int k = 0; k < R; ++k) q[k] = zero_vec<C, double>();
  for (int s = s0; s < s1; ++s) {
    Vec<C, double> next[R];
#pragma unroll
    for (int k = 0; k < R; ++k) next[k] = ld(a.pbar, s, k);
    affine<R, C>(a.T, q, next);
#pragma unroll
    for (int k = 0; k < R; ++k) q[k] = next[k];
  }
  stitch_runs<R, C>(share, a.Tm, q, p);
  for (int s = s0; s < s1; ++s) {
    Vec<C, double> next[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
      st(a.pst, s, k, p[k]);
      next[k] = ld(a.pbar, s, k);
    }
    affine<R, C>(a.T, p, next);
#pragma unroll
    for (int k = 0; k < R; ++k) p[k] = next[k];
  }
  // The warp whose run ends the full blocks (warp 0 when there are none) holds p_last.
  const bool owner = last == 0 ? group == 0 : (s0 < s1 && s1 == last);
  if (owner) {
#pragma unroll
    for (int k = 0; k < R; ++k) {
      st(a.pst, last, k, p[k]);
      share[0][k][lane] = p[k];
    }
  }
  __syncthreads();
  Vec<C, double> p_last[R];
#pragma unroll
  for (int k = 0; k < R; ++k) p_last[k] = share[0][k][lane];
  __syncthreads();
  if (a.causal_only) return;

  // The causal state (y_{n-1}, ..., y_{n-r}) at the end of the line.
  Vec<C, double> p_end[R];
#pragma unroll
  for (int k = 0; k < R; ++k) p_end[k] = ld(a.pbar, last, k);
  affine<R, C>(a.Tl, p_last, p_end);

  // Anticausal seed: the extension's samples beyond the line through the autocorrelation of g,
  // z_{n+m} = sum_t A(|t - m|) x(n + t), plus N times the causal end state.
  Vec<C, double> e[R];
#pragma unroll
  for (int k = 0; k < R; ++k) e[k] = zero_vec<C, double>();
  if (a.pad > 0) {
    seed_dot(
        a.pad + R, [&](int t) { return a.n + t; },
        [&](int t, const Vec<C, double>& x) {
#pragma unroll
          for (int k = 0; k < R; ++k) fma_into(e[k], a.acorr[t > k ? t - k : k - t], x);
        });
    sum_over_groups<R, C>(share, e);
  }
  if (a.ext != Extension::Ignore) affine<R, C>(a.N, p_end, e);

  // The last block, then epilogues of the full blocks, eq. (34), runs taken from the end.
  Vec<C, double> e_full[R];
#pragma unroll
  for (int k = 0; k < R; ++k) {
    if (group == 0) st(a.est, last, k, e[k]);
    e_full[k] = ld(a.ebar, last, k);
  }
  affine<R, C>(a.Ml, p_last, e_full);
  affine<R, C>(a.Ul, e, e_full);

  auto block_term = [&](int s, Vec<C, double>(&c)[R]) {
    Vec<C, double> ps[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
      c[k] = ld(a.ebar, s, k);
      ps[k] = ld(a.pst, s, k);
    }
    affine<R, C>(a.M, ps, c);
  };
  const int t0 = s0, t1 = s1;  // run [t0, t1) counted from block last - 1 downwards
#pragma unroll
  for (int k = 0; k < R; ++k) q[k] = zero_vec<C, double>();
  for (int t = t0; t < t1; ++t) {
    Vec<C, double> next[R];
    block_term(last - 1 - t, next);
    affine<R, C>(a.U, q, next);
#pragma unroll
    for (int k = 0; k < R; ++k) q[k] = next[k];
  }
  stitch_runs<R, C>(share, a.Um, q, e_full);
  for (int t = t0; t < t1; ++t) {
    const int s = last - 1 - t;
    Vec<C, double> next[R];
#pragma unroll
    for (int k = 0; k < R; ++k) st(a.est, s, k, e_full[k]);
    block_term(s, next);
    affine<R, C>(a.U, e_full, next);
#pragma unroll
    for (int k = 0; k < R; ++k) e_full[k] = next[k];
  }
}

// Pass step 3: filter every block from its completed prologue and epilogue (eqs. 15 and 25) and
// write it transposed through a shared-memory tile, so stores stay coalesced. In the column pass
// the tile also yields the row pass's block carries (step 1 of the row pass, fused).
template <int R, int C, class P, class S>
__global__ void __launch_bounds__(32 * kWarps<C>) block_output_kernel(const PassArgs a) {
  __shared__ Vec<C> tile[kWarps<C>][32][kBlock + 1];
  const int lane = threadIdx.x;
  const int l0 = blockIdx.x * 32;
  const int line = l0 + lane;
  const int s = blockIdx.y * kWarps<C> + threadIdx.y;
  if (s >= a.nb) return;  // uniform per warp
  const int base = s * kBlock;
  const int len = min(kBlock, a.n - base);
  const bool active = line < a.lines;
  const Coeffs<R, S> f = coeffs_of<R, S>(a.b0, a.a);

  Vec<C> v[kBlock];
  Vec<C, S> w[R];
  if (active) {
    load_block<C>(a.src, line, base, len, v);
#pragma unroll
    for (int k = 0; k < R; ++k) w[k] = convert<S>(load_carry<C, P>(a.pst, s, k, R, a.lines, line));
    if (len == kBlock)
      causal_block<R, C, true>(f, v, w, len);
    else
      causal_block<R, C, false>(f, v, w, len);
    if (!a.causal_only) {
#pragma unroll
      for (int k = 0; k < R; ++k)
        w[k] = convert<S>(load_carry<C, P>(a.est, s, k, R, a.lines, line));
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
  const int lines_here = min(32, a.lines - l0);
  if (lane >= len) return;
  for (int j = 0; j < lines_here; ++j) write<C>(a.dst, base + lane, l0 + j, t[j][lane]);
  if (!a.next_pbar) return;
    // The same 32 x 32 tile, read along dst's rows, is block blockIdx.x of row base + lane of the
    // next pass: its block carries come from here instead of a second read of dst.
#pragma unroll
  for (int j = 0; j < kBlock; ++j) v[j] = j < lines_here ? t[j][lane] : zero_vec<C>();
  store_block_carries<R, C, P>(f, v, lines_here, a.causal_only, a.next_pbar, a.next_ebar,
                               blockIdx.x, a.n, base + lane);
}

// Ruijters-Thevenaz: one thread per line, causal then anticausal, the same exact seeds.
template <int R, int C>
__global__ void __launch_bounds__(128) rt_kernel(const PassArgs a, const Io tmp, bool rows) {
  const int line = blockIdx.x * blockDim.x + threadIdx.x;
  if (line >= a.lines) return;
  const int n = a.n;
  auto x_of = [&](int pos) { return rows ? pos : line; };
  auto y_of = [&](int pos) { return rows ? line : pos; };
  auto load = [&](int j) { return read<C>(a.src, x_of(j), y_of(j)); };
  const Coeffs<R, double> f = coeffs_of<R>(a.b0, a.a);

  Vec<C, double> w[R];
  causal_seed<R, C>(f, a.ext, n, a.pad, load, w);
  const Io& causal_out = a.causal_only ? a.dst : tmp;
  for (int i = 0; i < n; ++i) write<C>(causal_out, x_of(i), y_of(i), recursion_step(f, load(i), w));
  if (a.causal_only) return;

  Vec<C, double> e[R];
  anticausal_seed_from_tail<R, C>(f, a.ext, n, a.pad, a.g, load, e);
  if (a.ext != Extension::Ignore) {
    double N[R][R];
    matrix_of<R>(a.N, N);
    mat_vec_add<R, C>(N, w, e);
  }
#pragma unroll
  for (int k = 0; k < R; ++k) w[k] = e[k];
  for (int i = n - 1; i >= 0; --i)
    write<C>(a.dst, x_of(i), y_of(i), recursion_step(f, read<C>(tmp, x_of(i), y_of(i)), w));
}

// ---------------------------------------------------------------------------------------------
// Host launchers

template <int R, int C, class P, class S>
void overlapped_pass(const PassArgs& a, bool block_carries, cudaStream_t stream) {
  const dim3 block(32, kWarps<C>);
  const dim3 grid((a.lines + 31) / 32, (a.nb + kWarps<C> - 1) / kWarps<C>);
  if (block_carries) {
    block_carries_kernel<R, C, P, S><<<grid, block, 0, stream>>>(a);
    CUDA_CHECK_LAUNCH();
  }
  carries_kernel<R, C, P><<<(a.lines + 31) / 32, dim3(32, kGroups), 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
  block_output_kernel<R, C, P, S><<<grid, block, 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}

template <int R, int C>
void rt_pass(const PassArgs& a, const Io& tmp, bool rows, cudaStream_t stream) {
  rt_kernel<R, C><<<(a.lines + 127) / 128, 128, 0, stream>>>(a, tmp, rows);
  CUDA_CHECK_LAUNCH();
}

using OverlappedFn = void (*)(const PassArgs&, bool, cudaStream_t);
using RtFn = void (*)(const PassArgs&, const Io&, bool, cudaStream_t);

template <int C, class P, class S = double>
constexpr OverlappedFn kOverlapped[kMaxOrder] = {
    overlapped_pass<1, C, P, S>, overlapped_pass<2, C, P, S>, overlapped_pass<3, C, P, S>,
    overlapped_pass<4, C, P, S>, overlapped_pass<5, C, P, S>};
template <int C>
constexpr RtFn kRt[kMaxOrder] = {rt_pass<1, C>, rt_pass<2, C>, rt_pass<3, C>, rt_pass<4, C>,
                                 rt_pass<5, C>};

}  // namespace

void launch_overlapped_pass(int order, int channels, const PassArgs& args, bool block_carries,
                            cudaStream_t stream) {
  const OverlappedFn* table =
      args.double_carries ? (channels == 1 ? kOverlapped<1, double> : kOverlapped<4, double>)
      : channels == 1     ? kOverlapped<1, float>
      : args.float_blocks ? kOverlapped<4, float, float>
                          : kOverlapped<4, float>;
  table[order - 1](args, block_carries, stream);
}

void launch_rt_pass(int order, int channels, const PassArgs& args, const Io& tmp, bool rows,
                    cudaStream_t stream) {
  (channels == 1 ? kRt<1> : kRt<4>)[order - 1](args, tmp, rows, stream);
}

}  // namespace rf::cuda
