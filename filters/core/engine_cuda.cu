// The CUDA backend of rf::Engine: plans once per spec, size and format (coefficients and block
// matrices in double, scratch buffers), then filters each frame with two passes of the
// overlapped block-parallel filter (or the RT baseline) captured in a CUDA graph.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/design.h"
#include "filters/core/device_buffer.cuh"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/edge_aware/edge_aware_cuda.h"
#include "filters/lee2014/lee2014_cuda.h"
#include "filters/recursive/fully_overlapped_cuda.cuh"
#include "filters/recursive/overlapped_plan.h"
#include "filters/recursive/recursive_cuda.cuh"

namespace rf {

bool cuda_available(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    if (why)
      *why = err != cudaSuccess ? std::string("no usable CUDA device (") + cudaGetErrorName(err) +
                                      ": " + cudaGetErrorString(err) + ")"
                                : std::string("no CUDA device found");
    cudaGetLastError();
    return false;
  }
  return true;
}

namespace cuda {
namespace {

// Largest 1 / |b0| for which block carries are stored in float (see PassArgs::double_carries).
constexpr double kFloatCarryGain = 200.0;
// Largest 1 / |b0| for which the block recursions run with a float window (PassArgs::
// float_blocks). The float step (recursion_step in overlapped_math.h) rounds about half an ulp of
// the window per step, which reaches the output amplified by up to the gain 1 / |b0| of
// 1 / (1 + sum a_k q^-k), once per direction and pass. Measured on the device's H200 with the
// CUDA tests (every extension, sizes up to 4096^2, sigma 4), worst relative error: order 1
// (1 / b0 = 3.4) 2.5e-7, order 2 (13.8) 7.2e-7, order 3 (25.6) 1.5e-6, order 4 (53) 3.6e-6,
// order 5 (100) 9.3e-6: about 1e-7 per unit of gain, so 32 keeps orders 1-3 well under their
// 1e-5 bound and 128 orders 4 and 5 under their 1e-4. RGBA8 frames run every filter whose
// carries are float (1 / b0 <= kFloatCarryGain) with a float window: 200 * 1e-7 relative is 0.005
// of an 8-bit step (the RGBA8 test, orders 1-5 at sigma 4 and order 3 at sigma 8, 1 / b0 = 159,
// checks the result within 0.51 of a step of the double reference). Beyond, the window is
// double, whose FP64 steps and float<->double conversions (16 per clock per SM on sm_90) make the
// block kernels compute-bound.
constexpr double kFloatWindowGain = 32.0;
constexpr double kFloatWindowGainHighOrder = 128.0;

bool same_io(const Io& a, const Io& b) {
  return a.kind == b.kind && a.ptr == b.ptr && a.pitch == b.pitch && a.surf == b.surf;
}

IoKind float_kind(int channels) {
  return channels == 1 ? IoKind::F32 : IoKind::F32x4;
}

IoKind kind_of(const FrameView& v) {
  const bool surface = v.space == MemorySpace::CudaSurface;
  switch (v.format) {
    case PixelFormat::R32F:
      return surface ? IoKind::SurfF32 : IoKind::F32;
    case PixelFormat::RGBA32F:
      return surface ? IoKind::SurfF32x4 : IoKind::F32x4;
    case PixelFormat::RGBA8:
      return surface ? IoKind::SurfU8x4 : IoKind::U8x4;
  }
  return IoKind::F32;
}

bool is_float_buffer(IoKind k) {
  return k == IoKind::F32 || k == IoKind::F32x4;
}

bool is_surface(IoKind k) {
  return k == IoKind::SurfF32 || k == IoKind::SurfF32x4 || k == IoKind::SurfU8x4;
}

// The edge-aware plan reads and writes pitched buffers of each format itself.
EdgeFormat edge_format(IoKind k) {
  return k == IoKind::F32    ? EdgeFormat::Gray32F
         : k == IoKind::U8x4 ? EdgeFormat::Rgba8
                             : EdgeFormat::Rgba32F;
}

// Copies a frame between storage kinds (RGBA8, surfaces, float buffers), for the filters that
// read and write plain buffers only (the edge-aware filter: surfaces; Lee et al. 2014: anything
// but float buffers): the GUI hands them RGBA8 frames and GL textures mapped as surfaces.
template <int C>
__global__ void convert_frame_kernel(Io src, Io dst, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) write<C>(dst, x, y, read<C>(src, x, y));
}

void convert_frame(const Io& src, const Io& dst, int width, int height, int channels,
                   cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  if (channels == 1)
    convert_frame_kernel<1><<<grid, block, 0, stream>>>(src, dst, width, height);
  else
    convert_frame_kernel<4><<<grid, block, 0, stream>>>(src, dst, width, height);
  CUDA_CHECK_LAUNCH();
}

std::size_t packed_pitch(const FrameView& v) {
  return v.pitch ? v.pitch : std::size_t(v.width) * bytes_per_pixel(v.format);
}

void copy_matrix(const std::vector<double>& m, int r, double* dst) {
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < r; ++j) dst[i * kMaxOrder + j] = m[std::size_t(i * r + j)];
}

class CudaEngine final : public Engine {
 public:
  CudaEngine() {
    CUDA_CHECK(cudaGetDevice(&device_));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    description_ = std::string("CUDA, ") + prop.name + " (sm_" + std::to_string(prop.major) +
                   std::to_string(prop.minor) + ")";
    CUDA_CHECK(cudaStreamCreateWithFlags(&capture_stream_, cudaStreamNonBlocking));
    for (auto& e : events_) CUDA_CHECK(cudaEventCreate(&e));
  }

  ~CudaEngine() override {
    drop_graph();
    for (auto& e : events_) cudaEventDestroy(e);
    if (capture_stream_) cudaStreamDestroy(capture_stream_);
  }

  Backend backend() const override { return Backend::Cuda; }
  std::string description() const override { return description_; }

  void plan(const FilterSpec& spec, int width, int height, PixelFormat format) override {
    if (planned_ && spec == spec_ && width == width_ && height == height_ && format == format_)
      return;
    planned_ = false;
    if (width <= 0 || height <= 0)
      throw InvalidParameter("image size must be positive (got " + std::to_string(width) + "x" +
                             std::to_string(height) + ")");
    lee_.reset();
    edge_.reset();
    full_.reset();
    if (spec.kind == FilterKind::EdgeAware) {
      plan_edge_aware(spec, width, height, format);
      return;
    }
    check_algorithm(Backend::Cuda, spec);
    rt_ = spec.algo == Algorithm::RT;
    if (spec.algo == Algorithm::OneWay || spec.algo == Algorithm::TwoWay) {
      plan_lee(spec, width, height, format);
      return;
    }
    const Recursive f = design(spec);
    if (plan_fully_overlapped(spec, f, width, height, format)) return;
    const OverlappedPlan op = make_overlapped_plan(f, spec.ext);
    const int r = op.order;
    if (r < 1 || r > kMaxOrder)
      throw InvalidParameter("order must be 1.." + std::to_string(kMaxOrder));
    order_ = r;
    channels_ = channel_count(format);
    const std::size_t sample = sizeof(float) * std::size_t(channels_);

    // Scratch: the transposed column result, and the block carries of each pass (the column
    // pass's output step writes the row pass's while the column pass's are still being read).
    scratch_.allocate_pitched(std::size_t(height) * sample, std::size_t(width));
    const auto blocks = [](int n) { return std::size_t((n + kBlock - 1) / kBlock); };
    const bool double_carries = std::fabs(1.0 / f.b0) > kFloatCarryGain;
    const std::size_t carry = std::size_t(r) * (double_carries ? 2 : 1) * sample;
    for (auto* b : {&col_pbar_, &col_ebar_, &col_pst_, &col_est_})
      b->allocate(carry * blocks(height) * std::size_t(width));
    for (auto* b : {&row_pbar_, &row_ebar_, &row_pst_, &row_est_})
      b->allocate(carry * blocks(width) * std::size_t(height));
    for (auto [buffer, values] : {std::pair{&g_, &op.g}, std::pair{&acorr_, &op.acorr}}) {
      buffer->allocate(values->size() * sizeof(double));
      if (!values->empty())
        CUDA_CHECK(cudaMemcpy(buffer->ptr, values->data(), values->size() * sizeof(double),
                              cudaMemcpyHostToDevice));
    }
    if (rt_) {
      rt_columns_.allocate_pitched(std::size_t(width) * sample, std::size_t(height));
      rt_rows_.allocate_pitched(std::size_t(width) * sample, std::size_t(height));
    } else {
      rt_columns_.reset();
      rt_rows_.reset();
    }

    columns_ =
        pass_args(op, f, width, height, col_pbar_, col_ebar_, col_pst_, col_est_, col_seeds_);
    rows_ = pass_args(op, f, height, width, row_pbar_, row_ebar_, row_pst_, row_est_, row_seeds_);
    columns_.double_carries = rows_.double_carries = double_carries ? 1 : 0;
    const double window_gain = format == PixelFormat::RGBA8 ? kFloatCarryGain
                               : r <= 3                     ? kFloatWindowGain
                                                            : kFloatWindowGainHighOrder;
    columns_.float_blocks = rows_.float_blocks =
        !double_carries && std::fabs(1.0 / f.b0) <= window_gain ? 1 : 0;
    columns_.next_pbar = rows_.pbar;
    columns_.next_ebar = rows_.ebar;
    commit_plan(spec, width, height, format);
  }

  void run(const FrameView& in, const FrameView& out, void* stream_handle) override {
    if (!planned_) throw std::logic_error("Engine::run before plan");
    check_view(in, "input", true);
    check_view(out, "output");
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    const std::size_t row_bytes = std::size_t(width_) * bytes_per_pixel(format_);

    if (timing_) CUDA_CHECK(cudaEventRecord(events_[0], stream));
    Io src = io_of(in);
    if (in.space == MemorySpace::Host) {
      if (!staging_in_.ptr) staging_in_.allocate_pitched(row_bytes, std::size_t(height_));
      CUDA_CHECK(cudaMemcpy2DAsync(staging_in_.ptr, staging_in_.pitch, in.data, packed_pitch(in),
                                   row_bytes, std::size_t(height_), cudaMemcpyHostToDevice,
                                   stream));
      src = Io{kind_of(in), static_cast<char*>(staging_in_.ptr), staging_in_.pitch, 0};
    }
    Io dst = io_of(out);
    if (out.space == MemorySpace::Host) {
      if (!staging_out_.ptr) staging_out_.allocate_pitched(row_bytes, std::size_t(height_));
      dst = Io{kind_of(out), static_cast<char*>(staging_out_.ptr), staging_out_.pitch, 0};
    }

    if (edge_ || lee_) ensure_float_buffers(src, dst);
    if (timing_) {
      CUDA_CHECK(cudaEventRecord(events_[1], stream));
      launch_passes(src, dst, stream, true);
    } else {
      launch_graph(src, dst, stream);
    }

    if (out.space == MemorySpace::Host) {
      CUDA_CHECK(cudaMemcpy2DAsync(out.data, packed_pitch(out), staging_out_.ptr,
                                   staging_out_.pitch, row_bytes, std::size_t(height_),
                                   cudaMemcpyDeviceToHost, stream));
    }
    if (timing_) {
      // Events: 0 before the upload, 1 after it, then one after each stage, then the download.
      std::vector<std::string> names = {"upload"};
      if (full_) {
        const auto& stages = fully_overlapped::CudaFilter::stage_names();
        names.insert(names.end(), stages.begin(), stages.end());
      } else {
        names.push_back(edge_ ? "filter" : lee_ ? "rows" : "columns");
        names.push_back(lee_ ? "columns" : "rows");
      }
      names.push_back("download");
      const int last = int(names.size());
      CUDA_CHECK(cudaEventRecord(events_[last], stream));
      CUDA_CHECK(cudaEventSynchronize(events_[last]));
      timings_.clear();
      for (int i = 0; i < last; ++i) {
        if (edge_ && i == 2) continue;  // one stage: the whole filter
        float ms = 0.f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]));
        timings_.push_back({names[std::size_t(i)], double(ms)});
      }
    } else if (out.space == MemorySpace::Host) {
      CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  }

  void set_timing(bool enabled) override { timing_ = enabled; }
  std::vector<StageTime> timings() const override { return timings_; }

 private:
  // Records what was planned and drops everything that belonged to the previous plan.
  void commit_plan(const FilterSpec& spec, int width, int height, PixelFormat format) {
    spec_ = spec;
    width_ = width;
    height_ = height;
    format_ = format;
    staging_in_.reset();
    staging_out_.reset();
    float_in_.reset();
    float_out_.reset();
    drop_graph();
    planned_ = true;
  }

  // The edge-aware filter (edge_aware_cuda.h); other storage kinds go through float buffers.
  void plan_edge_aware(const FilterSpec& spec, int width, int height, PixelFormat format) {
    edge_ = std::make_unique<EdgeAwarePlan>(spec, width, height, channel_count(format));
    channels_ = channel_count(format);
    commit_plan(spec, width, height, format);
  }

  // Algorithms 5 and 6 (fully_overlapped_cuda.cuh), and auto's choice: algorithm 5, the fastest
  // of the block algorithms on the device's H100 at 4096^2 and, unlike algorithm 4, as fast at
  // sigma 100 as at sigma 1 (docs/bench/README.md). It carries every filter whose modes do not
  // cancel (every design we ship); auto falls back to algorithm 4 for the others, and a named
  // algorithm 5 or 6 says why it cannot.
  bool plan_fully_overlapped(const FilterSpec& spec, const Recursive& f, int width, int height,
                             PixelFormat format) {
    if (spec.algo != Algorithm::Auto && spec.algo != Algorithm::Alg5 &&
        spec.algo != Algorithm::Alg6)
      return false;
    if (spec.algo == Algorithm::Auto && !fully_overlapped::carries_modes(f)) return false;
    full_ = std::make_unique<fully_overlapped::CudaFilter>(
        f, spec.ext, width, height, channel_count(format),
        spec.algo == Algorithm::Alg6 ? fully_overlapped::FixPlace::ColumnScan
                                     : fully_overlapped::FixPlace::RowScan);
    channels_ = channel_count(format);
    order_ = f.order();
    // The previous plan's algorithm-4 scratch is not needed.
    for (DeviceBuffer* b : {&scratch_, &col_pbar_, &col_ebar_, &col_pst_, &col_est_, &row_pbar_,
                            &row_ebar_, &row_pst_, &row_est_, &rt_columns_, &rt_rows_})
      b->reset();
    commit_plan(spec, width, height, format);
    return true;
  }

  // Lee et al. 2014 (yvrg, one-way or two-way); other storage kinds go through float buffers.
  void plan_lee(const FilterSpec& spec, int width, int height, PixelFormat format) {
    validate(spec);
    lee_ = std::make_unique<lee2014::cuda::DevicePlan>(
        spec.algo == Algorithm::OneWay ? lee2014::Partition::OneWay : lee2014::Partition::TwoWay,
        spec.sigma, width, height, channel_count(format));
    channels_ = channel_count(format);
    commit_plan(spec, width, height, format);
  }

  PassArgs pass_args(const OverlappedPlan& op, const Recursive& f, int lines, int n,
                     const DeviceBuffer& pbar, const DeviceBuffer& ebar, const DeviceBuffer& pst,
                     const DeviceBuffer& est, DeviceBuffer& seeds) const {
    PassArgs a;
    const int r = op.order;
    a.lines = lines;
    a.n = n;
    a.nb = (n + kBlock - 1) / kBlock;
    a.last_len = n - (a.nb - 1) * kBlock;
    a.pad = op.pad;
    a.ext = op.ext;
    a.causal_only = op.causal_only ? 1 : 0;
    a.b0 = f.b0;
    for (int k = 0; k < r; ++k) a.a[k] = f.a[std::size_t(k)];
    a.g = static_cast<const double*>(g_.ptr);
    a.acorr = static_cast<const double*>(acorr_.ptr);
    // The samples of the boundary seeds' terms (PassArgs::seed_index), the same for every line.
    std::vector<int> index;
    if (op.pad > 0) {
      for (int i = 0; i < op.pad + r - 1; ++i) index.push_back(extend_index(-1 - i, n, op.ext));
      for (int t = 0; t < op.pad + r; ++t) index.push_back(extend_index(n + t, n, op.ext));
    }
    seeds.allocate(std::max<std::size_t>(1, index.size()) * sizeof(int));
    if (!index.empty())
      CUDA_CHECK(
          cudaMemcpy(seeds.ptr, index.data(), index.size() * sizeof(int), cudaMemcpyHostToDevice));
    a.seed_index = static_cast<const int*>(seeds.ptr);
    a.pbar = pbar.ptr;
    a.ebar = ebar.ptr;
    a.pst = pst.ptr;
    a.est = est.ptr;
    const BlockMatrices full = op.matrices(kBlock);
    const BlockMatrices last = op.matrices(a.last_len);
    copy_matrix(full.T, r, a.T);
    copy_matrix(full.M, r, a.M);
    copy_matrix(full.U, r, a.U);
    copy_matrix(last.T, r, a.Tl);
    copy_matrix(last.M, r, a.Ml);
    copy_matrix(last.U, r, a.Ul);
    copy_matrix(op.N, r, a.N);
    const int run = (a.nb - 1 + kCarryGroups - 1) / kCarryGroups;
    copy_matrix(op.power(full.T, run), r, a.Tm);
    copy_matrix(op.power(full.U, run), r, a.Um);
    return a;
  }

  // The output matches the plan; an input may also be RGBA8 on the device for an RGBA32F plan
  // (the block kernels read any storage kind through io.cuh, the edge-aware plan reads RGBA8
  // itself, and Lee et al. stage it in float as they stage surfaces).
  void check_view(const FrameView& v, const char* what, bool input = false) const {
    const bool format_ok =
        v.format == format_ || (input && format_ == PixelFormat::RGBA32F &&
                                v.format == PixelFormat::RGBA8 && v.space != MemorySpace::Host);
    if (v.width != width_ || v.height != height_ || !format_ok)
      throw InvalidParameter(std::string("the ") + what +
                             " frame does not match the planned size and format");
    if (v.space == MemorySpace::CudaSurface ? v.surface == 0 : v.data == nullptr)
      throw InvalidParameter(std::string("the ") + what + " frame has no data");
  }

  Io io_of(const FrameView& v) const {
    Io io;
    io.kind = kind_of(v);
    io.ptr = static_cast<char*>(v.data);
    io.pitch = packed_pitch(v);
    io.surf = static_cast<cudaSurfaceObject_t>(v.surface);
    return io;
  }

  Io float_io(const DeviceBuffer& b) const {
    return Io{float_kind(channels_), static_cast<char*>(b.ptr), b.pitch, 0};
  }

  // Float buffers for the filters that read plain buffers only: Lee et al. when a frame is RGBA8
  // or a surface, the edge-aware filter when it is a surface (it takes RGBA8 buffers itself).
  // Allocated on first need, outside any graph capture, and kept until the next plan.
  void ensure_float_buffers(const Io& src, const Io& dst) {
    const std::size_t row_bytes = std::size_t(width_) * channels_ * sizeof(float);
    auto staged = [&](IoKind k) { return edge_ ? is_surface(k) : !is_float_buffer(k); };
    if (staged(src.kind) && !float_in_.ptr)
      float_in_.allocate_pitched(row_bytes, std::size_t(height_));
    if (staged(dst.kind) && !float_out_.ptr)
      float_out_.allocate_pitched(row_bytes, std::size_t(height_));
    if (edge_)
      edge_->prepare(edge_format(staged(src.kind) ? float_kind(channels_) : src.kind),
                     edge_format(staged(dst.kind) ? float_kind(channels_) : dst.kind));
  }

  Io scratch_io() const {
    return Io{float_kind(channels_), static_cast<char*>(scratch_.ptr), scratch_.pitch, 0};
  }

  // Columns (src -> transposed scratch), then rows (scratch -> dst), with events between them
  // when timing.
  void launch_passes(const Io& src, const Io& dst, cudaStream_t stream, bool timed) {
    if (edge_) {
      const Io fsrc = is_surface(src.kind) ? float_io(float_in_) : src;
      const Io fdst = is_surface(dst.kind) ? float_io(float_out_) : dst;
      if (is_surface(src.kind)) convert_frame(src, fsrc, width_, height_, channels_, stream);
      edge_->enqueue(EdgeImage{fsrc.ptr, fsrc.pitch, edge_format(fsrc.kind)},
                     EdgeOutput{fdst.ptr, fdst.pitch, edge_format(fdst.kind)}, stream);
      if (is_surface(dst.kind)) convert_frame(fdst, dst, width_, height_, channels_, stream);
      if (timed) {
        CUDA_CHECK(cudaEventRecord(events_[2], stream));  // one stage: the filter
        CUDA_CHECK(cudaEventRecord(events_[3], stream));
      }
      return;
    }
    if (lee_) {
      const Io fsrc = is_float_buffer(src.kind) ? src : float_io(float_in_);
      const Io fdst = is_float_buffer(dst.kind) ? dst : float_io(float_out_);
      if (!is_float_buffer(src.kind)) convert_frame(src, fsrc, width_, height_, channels_, stream);
      lee_->run_rows(reinterpret_cast<const float*>(fsrc.ptr), fsrc.pitch,
                     reinterpret_cast<float*>(fdst.ptr), fdst.pitch, stream);
      if (timed) CUDA_CHECK(cudaEventRecord(events_[2], stream));
      lee_->run_columns(reinterpret_cast<float*>(fdst.ptr), fdst.pitch, stream);
      if (!is_float_buffer(dst.kind)) convert_frame(fdst, dst, width_, height_, channels_, stream);
      if (timed) CUDA_CHECK(cudaEventRecord(events_[3], stream));
      return;
    }
    if (full_) {
      full_->enqueue(src, dst, stream, timed ? &events_[2] : nullptr);
      return;
    }
    PassArgs cols = columns_;
    PassArgs rows = rows_;
    if (rt_) {
      const Io c{float_kind(channels_), static_cast<char*>(rt_columns_.ptr), rt_columns_.pitch, 0};
      const Io t{float_kind(channels_), static_cast<char*>(rt_rows_.ptr), rt_rows_.pitch, 0};
      cols.src = src;
      cols.dst = c;
      launch_rt_pass(order_, channels_, cols, c, false, stream);
      if (timed) CUDA_CHECK(cudaEventRecord(events_[2], stream));
      rows.src = c;
      rows.dst = dst;
      launch_rt_pass(order_, channels_, rows, t, true, stream);
    } else {
      cols.src = src;
      cols.dst = scratch_io();
      launch_overlapped_pass(order_, channels_, cols, true, stream);
      if (timed) CUDA_CHECK(cudaEventRecord(events_[2], stream));
      rows.src = scratch_io();
      rows.dst = dst;
      launch_overlapped_pass(order_, channels_, rows, false, stream);
    }
    if (timed) CUDA_CHECK(cudaEventRecord(events_[3], stream));
  }

  // The launches as one graph per pair of frame buffers. The studio's pipeline alternates between
  // the buffers of its frame slots, so the graphs of the last few pairs are kept: each pair is
  // captured and instantiated once, not on every frame.
  void launch_graph(const Io& src, const Io& dst, cudaStream_t stream) {
    auto hit = std::find_if(graphs_.begin(), graphs_.end(), [&](const CachedGraph& g) {
      return same_io(src, g.src) && same_io(dst, g.dst);
    });
    if (hit == graphs_.end()) {
      if (graphs_.size() == kCachedGraphs) {
        cudaGraphExecDestroy(graphs_.back().exec);
        graphs_.pop_back();
      }
      cudaGraph_t graph = nullptr;
      CUDA_CHECK(cudaStreamBeginCapture(capture_stream_, cudaStreamCaptureModeThreadLocal));
      try {
        launch_passes(src, dst, capture_stream_, false);
      } catch (...) {
        cudaStreamEndCapture(capture_stream_, &graph);
        if (graph) cudaGraphDestroy(graph);
        throw;
      }
      CUDA_CHECK(cudaStreamEndCapture(capture_stream_, &graph));
      cudaGraphExec_t exec = nullptr;
      const cudaError_t err = cudaGraphInstantiate(&exec, graph, 0);
      cudaGraphDestroy(graph);
      CUDA_CHECK(err);
      graphs_.insert(graphs_.begin(), CachedGraph{exec, src, dst});
      hit = graphs_.begin();
    } else if (hit != graphs_.begin()) {
      std::rotate(graphs_.begin(), hit, hit + 1);  // most recently used first
      hit = graphs_.begin();
    }
    CUDA_CHECK(cudaGraphLaunch(hit->exec, stream));
  }

  void drop_graph() {
    for (const CachedGraph& g : graphs_) cudaGraphExecDestroy(g.exec);
    graphs_.clear();
  }

  int device_ = 0;
  std::string description_;
  bool planned_ = false;
  FilterSpec spec_;
  int width_ = 0, height_ = 0;
  PixelFormat format_ = PixelFormat::R32F;
  int order_ = 1, channels_ = 1;
  bool rt_ = false;
  std::unique_ptr<lee2014::cuda::DevicePlan> lee_;
  std::unique_ptr<EdgeAwarePlan> edge_;
  std::unique_ptr<fully_overlapped::CudaFilter> full_;  // alg5 and alg6
  PassArgs columns_, rows_;
  DeviceBuffer scratch_, g_, acorr_;
  DeviceBuffer col_pbar_, col_ebar_, col_pst_, col_est_, row_pbar_, row_ebar_, row_pst_, row_est_;
  DeviceBuffer col_seeds_, row_seeds_;
  DeviceBuffer rt_columns_, rt_rows_, staging_in_, staging_out_, float_in_, float_out_;
  cudaStream_t capture_stream_ = nullptr;
  struct CachedGraph {
    cudaGraphExec_t exec;
    Io src, dst;
  };
  static constexpr std::size_t kCachedGraphs = 16;  // more than the studio has frame slots
  std::vector<CachedGraph> graphs_;
  cudaEvent_t events_[8] = {};
  bool timing_ = false;
  std::vector<StageTime> timings_;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<Engine> make_cuda_engine() {
  std::string why;
  if (!cuda_available(&why)) throw BackendUnavailable("CUDA backend unavailable: " + why);
  return std::make_unique<cuda::CudaEngine>();
}

}  // namespace rf
