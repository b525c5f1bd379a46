// The overlapped block-parallel recursive filter (Nehab et al. 2011, algorithm 4 structure per
// dimension: eqs. 15-17, 24, 25-27, 34-36) with exact boundary seeds (Nehab & Maximo 2016), and
// the one-thread-per-line RT baseline. Device helpers, then kernels, then host launchers.
#include "filters/cuda/recursive_cuda.cuh"

#include "filters/cuda/cuda_check.cuh"

namespace rf::cuda {
namespace {

// Block carries and boundary seeds are kept in double: a float prologue perturbs the block's free
// response by far more than one ulp when the poles are close to the unit circle (large sigma).

// Warps per CTA: each warp owns 32 lines x kBlock samples; 4 channels need 4x the registers and
// shared memory per warp.
template <int C>
constexpr int kWarps = C == 1 ? 4 : 2;

template <int R, class T>
__device__ __forceinline__ Coeffs<R, T> coeffs_of(T b0, const T* a) {
  Coeffs<R, T> f;
  f.b0 = b0;
#pragma unroll
  for (int k = 0; k < R; ++k) f.a[k] = a[k];
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

// Pass step 1: the incomplete prologue P_m(y-bar) (eq. 17) and the twice-incomplete epilogue
// E_m(z-hat) (eq. 35-36) of every block, in parallel; the first and last blocks of each line also
// compute the extension's part of the boundary seeds.
template <int R, int C>
__global__ void __launch_bounds__(32 * kWarps<C>) block_carries_kernel(const PassArgs a) {
  const int line = blockIdx.x * 32 + threadIdx.x;
  const int s = blockIdx.y * kWarps<C> + threadIdx.y;
  if (s >= a.nb || line >= a.lines) return;
  const int base = s * kBlock;
  const int len = min(kBlock, a.n - base);
  const Coeffs<R, double> f = coeffs_of<R>(a.b0, a.a);

  Vec<C> v[kBlock];
  load_block<C>(a.src, line, base, len, v);
  Vec<C, double> w[R];
#pragma unroll
  for (int k = 0; k < R; ++k) w[k] = zero_vec<C, double>();
  if (len == kBlock)
    causal_block<R, C, true>(f, v, w, len);
  else
    causal_block<R, C, false>(f, v, w, len);
#pragma unroll
  for (int k = 0; k < R; ++k) *carry_ptr<C, double>(a.pbar, s, k, R, a.lines, line) = w[k];

  if (!a.causal_only) {
#pragma unroll
    for (int k = 0; k < R; ++k) w[k] = zero_vec<C, double>();
    if (len == kBlock)
      anticausal_block<R, C, true>(f, v, w, len);
    else
      anticausal_block<R, C, false>(f, v, w, len);
#pragma unroll
    for (int k = 0; k < R; ++k) *carry_ptr<C, double>(a.ebar, s, k, R, a.lines, line) = w[k];
  }

  if (a.pad > 0 && (s == 0 || s == a.nb - 1)) {
    auto load = [&](int j) { return read<C>(a.src, line, j); };
    Vec<C, double> seed[R];
    if (s == 0) {
      causal_seed<R, C>(f, a.ext, a.n, a.pad, load, seed);
#pragma unroll
      for (int k = 0; k < R; ++k) *carry_ptr<C, double>(a.pseed, 0, k, R, a.lines, line) = seed[k];
    }
    if (s == a.nb - 1 && !a.causal_only) {
      anticausal_seed_from_tail<R, C>(f, a.ext, a.n, a.pad, a.g, load, seed);
#pragma unroll
      for (int k = 0; k < R; ++k) *carry_ptr<C, double>(a.eseed, 0, k, R, a.lines, line) = seed[k];
    }
  }
}

// Pass step 2, one thread per line, in double: complete the prologues front to back, eq. (24),
// then the epilogues back to front, eq. (34), starting from the exact boundary seeds.
template <int R, int C>
__global__ void __launch_bounds__(128) carries_kernel(const PassArgs a) {
  const int line = blockIdx.x * blockDim.x + threadIdx.x;
  if (line >= a.lines) return;
  double T[R][R], Tl[R][R];
  matrix_of<R>(a.T, T);
  matrix_of<R>(a.Tl, Tl);

  Vec<C, double> p[R];
#pragma unroll
  for (int k = 0; k < R; ++k)
    p[k] =
        a.pad > 0 ? *carry_ptr<C, double>(a.pseed, 0, k, R, a.lines, line) : zero_vec<C, double>();
  for (int s = 0; s < a.nb; ++s) {
    Vec<C, double> next[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
      *carry_ptr<C, double>(a.pst, s, k, R, a.lines, line) = p[k];
      next[k] = *carry_ptr<C, double>(a.pbar, s, k, R, a.lines, line);
    }
    if (s == a.nb - 1)
      mat_vec_add<R, C>(Tl, p, next);
    else
      mat_vec_add<R, C>(T, p, next);
#pragma unroll
    for (int k = 0; k < R; ++k) p[k] = next[k];
  }
  if (a.causal_only) return;

  // p is now the causal state (y_{n-1}, ..., y_{n-r}) at the end of the line.
  Vec<C, double> e[R];
#pragma unroll
  for (int k = 0; k < R; ++k)
    e[k] =
        a.pad > 0 ? *carry_ptr<C, double>(a.eseed, 0, k, R, a.lines, line) : zero_vec<C, double>();
  if (a.ext != Extension::Ignore) {
    double N[R][R];
    matrix_of<R>(a.N, N);
    mat_vec_add<R, C>(N, p, e);
  }
  double M[R][R], U[R][R];
  matrix_of<R>(a.M, M);
  matrix_of<R>(a.U, U);
  for (int s = a.nb - 1; s >= 0; --s) {
    const bool last = s == a.nb - 1;
    Vec<C, double> next[R], ps[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
      *carry_ptr<C, double>(a.est, s, k, R, a.lines, line) = e[k];
      next[k] = *carry_ptr<C, double>(a.ebar, s, k, R, a.lines, line);
      ps[k] = *carry_ptr<C, double>(a.pst, s, k, R, a.lines, line);
    }
    if (last) {
      double Ml[R][R], Ul[R][R];
      matrix_of<R>(a.Ml, Ml);
      matrix_of<R>(a.Ul, Ul);
      mat_vec_add<R, C>(Ml, ps, next);
      mat_vec_add<R, C>(Ul, e, next);
    } else {
      mat_vec_add<R, C>(M, ps, next);
      mat_vec_add<R, C>(U, e, next);
    }
#pragma unroll
    for (int k = 0; k < R; ++k) e[k] = next[k];
  }
}

// Pass step 3: filter every block from its completed prologue and epilogue (eqs. 15 and 25) and
// write it transposed through a shared-memory tile, so stores stay coalesced.
template <int R, int C>
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
  const Coeffs<R, double> f = coeffs_of<R>(a.b0, a.a);

  Vec<C> v[kBlock];
  Vec<C, double> w[R];
  if (active) {
    load_block<C>(a.src, line, base, len, v);
#pragma unroll
    for (int k = 0; k < R; ++k) w[k] = *carry_ptr<C, double>(a.pst, s, k, R, a.lines, line);
    if (len == kBlock)
      causal_block<R, C, true>(f, v, w, len);
    else
      causal_block<R, C, false>(f, v, w, len);
    if (!a.causal_only) {
#pragma unroll
      for (int k = 0; k < R; ++k) w[k] = *carry_ptr<C, double>(a.est, s, k, R, a.lines, line);
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
  if (lane < len) {
    const int lines_here = min(32, a.lines - l0);
    for (int j = 0; j < lines_here; ++j) write<C>(a.dst, base + lane, l0 + j, t[j][lane]);
  }
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

template <int R, int C>
void overlapped_pass(const PassArgs& a, cudaStream_t stream) {
  const dim3 block(32, kWarps<C>);
  const dim3 grid((a.lines + 31) / 32, (a.nb + kWarps<C> - 1) / kWarps<C>);
  block_carries_kernel<R, C><<<grid, block, 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
  carries_kernel<R, C><<<(a.lines + 127) / 128, 128, 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
  block_output_kernel<R, C><<<grid, block, 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}

template <int R, int C>
void rt_pass(const PassArgs& a, const Io& tmp, bool rows, cudaStream_t stream) {
  rt_kernel<R, C><<<(a.lines + 127) / 128, 128, 0, stream>>>(a, tmp, rows);
  CUDA_CHECK_LAUNCH();
}

using OverlappedFn = void (*)(const PassArgs&, cudaStream_t);
using RtFn = void (*)(const PassArgs&, const Io&, bool, cudaStream_t);

template <int C>
constexpr OverlappedFn kOverlapped[kMaxOrder] = {overlapped_pass<1, C>, overlapped_pass<2, C>,
                                                 overlapped_pass<3, C>, overlapped_pass<4, C>,
                                                 overlapped_pass<5, C>};
template <int C>
constexpr RtFn kRt[kMaxOrder] = {rt_pass<1, C>, rt_pass<2, C>, rt_pass<3, C>, rt_pass<4, C>,
                                 rt_pass<5, C>};

}  // namespace

void launch_overlapped_pass(int order, int channels, const PassArgs& args, cudaStream_t stream) {
  (channels == 1 ? kOverlapped<1> : kOverlapped<4>)[order - 1](args, stream);
}

void launch_rt_pass(int order, int channels, const PassArgs& args, const Io& tmp, bool rows,
                    cudaStream_t stream) {
  (channels == 1 ? kRt<1> : kRt<4>)[order - 1](args, tmp, rows, stream);
}

}  // namespace rf::cuda
