// The edge-aware recursive Gaussian on CUDA (edge-aware paper, eq. 1-4): eq. (2)'s spacings once
// per frame from the guide, then per iteration a row pass and a column pass of the complex
// recursions of eq. (4) (edge_aware_math.h), float intermediates throughout.
//
// One thread filters one line (Algorithm A, the paper's stripes) or one segment of a line
// (C, D and the exact variant). Consecutive threads take consecutive lines: along columns their
// accesses coalesce; along rows each thread walks its own row and the L1 cache serves the rest of
// the 128-byte lines it touched.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "filters/cuda/cuda_check.cuh"
#include "filters/cuda/device_buffer.cuh"
#include "filters/edge_aware.h"
#include "filters/edge_aware_cuda.h"
#include "filters/edge_aware_math.h"
#include "filters/errors.h"

namespace rf::cuda {
namespace {

using edge::Cx;
using PolesF = edge::Poles<float>;

// Threads per block, all along the lines; segments index the grid's y.
constexpr int kThreads = 32;

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
  float warmup;  // kappa * sigma_i (C, D)
  PolesF poles;
  void* causal;      // Composite<C>[segments][lines] (exact)
  void* anticausal;  // Composite<C>[segments][lines] (exact)
};

// ---------------------------------------------------------------------------------------------
// Device helpers.

template <int C>
__device__ __forceinline__ Sample<C> load(const float* p) {
  Sample<C> s;
  if constexpr (C == 4) {
    const float4 v = *reinterpret_cast<const float4*>(p);
    s.v[0] = v.x;
    s.v[1] = v.y;
    s.v[2] = v.z;
    s.v[3] = v.w;
  } else {
    for (int c = 0; c < C; ++c) s.v[c] = p[c];
  }
  return s;
}

template <int C>
__device__ __forceinline__ void store(float* p, const Sample<C>& s) {
  if constexpr (C == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(s.v[0], s.v[1], s.v[2], s.v[3]);
  } else {
    for (int c = 0; c < C; ++c) p[c] = s.v[c];
  }
}

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
    Sample<C> out = load<C>(y(k));
    for (int c = 0; c < C; ++c) out.v[c] += s.g[0][c].re + s.g[1][c].re;
    store<C>(y(k), out);
  }

  // Causal recursion of eq. (4) over samples [k0, k1) (k0 >= 1): s holds g+[k0-1] on entry and
  // g+[k1-1] on exit. With Write, y[k] = Re g+[k]; with w, the product of the b^dt is gathered.
  template <bool Write>
  __device__ void causal(int k0, int k1, State<C>& s, Cx<float>* w = nullptr) const {
    Sample<C> prev = f(k0 - 1);
    for (int k = k0; k < k1; ++k) {
      const Sample<C> cur = f(k);
      const float delta = dt(k);
      for (int p = 0; p < 2; ++p) {
        const edge::EdgeWeight<float> e = edge::edge_weight(a.poles.p[p], delta);
        const edge::CausalStep<float> step = edge::causal_step(a.poles.p[p], e);
        for (int c = 0; c < C; ++c) s.g[p][c] = step(s.g[p][c], cur.v[c], prev.v[c]);
        if (w) w[p] = e.w * w[p];
      }
      if (Write) emit_causal(k, s);
      prev = cur;
    }
  }

  // Anticausal recursion producing g-[j] for j = k1-1 down to k0: s holds g-[k1] on entry and
  // g-[k0] on exit. With Write, y[j] += Re g-[j].
  template <bool Write>
  __device__ void anticausal(int k0, int k1, State<C>& s, Cx<float>* w = nullptr) const {
    Sample<C> next = f(k1);
    for (int j = k1 - 1; j >= k0; --j) {
      const Sample<C> cur = f(j);
      const float delta = dt(j + 1);
      for (int p = 0; p < 2; ++p) {
        const edge::EdgeWeight<float> e = edge::edge_weight(a.poles.p[p], delta);
        const edge::AnticausalStep<float> step = edge::anticausal_step(a.poles.p[p], e);
        for (int c = 0; c < C; ++c) s.g[p][c] = step(s.g[p][c], next.v[c], cur.v[c]);
        if (w) w[p] = e.w * w[p];
      }
      if (Write) emit_anticausal(j, s);
      next = cur;
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
  const Sample<C> cur = load<C>(row + x * C);
  const long long i = (long long)y * width + x;
  float dr = 1.0f, dc = 1.0f;
  if (x > 0) {
    const Sample<C> left = load<C>(row + (x - 1) * C);
    dr = domain_step_rn<colours>(left.v, cur.v, scale2);
  }
  if (y > 0) {
    const Sample<C> up = load<C>(row - pitch + x * C);
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
  int p = s0;
  for (float d = 0.0f; p > 0 && d < a.warmup; --p) d += line.dt(p);
  line.steady_causal(p, s);
  line.template causal<false>(p + 1, s0 + 1, s);
  line.emit_causal(s0, s);
  line.template causal<true>(s0 + 1, e, s);
  int q = e - 1;
  for (float d = 0.0f; q < n - 1 && d < a.warmup; ++q) d += line.dt(q + 1);
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

// ---------------------------------------------------------------------------------------------
// Host side.

void validate(const FilterSpec& spec, int width, int height, int channels) {
  if (spec.kind != FilterKind::EdgeAware)
    throw InvalidParameter(std::string("edge-aware plan: filter kind ") + to_string(spec.kind) +
                           " is not edge-aware");
  validate_edge_aware(spec, width, height);
  if (channels != 1 && channels != 4)
    throw InvalidParameter("edge-aware filter on CUDA: " + std::to_string(channels) +
                           " channels on the device (1 or 4; RGB is stored as RGBA)");
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
    const long long w = width;
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
    const Buf bufs[2] = {{tmp.f(), w * C}, {out, (long long)(out_pitch / sizeof(float))}};
    int next = 0;
    for (int it = 0; it < int(poles.size()); ++it) {
      for (int dir = 0; dir < 2; ++dir) {
        const Buf dst = bufs[next];
        PassArgs a{};
        a.src = src.p;
        a.dst = const_cast<float*>(dst.p);
        if (dir == 0) {  // rows: samples along x
          a.dt = dt_rows.f();
          a.fk = C, a.fl = src.stride, a.yk = C, a.yl = dst.stride, a.dk = 1, a.dl = w;
          a.n = width, a.lines = height;
        } else {  // columns: samples along y, consecutive threads on consecutive columns
          a.dt = dt_cols.f();
          a.fk = src.stride, a.fl = C, a.yk = dst.stride, a.yl = C, a.dk = w, a.dl = 1;
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
  m.tmp.allocate(pixels * std::size_t(channels) * sizeof(float));
  if (m.algo == Algorithm::EdgeExact) {
    const std::size_t seg = edge::kSegmentExact;
    const std::size_t composites =
        std::max((std::size_t(width) + seg - 1) / seg * std::size_t(height),
                 (std::size_t(height) + seg - 1) / seg * std::size_t(width));
    const std::size_t bytes =
        composites * (channels == 1 ? sizeof(Composite<1>) : sizeof(Composite<4>));
    m.causal.allocate(bytes);
    m.anticausal.allocate(bytes);
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

// The host image as 1 or 4 device channels (RGB gets a zero alpha).
std::vector<float> device_layout(const Image& in) {
  if (in.channels != 3) return in.pixels;
  std::vector<float> out(std::size_t(in.width) * in.height * 4, 0.0f);
  for (std::size_t i = 0, n = std::size_t(in.width) * in.height; i < n; ++i)
    for (int c = 0; c < 3; ++c) out[i * 4 + c] = in.pixels[i * 3 + c];
  return out;
}

int device_channels(int channels) {
  if (channels != 1 && channels != 3 && channels != 4)
    throw InvalidParameter("edge-aware filter: " + std::to_string(channels) +
                           " channels (1, 3 or 4 are supported)");
  return channels == 1 ? 1 : 4;
}

}  // namespace

Image edge_aware_filter(const FilterSpec& spec, const Image& in) {
  const int dc = device_channels(in.channels);
  EdgeAwarePlan plan(spec, in.width, in.height, dc);
  const std::vector<float> host = device_layout(in);
  const std::size_t bytes = host.size() * sizeof(float);
  DeviceBuffer src, dst;
  src.allocate(bytes);
  dst.allocate(bytes);
  CUDA_CHECK(cudaMemcpy(src.ptr, host.data(), bytes, cudaMemcpyHostToDevice));
  const std::size_t pitch = std::size_t(in.width) * dc * sizeof(float);
  plan.run(src.f(), pitch, dst.f(), pitch);
  std::vector<float> result(host.size());
  CUDA_CHECK(cudaMemcpy(result.data(), dst.ptr, bytes, cudaMemcpyDeviceToHost));
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
  const int dc = device_channels(in.channels);
  EdgeAwarePlan plan(spec, in.width, in.height, dc);
  const std::vector<float> host = device_layout(in);
  const std::size_t bytes = host.size() * sizeof(float);
  DeviceBuffer src, dst;
  src.allocate(bytes);
  dst.allocate(bytes);
  CUDA_CHECK(cudaMemcpy(src.ptr, host.data(), bytes, cudaMemcpyHostToDevice));
  const std::size_t pitch = std::size_t(in.width) * dc * sizeof(float);
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> ms;
  try {
    for (int i = 0; i < 5; ++i) plan.run(src.f(), pitch, dst.f(), pitch, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < std::max(1, runs); ++i) {
      CUDA_CHECK(cudaEventRecord(start, stream));
      plan.run(src.f(), pitch, dst.f(), pitch, stream);
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
