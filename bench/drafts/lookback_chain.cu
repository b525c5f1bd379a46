// A measurement draft, not part of the library: what finishing the causal column carries inside
// the block kernel costs, by a decoupled look-back down each column of blocks (the single-pass
// scans' method), against the same kernel with no dependency between blocks. The GPU engine's
// issue asks for carries completed inside the block kernels; this times the chain alone.
//
// Each CTA is one 32 x 32 block (a lane per column): it takes a ticket (row-major, so that every
// block above it was handed out before it), reads its block, runs R first-order modes down each
// column from zero (the block's incomplete causal carries, Nehab et al. 2011 eq. 24 in mode
// states: P = Pbar + D P_above, D = diag(p^32)), publishes them, and then completes them:
//   independent: publishes Pbar and stops (no dependency: the floor of the kernel),
//   chained:     waits for the complete carries of the block above, then publishes its own,
//   look-back:   publishes Pbar at once, then walks up the column adding D^j Pbar_{r-j} until it
//                meets a complete carry, D^m P_{r-m}, and publishes P. A block's status is one
//                flag behind a fence (__threadfence) after its carries,
//   flagged/W:   the same walk, but every carry is published as one 64-bit word holding the value
//                and its flag (partial or complete, and the launch's epoch), so that a reader
//                that sees the flag sees the value: no fence, no status word, and each (lane,
//                mode) walks on its own; W words up the column are loaded at once,
//   stripS/8:    S blocks down a column a CTA (a warp each), one flagged look-back a strip,
//   2-D/W:       a carries-only kernel with two flagged chains, down the columns and then along
//                the rows (wavefront_kernel).
// The complete carries are checked against a serial scan in double.
//
// Build: the CMake target lookback_chain_draft (CUDA_ARCHITECTURES 90), or
//        nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/drafts/lookback_chain.cu -o lookback_chain_draft
// Run:   lookback_chain_draft [--json FILE]    (1024^2, 2048^2 and 4096^2 frames, R = 1, 3, 5)
// Record: docs/bench/lookback-chain-h200.json (docs/bench/README.md, "Carries down a column of
// blocks").
#include <cuda_runtime.h>
#include <cuda/atomic>

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
constexpr int kMaxR = 5;

enum Mode { kIndependent = 0, kChained = 1, kLookBack = 2 };

struct Poles {
  float p[kMaxR];  // the modes' poles
  float d[kMaxR];  // p^32: a block's transfer
};

// Block (r, c)'s own causal carries in this lane's column: its 32 samples read, then R modes run
// down them from zero.
template <int R>
__device__ __forceinline__ void own_carries(const float* __restrict__ x, int width, int r, int c,
                                            const Poles& poles, float (&s)[R]) {
  const int lane = threadIdx.x;
  float v[kBlock];
  const float* col = x + std::size_t(r) * kBlock * width + c * kBlock + lane;
#pragma unroll
  for (int i = 0; i < kBlock; ++i) v[i] = col[std::size_t(i) * width];
#pragma unroll
  for (int k = 0; k < R; ++k) {
    float acc = 0.f;
#pragma unroll
    for (int i = 0; i < kBlock; ++i) acc = fmaf(poles.p[k], acc, v[i]);
    s[k] = acc;
  }
}

// status[block]: 0 nothing yet, 1 Pbar published, 2 P published. Carries [block][k][lane].
template <int R, int kMode>
__global__ void __launch_bounds__(32)
    chain_kernel(const float* __restrict__ x, int width, int height, Poles poles,
                 unsigned* __restrict__ ticket, int* status, float* pbar, float* pfull) {
  __shared__ unsigned s_ticket;
  const int lane = threadIdx.x;
  if (lane == 0) s_ticket = atomicAdd(ticket, 1u);
  __syncwarp();
  const unsigned t = s_ticket;
  const int cols = width / kBlock, r = int(t / cols), c = int(t % cols);
  float s[R];  // the block's column from zero: its incomplete causal carries
  own_carries<R>(x, width, r, c, poles, s);
  const int self = r * cols + c;
  auto publish = [&](float* dst, const float(&val)[R], int flag) {
#pragma unroll
    for (int k = 0; k < R; ++k) dst[(std::size_t(self) * R + k) * 32 + lane] = val[k];
    __threadfence();
    __syncwarp();
    if (lane == 0) atomicExch(&status[self], flag);
  };
  auto wait_for = [&](int block, int at_least) {
    int f = 0;
    if (lane == 0)
      while ((f = atomicAdd(&status[block], 0)) < at_least) {
      }
    f = __shfl_sync(0xffffffffu, f, 0);
    __threadfence();
    return f;
  };
  if (kMode == kIndependent || r == 0) {
    publish(kMode == kIndependent ? pbar : pfull, s, 2);
    return;
  }
  float acc[R];
  if (kMode == kChained) {
    wait_for(self - cols, 2);
#pragma unroll
    for (int k = 0; k < R; ++k)
      acc[k] =
          fmaf(poles.d[k], __ldcg(&pfull[(std::size_t(self - cols) * R + k) * 32 + lane]), s[k]);
  } else {
    publish(pbar, s, 1);
    float scale[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
      acc[k] = s[k];
      scale[k] = poles.d[k];
    }
    for (int j = r - 1;; --j) {
      const int b = j * cols + c;
      const int f = wait_for(b, 1);
      const float* src = f == 2 ? pfull : pbar;
#pragma unroll
      for (int k = 0; k < R; ++k) {
        acc[k] = fmaf(scale[k], __ldcg(&src[(std::size_t(b) * R + k) * 32 + lane]), acc[k]);
        scale[k] *= poles.d[k];
      }
      if (f == 2 || j == 0) break;  // row 0 publishes its complete carries only
    }
  }
  publish(pfull, acc, 2);
}

// A carry and its flag in one word: flag 2 * epoch + 1 for a block's own (partial) carry, 2 * epoch
// + 2 for a complete one; older epochs read as not yet published.
__device__ __forceinline__ unsigned long long pack(float v, unsigned flag) {
  return (static_cast<unsigned long long>(flag) << 32) | __float_as_uint(v);
}
__device__ __forceinline__ void put_word(unsigned long long* w, unsigned long long v) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*w).store(
      v, cuda::std::memory_order_relaxed);
}
__device__ __forceinline__ unsigned long long get_word(unsigned long long* w) {
  return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*w).load(
      cuda::std::memory_order_relaxed);
}

// The complete carries just before a block along its chain: its predecessors' carries, the m-th
// (m = 1 .. count) at word(m, k), summed back as x = sum_m D^(m-1) carry_m until a complete one (or
// the chain's first block) is added. W of them are loaded at once; each (lane, mode) walks alone.
template <int R, int W, class Word>
__device__ __forceinline__ void walk(Word word, int count, unsigned epoch, const float* d,
                                     float (&x)[R]) {
  const unsigned partial = 2 * epoch + 1, complete = 2 * epoch + 2;
  float scale[R];
  bool done[R];
#pragma unroll
  for (int k = 0; k < R; ++k) {
    x[k] = 0.f;
    scale[k] = 1.f;
    done[k] = false;
  }
  for (int m = 1; m <= count; m += W) {
    unsigned long long got[W][R];
#pragma unroll
    for (int i = 0; i < W; ++i)
#pragma unroll
      for (int k = 0; k < R; ++k)
        got[i][k] = m + i <= count && !done[k] ? get_word(word(m + i, k)) : 0ull;
#pragma unroll
    for (int i = 0; i < W; ++i)
#pragma unroll
      for (int k = 0; k < R; ++k) {
        if (done[k] || m + i > count) continue;
        unsigned long long g = got[i][k];
        while (unsigned(g >> 32) < partial) g = get_word(word(m + i, k));
        x[k] = fmaf(scale[k], __uint_as_float(unsigned(g)), x[k]);
        scale[k] *= d[k];
        done[k] = unsigned(g >> 32) == complete;
      }
    bool all = true;
#pragma unroll
    for (int k = 0; k < R; ++k) all = all && done[k];
    if (all) break;
  }
}

// Publishes a block's own carries as partial (the chain's first block: complete), completes them
// (P = Pbar + D P_before) and publishes them complete; `before` gets P_before.
template <int R, int W, class Word>
__device__ __forceinline__ void chain_words(Word word, int count, unsigned epoch, const float* d,
                                            float (&acc)[R], float (&before)[R]) {
#pragma unroll
  for (int k = 0; k < R; ++k) {
    put_word(word(0, k), pack(acc[k], 2 * epoch + (count == 0 ? 2 : 1)));
    before[k] = 0.f;
  }
  if (count == 0) return;
  walk<R, W>(word, count, epoch, d, before);
#pragma unroll
  for (int k = 0; k < R; ++k) {
    acc[k] = fmaf(d[k], before[k], acc[k]);
    put_word(word(0, k), pack(acc[k], 2 * epoch + 2));
  }
}

template <int R, int W>
__global__ void __launch_bounds__(32)
    flagged_kernel(const float* __restrict__ x, int width, int height, Poles poles,
                   unsigned* __restrict__ ticket, unsigned epoch, unsigned long long* words) {
  __shared__ unsigned s_ticket;
  const int lane = threadIdx.x;
  if (lane == 0) s_ticket = atomicAdd(ticket, 1u);
  __syncwarp();
  const unsigned t = s_ticket;
  const int cols = width / kBlock, r = int(t / cols), c = int(t % cols);
  float s[R];
  own_carries<R>(x, width, r, c, poles, s);
  // The m-th block up the column.
  auto word = [&](int m, int k) {
    return words + (std::size_t((r - m) * cols + c) * R + k) * 32 + lane;
  };
  float before[R];
  chain_words<R, W>(word, r, epoch, poles.d, s, before);
}

// S blocks down a column a CTA (a warp each, as the perimeters kernel holds four one-channel
// blocks): the strip's own carries combined in shared memory, one look-back per strip (its
// transfer D^S), and each block's complete carries from the strip's: the chain has 1/S the hops.
// kChain false: the strip's blocks from zero alone, no look-back (the floor of this kernel).
template <int R, int W, int S, bool kChain = true>
__global__ void __launch_bounds__(32 * S)
    strip_kernel(const float* __restrict__ x, int width, int height, Poles poles,
                 unsigned* __restrict__ ticket, unsigned epoch, unsigned long long* words,
                 float* __restrict__ out) {
  __shared__ unsigned s_ticket;
  __shared__ float own[S][R][32];
  __shared__ float above[R][32];
  const int lane = threadIdx.x, w = threadIdx.y;
  if (lane == 0 && w == 0) s_ticket = atomicAdd(ticket, 1u);
  __syncthreads();
  const unsigned t = s_ticket;
  const int cols = width / kBlock, sr = int(t / cols), c = int(t % cols), r = sr * S + w;
  // Each block's own carries straight into shared memory (own_carries' loop, written out: through
  // it the strip kernels compiled to other code than the one measured).
  float v[kBlock];
  const float* col = x + std::size_t(r) * kBlock * width + c * kBlock + lane;
#pragma unroll
  for (int i = 0; i < kBlock; ++i) v[i] = col[std::size_t(i) * width];
#pragma unroll
  for (int k = 0; k < R; ++k) {
    float acc = 0.f;
#pragma unroll
    for (int i = 0; i < kBlock; ++i) acc = fmaf(poles.p[k], acc, v[i]);
    own[w][k][lane] = acc;
  }
  __syncthreads();
  if (w == 0) {
    float pre[R], ds[R], before[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
      pre[k] = own[0][k][lane];
      ds[k] = poles.d[k];
    }
    for (int b = 1; b < S; ++b)
#pragma unroll
      for (int k = 0; k < R; ++k) {
        pre[k] = fmaf(poles.d[k], pre[k], own[b][k][lane]);  // within the strip, from zero
        ds[k] *= poles.d[k];
      }
    auto word = [&](int m, int k) {
      return words + (std::size_t((sr - m) * cols + c) * R + k) * 32 + lane;
    };
    if (kChain)
      chain_words<R, W>(word, sr, epoch, ds, pre, before);
    else
      for (int k = 0; k < R; ++k) before[k] = 0.f;
#pragma unroll
    for (int k = 0; k < R; ++k) above[k][lane] = before[k];
  }
  __syncthreads();
  float p[R];
#pragma unroll
  for (int k = 0; k < R; ++k) {
    p[k] = above[k][lane];
    for (int b = 0; b <= w; ++b) p[k] = fmaf(poles.d[k], p[k], own[b][k][lane]);
    out[(std::size_t(r * cols + c) * R + k) * 32 + lane] = p[k];
  }
}

// A carries-only kernel's two chains, as the second of three kernels would run them (anticausal
// column carries bottom-up, then causal row carries left to right, from the complete column carries
// of the block): no image read, the blocks' own carries (cbar, rbar) from memory. Tickets run up
// the block rows from the last and along each from the left, so that both blocks a block waits for
// were handed out before it. The row chain's own carries stand in for stage 3's fix-up: each lane's
// row carry takes the mean of the block's 32 complete column carries (a sum over the block's lanes,
// as the fix-up's products are).
template <int R, int W>
__global__ void __launch_bounds__(32)
    wavefront_kernel(const float* __restrict__ cbar, const float* __restrict__ rbar, int cols,
                     int block_rows, Poles poles, unsigned* __restrict__ ticket, unsigned epoch,
                     unsigned long long* cwords, unsigned long long* rwords) {
  __shared__ unsigned s_ticket;
  const int lane = threadIdx.x;
  if (lane == 0) s_ticket = atomicAdd(ticket, 1u);
  __syncwarp();
  const unsigned t = s_ticket;
  const int r = block_rows - 1 - int(t / cols), c = int(t % cols);
  const std::size_t self = std::size_t(r) * cols + c;
  float col[R], row[R];
#pragma unroll
  for (int k = 0; k < R; ++k) {
    col[k] = cbar[(self * R + k) * 32 + lane];
    row[k] = rbar[(self * R + k) * 32 + lane];
  }
  auto below = [&](int m, int k) {
    return cwords + ((self + std::size_t(m) * cols) * R + k) * 32 + lane;
  };
  float before[R];
  chain_words<R, W>(below, block_rows - 1 - r, epoch, poles.d, col, before);
#pragma unroll
  for (int k = 0; k < R; ++k) {
    float sum = col[k];
#pragma unroll
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    row[k] = fmaf(sum, 1.f / 32, row[k]);
  }
  auto left = [&](int m, int k) { return rwords + ((self - m) * R + k) * 32 + lane; };
  chain_words<R, W>(left, c, epoch, poles.d, row, before);
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Row {
  int size, r;
  std::string mode;
  double ms, max_err, max_ref;
};

template <int R>
void run(int size, const float* dx, const std::vector<float>& hx, std::vector<Row>& rows) {
  const int cols = size / kBlock, blocks = cols * cols;
  Poles poles{};
  const double pd[kMaxR] = {0.78, 0.83, 0.88, 0.92, 0.95};  // the decays of a wide Gaussian's modes
  for (int k = 0; k < R; ++k) {
    poles.p[k] = float(pd[k]);
    poles.d[k] = float(std::pow(pd[k], kBlock));
  }
  unsigned* ticket;
  int* status;
  float *pbar, *pfull;
  CUDA_CHECK(cudaMalloc(&ticket, sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&status, sizeof(int) * blocks));
  CUDA_CHECK(cudaMalloc(&pbar, sizeof(float) * blocks * R * 32));
  CUDA_CHECK(cudaMalloc(&pfull, sizeof(float) * blocks * R * 32));
  // Serial reference: every column's state at the end of each block, in double.
  std::vector<double> ref(std::size_t(blocks) * R * 32);
  for (int x = 0; x < size; ++x)
    for (int k = 0; k < R; ++k) {
      double st = 0;
      for (int y = 0; y < size; ++y) {
        st = pd[k] * st + hx[std::size_t(y) * size + x];
        if (y % kBlock == kBlock - 1) {
          const int b = (y / kBlock) * cols + x / kBlock;
          ref[(std::size_t(b) * R + k) * 32 + x % kBlock] = st;
        }
      }
    }
  cudaEvent_t a, e;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&e));
  unsigned long long* words;
  CUDA_CHECK(cudaMalloc(&words, sizeof(unsigned long long) * blocks * R * 32));
  CUDA_CHECK(cudaMemset(words, 0, sizeof(unsigned long long) * blocks * R * 32));
  static unsigned epoch = 0;  // the flagged kernels' launches, so that no word needs clearing
  // Times `go` (one launch, after the ticket and status are cleared) 60 times, the median of the
  // last 50, and checks the complete carries `fetch` copies back against the serial scan.
  auto one = [&](const char* name, const std::vector<double>* want, auto go, auto fetch) {
    std::vector<float> t;
    for (int i = 0; i < 60; ++i) {
      CUDA_CHECK(cudaMemsetAsync(ticket, 0, sizeof(unsigned)));
      CUDA_CHECK(cudaMemsetAsync(status, 0, sizeof(int) * blocks));
      CUDA_CHECK(cudaEventRecord(a));
      go();
      CUDA_CHECK(cudaEventRecord(e));
      CUDA_CHECK(cudaEventSynchronize(e));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, a, e));
      if (i >= 10) t.push_back(ms);
    }
    CUDA_CHECK(cudaGetLastError());
    double err = 0, mx = 0;
    if (want) {
      std::vector<float> got(want->size());
      fetch(got);
      for (std::size_t i = 0; i < want->size(); ++i) {
        const double d = std::abs(double(got[i]) - (*want)[i]);
        err = std::isfinite(d) ? std::max(err, d) : INFINITY;  // a carry not complete counts
        mx = std::max(mx, std::abs((*want)[i]));
      }
    }
    const float ms = median(t);
    rows.push_back({size, R, name, ms, err, mx});
    std::printf("%5d^2 R=%d %-12s %8.4f ms  %6.2f us a block row", size, R, name, ms,
                ms * 1e3 / cols);
    if (want) std::printf("  max err %.2e (max %.1f)", err, mx);
    std::printf("\n");
  };
  auto chain = [&](auto kernel) {
    return [=] { kernel<<<blocks, 32>>>(dx, size, size, poles, ticket, status, pbar, pfull); };
  };
  auto from_floats = [&](std::vector<float>& got) {
    CUDA_CHECK(cudaMemcpy(got.data(), pfull, got.size() * 4, cudaMemcpyDeviceToHost));
  };
  auto flagged = [&](auto kernel) {
    return [=] { kernel<<<blocks, 32>>>(dx, size, size, poles, ticket, ++epoch, words); };
  };
  // The complete carries of the last launch from word buffers, one after the other.
  auto words_of = [&](std::vector<float>& got, std::vector<unsigned long long*> from) {
    std::vector<unsigned long long> w(got.size());
    const std::size_t each = w.size() / from.size();
    for (std::size_t b = 0; b < from.size(); ++b)
      CUDA_CHECK(cudaMemcpy(w.data() + b * each, from[b], each * 8, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < w.size(); ++i) {
      const auto bits = static_cast<std::uint32_t>(w[i]);
      std::memcpy(&got[i], &bits, 4);
      if ((w[i] >> 32) != 2ull * epoch + 2) got[i] = NAN;  // not complete in the last launch
    }
  };
  auto from_words = [&](std::vector<float>& got) { words_of(got, {words}); };
  one("independent", nullptr, chain(chain_kernel<R, kIndependent>), from_floats);
  one("chained", &ref, chain(chain_kernel<R, kChained>), from_floats);
  one("look-back", &ref, chain(chain_kernel<R, kLookBack>), from_floats);
  one("flagged/1", &ref, flagged(flagged_kernel<R, 1>), from_words);
  one("flagged/4", &ref, flagged(flagged_kernel<R, 4>), from_words);
  one("flagged/8", &ref, flagged(flagged_kernel<R, 8>), from_words);
  auto strip = [&](auto kernel, int s) {
    return [=] {
      kernel<<<blocks / s, dim3(32, s)>>>(dx, size, size, poles, ticket, ++epoch, words, pfull);
    };
  };
  one("strip4 alone", nullptr, strip(strip_kernel<R, 8, 4, false>, 4), from_floats);
  one("strip4/8", &ref, strip(strip_kernel<R, 8, 4>, 4), from_floats);
  one("strip8/8", &ref, strip(strip_kernel<R, 8, 8>, 8), from_floats);

  // The carries-only kernel's two chains: the blocks' own carries seeded at random, the complete
  // column carries (bottom-up) and then row carries (left to right) in double.
  const std::size_t n = std::size_t(blocks) * R * 32;
  std::vector<float> hc(n), hr(n);
  std::mt19937 rng(size * 10 + R);
  std::uniform_real_distribution<float> own(0.05f, 1.f);
  for (auto& v : hc) v = own(rng);
  for (auto& v : hr) v = own(rng);
  std::vector<double> both(2 * n);
  for (int c = 0; c < cols; ++c)
    for (int k = 0; k < R; ++k) {
      std::vector<double> st(32, 0.0);
      for (int r = cols - 1; r >= 0; --r) {
        double mean = 0;
        for (int l = 0; l < 32; ++l) {
          const std::size_t i = ((std::size_t(r) * cols + c) * R + k) * 32 + l;
          st[l] = hc[i] + double(poles.d[k]) * st[l];
          both[i] = st[l];
          mean += st[l] / 32;
        }
        for (int l = 0; l < 32; ++l) {
          const std::size_t i = ((std::size_t(r) * cols + c) * R + k) * 32 + l;
          both[n + i] = hr[i] + mean;  // the row's own carry, its chain below
        }
      }
    }
  for (int r = 0; r < cols; ++r)
    for (int k = 0; k < R; ++k)
      for (int l = 0; l < 32; ++l) {
        double st = 0;
        for (int c = 0; c < cols; ++c) {
          const std::size_t i = n + ((std::size_t(r) * cols + c) * R + k) * 32 + l;
          st = both[i] + double(poles.d[k]) * st;
          both[i] = st;
        }
      }
  float *dc, *dr;
  unsigned long long* rwords;
  CUDA_CHECK(cudaMalloc(&dc, n * 4));
  CUDA_CHECK(cudaMalloc(&dr, n * 4));
  CUDA_CHECK(cudaMalloc(&rwords, n * 8));
  CUDA_CHECK(cudaMemset(rwords, 0, n * 8));
  CUDA_CHECK(cudaMemcpy(dc, hc.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dr, hr.data(), n * 4, cudaMemcpyHostToDevice));
  auto wavefront = [&](auto kernel) {
    return
        [=] { kernel<<<blocks, 32>>>(dc, dr, cols, cols, poles, ticket, ++epoch, words, rwords); };
  };
  auto from_both = [&](std::vector<float>& got) { words_of(got, {words, rwords}); };
  one("2-D/1", &both, wavefront(wavefront_kernel<R, 1>), from_both);
  one("2-D/8", &both, wavefront(wavefront_kernel<R, 8>), from_both);
  cudaFree(dc);
  cudaFree(dr);
  cudaFree(rwords);
  cudaEventDestroy(a);
  cudaEventDestroy(e);
  cudaFree(ticket);
  cudaFree(status);
  cudaFree(pbar);
  cudaFree(pfull);
  cudaFree(words);
}

}  // namespace

int draft_main(int argc, char** argv) {
  std::string json;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--json" && i + 1 < argc) json = argv[++i];
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs; a warp per 32 x 32 block, tickets in chain order\n", prop.name,
              prop.multiProcessorCount);
  std::vector<Row> rows;
  std::mt19937 rng(20261203);
  std::uniform_real_distribution<float> sample(0.05f, 1.f);
  for (int size : {1024, 2048, 4096}) {
    std::vector<float> hx(std::size_t(size) * size);
    for (auto& v : hx) v = sample(rng);
    float* dx;
    CUDA_CHECK(cudaMalloc(&dx, hx.size() * 4));
    CUDA_CHECK(cudaMemcpy(dx, hx.data(), hx.size() * 4, cudaMemcpyHostToDevice));
    run<1>(size, dx, hx, rows);
    run<3>(size, dx, hx, rows);
    run<5>(size, dx, hx, rows);
    cudaFree(dx);
  }
  if (!json.empty()) {
    FILE* f = std::fopen(json.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "lookback_chain: cannot write %s\n", json.c_str());
      return 2;
    }
    std::fprintf(f, "{\"device\": \"%s\", \"rows\": [\n", prop.name);
    for (std::size_t i = 0; i < rows.size(); ++i)
      std::fprintf(f,
                   "  {\"size\": %d, \"modes\": %d, \"mode\": \"%s\", \"ms\": %.5f, "
                   "\"max_err\": %.3e, \"max_carry\": %.2f}%s\n",
                   rows[i].size, rows[i].r, rows[i].mode.c_str(), rows[i].ms, rows[i].max_err,
                   rows[i].max_ref, i + 1 < rows.size() ? "," : "");
    std::fprintf(f, "]}\n");
    std::fclose(f);
  }
  return 0;
}

int main(int argc, char** argv) {
  return rf::drafts::run_draft("lookback_chain", draft_main, argc, argv);
}
