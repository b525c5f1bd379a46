// The CUDA backend of rf::Engine: a dispatcher. plan() asks the family of the spec for its CUDA
// filter (cuda::FrameFilter: the recursive family's fully overlapped or direct-form filter, the
// edge-aware filter, Lee et al. 2014); run() moves host frames to and from the device, converts
// the storage kinds a filter does not read or write itself through float buffers, and replays
// the launches as a CUDA graph.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/derivative.h"
#include "filters/core/design.h"
#include "filters/core/device_buffer.cuh"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/frame_filter.cuh"
#include "filters/edge_aware/edge_aware_cuda.h"
#include "filters/fir/fir.h"
#include "filters/fir/fir_cuda.cuh"
#include "filters/lee2014/lee2014_cuda.h"
#include "filters/recursive/direct_form.h"
#include "filters/recursive/direct_form_cuda.cuh"
#include "filters/recursive/fully_overlapped_cuda.cuh"

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

IoKind float_kind(int channels) {
  return channels == 1 ? IoKind::F32 : IoKind::F32x4;
}

std::size_t packed_pitch(const FrameView& v) {
  return v.pitch ? v.pitch : std::size_t(v.width) * bytes_per_pixel(v.format);
}

// Copies a frame between storage kinds (RGBA8, surfaces, float buffers) for the filters that do
// not read or write a kind themselves: the GUI hands them RGBA8 frames and GL textures mapped as
// surfaces.
template <int C>
__global__ void convert_frame_kernel(Io src, Io dst, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  // Rows by grid stride: a batch's frames stacked can be taller than a grid's 65535 rows of blocks.
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y)
    write<C>(dst, x, y, read<C>(src, x, y));
}

void convert_frame(const Io& src, const Io& dst, int width, int height, int channels,
                   cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((width + block.x - 1) / block.x,
                  std::min((height + block.y - 1) / block.y, 65535u));
  if (channels == 1)
    convert_frame_kernel<1><<<grid, block, 0, stream>>>(src, dst, width, height);
  else
    convert_frame_kernel<4><<<grid, block, 0, stream>>>(src, dst, width, height);
  CUDA_CHECK_LAUNCH();
}

// The edge-aware filter (edge_aware_cuda.h) reads and writes pitched buffers of every format.
class EdgeAwareFilter final : public FrameFilter {
 public:
  EdgeAwareFilter(const FilterSpec& spec, int width, int height, int channels)
      : plan_(spec, width, height, channels) {}
  bool reads(IoKind k) const override {
    return k == IoKind::F32 || k == IoKind::F32x4 || k == IoKind::U8x4;
  }
  bool writes(IoKind k) const override { return reads(k); }
  void prepare(IoKind src, IoKind dst) override { plan_.prepare(format(src), format(dst)); }
  std::string algorithm() const override { return to_string(plan_.algorithm()); }
  std::vector<std::string> stage_names() const override { return {"filter"}; }
  void enqueue(const Io& src, const Io& dst, cudaStream_t stream, cudaEvent_t* marks) override {
    plan_.enqueue(EdgeImage{src.ptr, src.pitch, format(src.kind)},
                  EdgeOutput{dst.ptr, dst.pitch, format(dst.kind)}, stream);
    if (marks) CUDA_CHECK(cudaEventRecord(marks[0], stream));
  }

 private:
  static EdgeFormat format(IoKind k) {
    return k == IoKind::F32    ? EdgeFormat::Gray32F
           : k == IoKind::U8x4 ? EdgeFormat::Rgba8
                               : EdgeFormat::Rgba32F;
  }
  EdgeAwarePlan plan_;
};

// Lee et al. 2014 (lee2014_cuda.h) reads and writes float buffers.
class LeeFilter final : public FrameFilter {
 public:
  LeeFilter(const FilterSpec& spec, int width, int height, int channels)
      : plan_(spec.algo == Algorithm::OneWay ? lee2014::Partition::OneWay
                                             : lee2014::Partition::TwoWay,
              spec.sigma, width, height, channels),
        algo_(spec.algo) {}
  bool reads(IoKind k) const override { return k == IoKind::F32 || k == IoKind::F32x4; }
  bool writes(IoKind k) const override { return reads(k); }
  std::string algorithm() const override { return to_string(algo_); }
  std::vector<std::string> stage_names() const override { return {"rows", "columns"}; }
  void enqueue(const Io& src, const Io& dst, cudaStream_t stream, cudaEvent_t* marks) override {
    plan_.run_rows(reinterpret_cast<const float*>(src.ptr), src.pitch,
                   reinterpret_cast<float*>(dst.ptr), dst.pitch, stream);
    if (marks) CUDA_CHECK(cudaEventRecord(marks[0], stream));
    plan_.run_columns(reinterpret_cast<float*>(dst.ptr), dst.pitch, stream);
    if (marks) CUDA_CHECK(cudaEventRecord(marks[1], stream));
  }

 private:
  lee2014::cuda::DevicePlan plan_;
  Algorithm algo_;  // one-way or two-way
};

std::unique_ptr<FrameFilter> make_smoothing_filter(const FilterSpec& spec, int width, int height,
                                                   PixelFormat format, int frames = 1);
std::unique_ptr<fully_overlapped::CudaFilter> make_fused_partial(const FilterSpec& spec,
                                                                 double scale, int width,
                                                                 int height, PixelFormat format);

// Frames of a batch that one launch of the fully overlapped filter takes (a grid's y and z).
constexpr int kMaxGridFrames = 65535;

// Columns from which auto filters the columns alone of a frame with RT (a thread per column).
constexpr std::size_t kRtColumns = 65536;
// Batches of at least this many frames, of lines of at most this many samples, take both axes
// through lines in shared memory at order 3 and above (smoothing_route), as frames alone or fewer
// at a time do whose lines all fit (kSharedLineMax).
constexpr int kSharedLinesBatch = 64;
constexpr int kSharedLinesBatchLine = 512;
// Samples of the extension that the seeds may read (direct_form::seed_reads) for both axes to go
// through lines in shared memory (smoothing_route), at each order: under mirror and reflect101
// 64 (order - 1), a Gaussian's sigma up to about 6, 9 and 12 at orders 3, 4 and 5; under clamp
// and repeat 32 order, sigma up to about 4.6, 6.2 and 7.7. Measured on 256^2 to 1024^2 one-float
// frames (docs/bench/lines-seeds-h200.json): past these the seeds' sums over the extension's
// samples, which grow with sigma where algorithm 5's carries do not, made lines in shared memory
// slower than algorithm 5 (up to 1.9 of its time at sigma 32), below them faster.
int shared_lines_seed_reads(int order, Extension ext) {
  const bool symmetric = ext == Extension::Mirror || ext == Extension::Reflect101;
  return symmetric ? 64 * (order - 1) : 32 * order;
}

// Rows of a frame each thread of the derivative's kernels takes.
constexpr int kDerivativeRows = 4;

// The image into a smoothing buffer, continued by one sample of its extension along the padded
// axes (filters/core/derivative.h).
template <int C>
__global__ void pad_kernel(Io src, Io dst, DerivativeArgs a, float outside) {
  const int bx = blockIdx.x * blockDim.x + threadIdx.x;
  const int w = a.width + 2 * a.pad_x, h = a.height + 2 * a.pad_y;
  if (bx >= w) return;
#pragma unroll
  for (int r = 0; r < kDerivativeRows; ++r) {
    const int by = blockIdx.y * kDerivativeRows + r;
    if (by >= h) return;
    int sx = bx - a.pad_x, sy = by - a.pad_y;
    // extend_index's modulo only where it is needed: at the padded border.
    Vec<C> v;
    if (sx < 0 || sx >= a.width || sy < 0 || sy >= a.height) {
      sx = extend_index(sx, a.width, a.ext);
      sy = extend_index(sy, a.height, a.ext);
      v = sx < 0 || sy < 0 ? filled<C, float>(outside) : read<C>(src, sx, sy);
    } else {
      v = read<C>(src, sx, sy);
    }
    write<C, Kinds::No16>(dst, bx, by, v);  // a float buffer
  }
}

// The taps of each term's smoothed buffer (DerivativeArgs) and the measure, all channels at once.
template <int C>
__global__ void derivative_kernel(Io smoothed0, Io smoothed1, Io dst, DerivativeArgs a) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= a.width) return;
  const bool squares = squares_terms(a);
  // Several rows a thread, their loads in flight together (the pass is latency bound:
  // docs/bench/README.md).
#pragma unroll
  for (int r = 0; r < kDerivativeRows; ++r) {
    const int y = blockIdx.y * kDerivativeRows + r;
    if (y >= a.height) return;
    // Away from the unpadded borders the neighbours are read without extend_index.
    const bool inside =
        (a.pad_x || (x >= 1 && x + 1 < a.width)) && (a.pad_y || (y >= 1 && y + 1 < a.height));
    Vec<C> acc = zero_vec<C>();
    for (int t = 0; t < a.terms; ++t) {
      const Io b = t == 0 ? smoothed0 : smoothed1;
      Vec<C> sum = zero_vec<C>();
      for (int k = 0; k < a.taps[t]; ++k) {
        const int bx = inside ? x + a.pad_x + a.tap_x[t][k]
                              : smoothed_index(x + a.tap_x[t][k], a.width, a.pad_x, a.ext);
        const int by = inside ? y + a.pad_y + a.tap_y[t][k]
                              : smoothed_index(y + a.tap_y[t][k], a.height, a.pad_y, a.ext);
        fma_into(sum, a.weight[t][k], read<C, Kinds::No16>(b, bx, by));  // float buffers
      }
#pragma unroll
      for (int c = 0; c < C; ++c) acc.v[c] += squares ? sum.v[c] * sum.v[c] : sum.v[c];
    }
    if (squares) {
#pragma unroll
      for (int c = 0; c < C; ++c) acc.v[c] = sqrtf(acc.v[c]);
    }
    write<C>(dst, x, y, acc);
  }
}

// A Gaussian derivative (filters/core/derivative.h) that is not one partial taken in its
// smoothing's output stage (make_frame_filter). Where every term's smoothing takes its difference
// (make_fused_partial), the first term's into a buffer and the last's straight out, combined with
// the buffer as it is written (CudaFilter::combine_with): the measure costs no pass. Otherwise
// (algorithms other than 5 and 6) each term's smoothing of the image, padded where the extension
// asks, into a buffer; then the differences and the measure in one kernel.
class DerivativeFilter final : public FrameFilter {
 public:
  DerivativeFilter(const FilterSpec& spec, int width, int height, PixelFormat format)
      : plan_(derivative_plan(spec, width, height)),
        outside_(spec.ext == Extension::Constant ? float(spec.cval) : 0.0f),
        channels_(channel_count(format)) {
    const DerivativeArgs& a = plan_.args;
    const PixelFormat f = channels_ == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F;
    std::vector<std::unique_ptr<fully_overlapped::CudaFilter>> fused;
    for (std::size_t t = 0; t < plan_.smoothing.size(); ++t) {
      auto term = make_fused_partial(plan_.smoothing[t], plan_.scale[t], width, height, f);
      if (!term) break;
      fused.push_back(std::move(term));
    }
    combined_ = fused.size() == plan_.smoothing.size();
    padded_w_ = width + (combined_ ? 0 : 2 * a.pad_x);
    padded_h_ = height + (combined_ ? 0 : 2 * a.pad_y);
    const std::size_t buffers = combined_ ? plan_.smoothing.size() - 1 : plan_.smoothing.size();
    for (std::size_t t = 0; t < buffers; ++t)
      buffers_[t].allocate_pitched(std::size_t(padded_w_) * channels_ * sizeof(float),
                                   std::size_t(padded_h_));
    if (combined_) {
      static_assert(DerivativeArgs::kMaxTerms == 2, "one term combined into the other");
      if (fused.size() == 2) fused[1]->combine_with(buffer(0), squares_terms(a));
      for (auto& term : fused) terms_.push_back(std::move(term));
    } else {
      for (const FilterSpec& term : plan_.smoothing)
        terms_.push_back(make_smoothing_filter(term, padded_w_, padded_h_, f));
    }
  }
  bool reads(IoKind) const override { return true; }
  bool writes(IoKind) const override { return true; }
  void prepare(IoKind src, IoKind dst) override {
    const bool direct =
        combined_ || (!plan_.args.pad_x && !plan_.args.pad_y && terms_[0]->reads(src));
    for (std::size_t t = 0; t < terms_.size(); ++t)
      terms_[t]->prepare(direct ? src : buffer_kind(),
                         combined_ && t + 1 == terms_.size() ? dst : buffer_kind());
  }
  // Every term's smoothing takes one route (make_smoothing_filter).
  std::string algorithm() const override { return terms_.front()->algorithm(); }
  std::vector<std::string> stage_names() const override { return derivative_stages(plan_.args); }
  void enqueue(const Io& src, const Io& dst, cudaStream_t stream, cudaEvent_t* marks) override {
    const DerivativeArgs& a = plan_.args;
    const dim3 block(256, 1);
    const std::size_t last = terms_.size() - 1;
    if (combined_) {
      // The last term writes the measure; its stage and the measure's end together.
      for (std::size_t t = 0; t <= last; ++t) {
        terms_[t]->enqueue(src, t == last ? dst : buffer(t), stream, nullptr);
        if (marks) CUDA_CHECK(cudaEventRecord(marks[t], stream));
      }
      if (marks && terms_.size() > 1) CUDA_CHECK(cudaEventRecord(marks[terms_.size()], stream));
      return;
    }
    if (!a.pad_x && !a.pad_y && terms_[0]->reads(src.kind)) {
      // Unpadded, each smoothing reads the frame itself.
      for (std::size_t t = 0; t <= last; ++t) {
        terms_[t]->enqueue(src, buffer(t), stream, nullptr);
        if (marks) CUDA_CHECK(cudaEventRecord(marks[t], stream));
      }
    } else {
      // The image padded once, into the last term's buffer: the others smooth it from there,
      // the last in place.
      const Io padded = buffer(last);
      const dim3 grid((padded_w_ + 255) / 256, (padded_h_ + kDerivativeRows - 1) / kDerivativeRows);
      if (channels_ == 1)
        pad_kernel<1><<<grid, block, 0, stream>>>(src, padded, a, outside_);
      else
        pad_kernel<4><<<grid, block, 0, stream>>>(src, padded, a, outside_);
      CUDA_CHECK_LAUNCH();
      for (std::size_t t = 0; t <= last; ++t) {
        terms_[t]->enqueue(padded, buffer(t), stream, nullptr);
        if (marks) CUDA_CHECK(cudaEventRecord(marks[t], stream));
      }
    }
    const Io b0 = buffer(0), b1 = buffer(last);
    const dim3 grid((a.width + 255) / 256, (a.height + kDerivativeRows - 1) / kDerivativeRows);
    if (channels_ == 1)
      derivative_kernel<1><<<grid, block, 0, stream>>>(b0, b1, dst, a);
    else
      derivative_kernel<4><<<grid, block, 0, stream>>>(b0, b1, dst, a);
    CUDA_CHECK_LAUNCH();
    if (marks) CUDA_CHECK(cudaEventRecord(marks[terms_.size()], stream));
  }

 private:
  IoKind buffer_kind() const { return channels_ == 1 ? IoKind::F32 : IoKind::F32x4; }
  Io buffer(std::size_t t) const {
    return Io{buffer_kind(), static_cast<char*>(buffers_[t].ptr), buffers_[t].pitch, 0};
  }

  DerivativePlan plan_;
  float outside_;
  int channels_, padded_w_ = 0, padded_h_ = 0;
  bool combined_ = false;
  std::vector<std::unique_ptr<FrameFilter>> terms_;
  DeviceBuffer buffers_[DerivativeArgs::kMaxTerms];
};

// A batch of `frames` frames goes to alg5 and alg6 whole (CudaFilter), to the others frame by
// frame (the engine's loop).
std::unique_ptr<FrameFilter> make_frame_filter(const FilterSpec& spec, int width, int height,
                                               PixelFormat format, int frames) {
  if (spec.derivative.any()) {
    // A partial whose smoothing takes its difference is that smoothing alone, frame by frame.
    const DerivativePlan d = derivative_plan(spec, width, height);
    if (d.smoothing.size() == 1)
      if (auto fused = make_fused_partial(d.smoothing[0], d.scale[0], width, height, format))
        return fused;
    return std::make_unique<DerivativeFilter>(spec, width, height, format);
  }
  return make_smoothing_filter(spec, width, height, format, frames);
}

// Frames from which algorithm 4 takes both axes at order 4 and 5 under mirror and reflect101
// (alg4_ahead): 3840x2160 and larger.
constexpr double kAlg4SymmetricPixels = 8e6;

// Whether algorithm 4 takes both axes of a frame alone in less time than algorithm 5 (H200,
// docs/bench/alg4-high-orders-h200.json, orders 4 and 5 at sigma 2 to 32, every extension, 512^2
// to 8192^2, one and four channels): only at orders 4 and 5, and only where its block recursions
// run in float (alg4_float_blocks: sigma up to about 5 at order 4 and 4 at order 5; beyond, it took
// 1.1-1.5 of the time). There, at order 5 under the extensions whose seeds read no sample (ignore,
// zero, constant) it took 0.83-0.97 of algorithm 5's time (four floats at 2048^2 1.00-1.01), and
// at both orders under mirror and reflect101 on frames of 3840x2160 and larger 0.72-1.00, where
// algorithm 5's seeds read the raw heads (fully_overlapped::reads_heads); on smaller frames, under
// clamp and repeat, and at order 4 under zero (1920x1080 to 4096^2 one float 0.88-0.96, but
// 2048^2 1.04 and 8192^2 1.03) it was slower or mixed, and algorithm 5 stays.
bool alg4_ahead(const AxisDesigns& f, Extension ext, int width, int height, PixelFormat format) {
  // 16-bit frames would cost algorithm 4 a conversion each way (it reads none: Kinds::No16).
  const bool reads_format =
      format == PixelFormat::R32F || format == PixelFormat::RGBA32F || format == PixelFormat::RGBA8;
  const int order = f.x.order();
  if (order < 4 || !reads_format || !alg4_float_blocks(f, format)) return false;
  return (order == 5 && !direct_form::seeds_read_samples(ext)) ||
         (fully_overlapped::reads_heads(ext) &&
          double(width) * double(height) >= kAlg4SymmetricPixels);
}

// How the family's CUDA filter runs the smoothing of `spec` on `frames` frames: the one choice
// make_smoothing_filter builds and make_fused_partial asks about. Auto runs algorithm 5, the
// fastest of the block algorithms and as fast at large sigma as at small (docs/bench/README.md),
// for every filter whose modes it carries (every design we ship); one-channel lines short enough
// to hold whole in shared memory, along one axis, or along both at order 3 and above in a batch
// of small frames or a single frame while the seeds read few samples; both axes of a frame alone at
// order 4 and 5 with algorithm 4 where that is faster (alg4_ahead); along one axis otherwise
// algorithm 4, or RT down the columns of a wide frame and wherever the direct form's windows cannot
// hold the filter (RT then runs the modal form).
struct SmoothingRoute {
  enum class Kind { EdgeAware, Fir, Lee, FullyOverlapped, DirectForm } kind;
  std::optional<AxisDesigns> f;                    // FullyOverlapped, DirectForm
  DirectAlgorithm direct = DirectAlgorithm::Alg4;  // DirectForm
};

SmoothingRoute smoothing_route(const FilterSpec& spec, int width, int height, PixelFormat format,
                               int frames) {
  using Kind = SmoothingRoute::Kind;
  if (spec.kind == FilterKind::EdgeAware) return {Kind::EdgeAware, std::nullopt};
  if (runs_fir(spec, Backend::Cuda, format, width, height)) return {Kind::Fir, std::nullopt};
  check_algorithm(Backend::Cuda, spec);
  if (spec.algo == Algorithm::OneWay || spec.algo == Algorithm::TwoWay)
    return {Kind::Lee, std::nullopt};
  const AxisDesigns f = design_axes(spec);
  // Whether the direct form holds the filters of both axes on lines of the frame's length: for a
  // pass whose windows stay in its lines (RT, lines in shared memory), or in runs of blocks (alg4).
  const auto holds = [&](bool runs) {
    return (!f.filters(Axis::X) || direct_form::windows_hold(f.x, width, runs)) &&
           (!f.filters(Axis::Y) || direct_form::windows_hold(f.y, height, runs));
  };
  const bool windows_hold = holds(false);
  // Lines short enough to hold whole in shared memory: a launch per axis that reads and writes
  // the frame once.
  const bool short_lines = channel_count(format) == 1 && windows_hold &&
                           (!f.filters(Axis::X) || width <= kSharedLineMax) &&
                           (!f.filters(Axis::Y) || height <= kSharedLineMax);
  // Both axes so, a launch each, where the filter costs algorithm 5 more than its bytes (order 3
  // and above): in a batch of many small frames (a volume's pages: the x,y pass of 128^3 to 512^3
  // volumes took 0.55-1.05 of algorithm 5's time at orders 3 and 5, a median 0.79), and in frames
  // alone or a few at a time, in tiles of 8 lines (single 256^2 to 1024^2 float frames:
  // 0.55-0.86; docs/bench/README.md, "Lines in shared memory" and "Tiles of 8 lines"). A few
  // frames take the route one frame takes, so that each comes out of the batch as it does alone.
  // Order 1 and 2, many frames of lines of 1024 and a partial derivative (whose difference
  // algorithm 5's output stage takes) stay with algorithm 5: two launches measured slower or
  // mixed there, or were not measured. So do extensions whose seeds read more samples than
  // shared_lines_seed_reads allows.
  const auto short_seeds = [&](const Recursive& r) {
    return direct_form::seed_reads(r, spec.ext) <= shared_lines_seed_reads(r.order(), spec.ext);
  };
  const bool both_in_lines = short_lines && f.x.order() >= 3 && !spec.derivative.any() &&
                             (frames < kSharedLinesBatch || (width <= kSharedLinesBatchLine &&
                                                             height <= kSharedLinesBatchLine)) &&
                             short_seeds(f.x) && short_seeds(f.y);
  if (spec.algo == Algorithm::Auto && short_lines && (f.axes != Axes::Both || both_in_lines))
    return {Kind::DirectForm, f, DirectAlgorithm::SharedLines};
  if (spec.algo == Algorithm::Auto && f.axes == Axes::Both && frames == 1 &&
      !spec.derivative.any() && alg4_ahead(f, spec.ext, width, height, format) && holds(true))
    return {Kind::DirectForm, f, DirectAlgorithm::Alg4};
  if (spec.algo == Algorithm::Alg5 || spec.algo == Algorithm::Alg6 ||
      (spec.algo == Algorithm::Auto && fully_overlapped::carries_modes(f) && f.axes == Axes::Both))
    return {Kind::FullyOverlapped, f};
  if (spec.algo == Algorithm::RT || spec.algo == Algorithm::Alg4)
    return {Kind::DirectForm, f,
            spec.algo == Algorithm::RT ? DirectAlgorithm::RT : DirectAlgorithm::Alg4};
  // Auto, one axis or modes the states cannot carry. Down the columns alone of a frame this wide,
  // a thread per column reads and writes whole rows at a time, and RT beats algorithm 4's pass
  // and transpose (docs/bench/README.md: a 512^3 volume's pass through its pages, H200, 0.83 ms
  // against 1.02 at order 1). Beyond the direct form's window limit for lines of this length (a
  // wide order-4 or -5 Gaussian, order 3 near its cap on long lines) RT runs its lines in the
  // modal form, which algorithm 4's block matrices cannot.
  const bool wide_frame =
      f.axes == Axes::Y && std::size_t(width) * channel_count(format) >= kRtColumns;
  return {Kind::DirectForm, f,
          wide_frame || !holds(true) ? DirectAlgorithm::RT : DirectAlgorithm::Alg4};
}

std::unique_ptr<fully_overlapped::CudaFilter> make_fully_overlapped(
    const FilterSpec& spec, const AxisDesigns& f, int width, int height, PixelFormat format,
    int frames, const fully_overlapped::OutputDifference& diff = {}) {
  // A batch whole in each launch's grid (its y or z, at most 65535 frames); a longer one frame by
  // frame.
  return std::make_unique<fully_overlapped::CudaFilter>(
      f, spec.ext, width, height, channel_count(format),
      spec.algo == Algorithm::Alg6 ? fully_overlapped::FixPlace::ColumnScan
                                   : fully_overlapped::FixPlace::RowScan,
      spec.cval, frames <= kMaxGridFrames ? frames : 1, diff);
}

// The smoothing of one term of a derivative (derivative_plan: spec.derivative its partial, its
// taps' factor `scale`) with the difference taken in its output stage, where that smoothing runs
// on the fully overlapped filter; null otherwise. Along y under clamp, zero and constant it runs
// on the image padded by a row each way (fully_overlapped::pads_rows).
std::unique_ptr<fully_overlapped::CudaFilter> make_fused_partial(const FilterSpec& spec,
                                                                 double scale, int width,
                                                                 int height, PixelFormat format) {
  const fully_overlapped::OutputDifference diff{spec.derivative.x, spec.derivative.y, scale};
  if (!fully_overlapped::takes_difference(diff, spec.ext)) return nullptr;
  const SmoothingRoute r = smoothing_route(spec, width, height, format, 1);
  if (r.kind != SmoothingRoute::Kind::FullyOverlapped || r.f->x.causal_only || r.f->y.causal_only)
    return nullptr;
  return make_fully_overlapped(spec, *r.f, width, height, format, 1, diff);
}

// The family's CUDA filter for `spec` (smoothing_route).
std::unique_ptr<FrameFilter> make_smoothing_filter(const FilterSpec& spec, int width, int height,
                                                   PixelFormat format, int frames) {
  const SmoothingRoute r = smoothing_route(spec, width, height, format, frames);
  switch (r.kind) {
    case SmoothingRoute::Kind::EdgeAware:
      return std::make_unique<EdgeAwareFilter>(spec, width, height, channel_count(format));
    case SmoothingRoute::Kind::Fir:
      return make_fir_frame_filter(spec, width, height, format);
    case SmoothingRoute::Kind::Lee:
      validate(spec);
      return std::make_unique<LeeFilter>(spec, width, height, channel_count(format));
    case SmoothingRoute::Kind::FullyOverlapped:
      return make_fully_overlapped(spec, *r.f, width, height, format, frames);
    case SmoothingRoute::Kind::DirectForm:
      break;
  }
  return make_direct_form_filter(*r.f, spec.ext, width, height, format, r.direct, spec.cval,
                                 frames);
}

class CudaEngine final : public Engine {
 public:
  CudaEngine() {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    description_ = std::string("CUDA, ") + prop.name + " (sm_" + std::to_string(prop.major) +
                   std::to_string(prop.minor) + ")";
    CUDA_CHECK(cudaStreamCreateWithFlags(&capture_stream_, cudaStreamNonBlocking));
  }

  ~CudaEngine() override {
    drop_graphs();
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    if (capture_stream_) cudaStreamDestroy(capture_stream_);
  }

  Backend backend() const override { return Backend::Cuda; }
  std::string description() const override { return description_; }
  std::string method() const override { return method_; }
  std::string algorithm() const override { return filter_ ? filter_->algorithm() : std::string(); }

  void plan_batch(const FilterSpec& spec, int width, int height, int frames,
                  PixelFormat format) override {
    if (filter_ && spec == spec_ && width == width_ && height == height_ && frames == frames_ &&
        format == format_)
      return;
    filter_.reset();
    if (width <= 0 || height <= 0)
      throw InvalidParameter("image size must be positive (got " + std::to_string(width) + "x" +
                             std::to_string(height) + ")");
    if (frames < 1 || std::int64_t(height) * frames > INT_MAX)
      throw InvalidParameter("batch: " + std::to_string(frames) + " frames of " +
                             std::to_string(height) + " rows (1 to " + std::to_string(INT_MAX) +
                             " rows in all)");
    validate(spec);
    check_format(spec, format);
    if (format == PixelFormat::R64F)
      throw InvalidParameter(
          "float64 frames: the CUDA backend filters float32, float16, 16- and 8-bit frames; the "
          "CPU backend filters float64 in double");
    drop_graphs();
    for (DeviceBuffer* b : {&staging_in_, &staging_out_, &float_in_, &float_out_}) b->reset();
    filter_ = make_frame_filter(spec, width, height, format, frames);
    method_ = method_text(spec, runs_fir(spec, Backend::Cuda, format, width, height));
    spec_ = spec;
    width_ = width;
    height_ = height;
    frames_ = frames;
    format_ = format;
    // One event before and after the upload, one after each stage, one after the download.
    const std::size_t events = filter_->stage_names().size() + 3;
    while (events_.size() < events) {
      cudaEvent_t e = nullptr;
      CUDA_CHECK(cudaEventCreate(&e));
      events_.push_back(e);
    }
  }

  void run(const FrameView& in, const FrameView& out, void* stream_handle) override {
    if (!filter_) throw std::logic_error("Engine::run before plan");
    check_view(in, "input", true);
    check_view(out, "output");
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    const std::size_t row_bytes = std::size_t(width_) * bytes_per_pixel(format_);
    const std::size_t rows = std::size_t(height_) * frames_;  // a batch's frames, one after another

    if (timing_) CUDA_CHECK(cudaEventRecord(events_[0], stream));
    Io src = io_of(in);
    if (in.space == MemorySpace::Host) {
      if (!staging_in_.ptr) staging_in_.allocate_pitched(row_bytes, rows);
      CUDA_CHECK(cudaMemcpy2DAsync(staging_in_.ptr, staging_in_.pitch, in.data, packed_pitch(in),
                                   row_bytes, rows, cudaMemcpyHostToDevice, stream));
      src = Io{kind_of(in), static_cast<char*>(staging_in_.ptr), staging_in_.pitch, 0};
    }
    Io dst = io_of(out);
    if (out.space == MemorySpace::Host) {
      if (!staging_out_.ptr) staging_out_.allocate_pitched(row_bytes, rows);
      dst = Io{kind_of(out), static_cast<char*>(staging_out_.ptr), staging_out_.pitch, 0};
    }

    prepare(src.kind, dst.kind);
    if (timing_) {
      CUDA_CHECK(cudaEventRecord(events_[1], stream));
      enqueue(src, dst, stream, &events_[2]);
    } else {
      launch_graph(src, dst, stream);
    }

    if (out.space == MemorySpace::Host)
      CUDA_CHECK(cudaMemcpy2DAsync(out.data, packed_pitch(out), staging_out_.ptr,
                                   staging_out_.pitch, row_bytes, rows, cudaMemcpyDeviceToHost,
                                   stream));
    if (timing_)
      collect_timings(stream);
    else if (out.space == MemorySpace::Host)
      CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  bool batches_whole() const override { return filter_ && filter_->batches(); }

  void set_timing(bool enabled) override { timing_ = enabled; }
  std::vector<StageTime> timings() const override { return timings_; }

 private:
  // The output matches the plan; an input may also be RGBA8 on the device for an RGBA32F plan (a
  // camera or video frame filtered to float without a float copy of it).
  void check_view(const FrameView& v, const char* what, bool input = false) const {
    const bool format_ok =
        v.format == format_ || (input && format_ == PixelFormat::RGBA32F &&
                                v.format == PixelFormat::RGBA8 && v.space != MemorySpace::Host);
    if (v.width != width_ || v.height != height_ || v.frames != frames_ || !format_ok)
      throw InvalidParameter(std::string("the ") + what +
                             " frame does not match the planned size, frames and format");
    if (v.space == MemorySpace::CudaSurface && frames_ > 1)
      throw InvalidParameter(std::string("the ") + what +
                             " frame: a batch lives in host or device memory, not on a surface");
    if (v.space == MemorySpace::CudaSurface ? v.surface == 0 : v.data == nullptr)
      throw InvalidParameter(std::string("the ") + what + " frame has no data");
    if (v.space == MemorySpace::CudaSurface && bytes_per_pixel(v.format) == 2)
      throw InvalidParameter(std::string("the ") + what + " frame: " + to_string(v.format) +
                             " frames live in host or device memory, not on surfaces");
  }

  Io io_of(const FrameView& v) const {
    return Io{kind_of(v), static_cast<char*>(v.data), packed_pitch(v),
              static_cast<cudaSurfaceObject_t>(v.surface)};
  }

  int channels() const { return channel_count(format_); }

  Io float_io(const DeviceBuffer& b) const {
    return Io{float_kind(channels()), static_cast<char*>(b.ptr), b.pitch, 0};
  }

  // Float buffers for the kinds the filter does not take, and the filter's own allocations:
  // outside any graph capture, on first need, kept until the next plan.
  void prepare(IoKind src, IoKind dst) {
    const std::size_t row_bytes = std::size_t(width_) * channels() * sizeof(float);
    const std::size_t rows = std::size_t(height_) * frames_;
    if (!filter_->reads(src) && !float_in_.ptr) float_in_.allocate_pitched(row_bytes, rows);
    if (!filter_->writes(dst) && !float_out_.ptr) float_out_.allocate_pitched(row_bytes, rows);
    filter_->prepare(filter_->reads(src) ? src : float_kind(channels()),
                     filter_->writes(dst) ? dst : float_kind(channels()));
  }

  void enqueue(const Io& src, const Io& dst, cudaStream_t stream, cudaEvent_t* marks) {
    const Io fsrc = filter_->reads(src.kind) ? src : float_io(float_in_);
    const Io fdst = filter_->writes(dst.kind) ? dst : float_io(float_out_);
    const int rows = height_ * frames_;
    if (fsrc.ptr != src.ptr || fsrc.kind != src.kind)
      convert_frame(src, fsrc, width_, rows, channels(), stream);
    if (filter_->batches() || frames_ == 1) {
      filter_->enqueue(fsrc, fdst, stream, marks);
    } else {
      // Frame after frame; the stage marks fall in the last, so the first stage also times the
      // frames before it.
      for (int k = 0; k < frames_; ++k) {
        auto frame = [&](Io io) {
          io.ptr += std::size_t(k) * height_ * io.pitch;
          return io;
        };
        filter_->enqueue(frame(fsrc), frame(fdst), stream, k + 1 == frames_ ? marks : nullptr);
      }
    }
    if (fdst.ptr != dst.ptr || fdst.kind != dst.kind) {
      convert_frame(fdst, dst, width_, rows, channels(), stream);
      // The conversion belongs to the last stage.
      if (marks) CUDA_CHECK(cudaEventRecord(marks[filter_->stage_names().size() - 1], stream));
    }
  }

  // Events: 0 before the upload, 1 after it, then one after each stage, then the download.
  void collect_timings(cudaStream_t stream) {
    std::vector<std::string> names = {"upload"};
    for (const std::string& s : filter_->stage_names()) names.push_back(s);
    names.push_back("download");
    const std::size_t last = names.size();
    CUDA_CHECK(cudaEventRecord(events_[last], stream));
    CUDA_CHECK(cudaEventSynchronize(events_[last]));
    timings_.clear();
    for (std::size_t i = 0; i < last; ++i) {
      float ms = 0.f;
      CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]));
      timings_.push_back({names[i], double(ms)});
    }
  }

  // The launches as one graph per pair of frame buffers. The studio's pipeline alternates between
  // the buffers of its frame slots, so the graphs of the last few pairs are kept: each pair is
  // captured and instantiated once, not on every frame.
  void launch_graph(const Io& src, const Io& dst, cudaStream_t stream) {
    auto same = [](const Io& a, const Io& b) {
      return a.kind == b.kind && a.ptr == b.ptr && a.pitch == b.pitch && a.surf == b.surf;
    };
    auto hit = std::find_if(graphs_.begin(), graphs_.end(), [&](const CachedGraph& g) {
      return same(src, g.src) && same(dst, g.dst);
    });
    if (hit == graphs_.end()) {
      if (graphs_.size() == kCachedGraphs) {
        cudaGraphExecDestroy(graphs_.back().exec);
        graphs_.pop_back();
      }
      cudaGraph_t graph = nullptr;
      CUDA_CHECK(cudaStreamBeginCapture(capture_stream_, cudaStreamCaptureModeThreadLocal));
      try {
        enqueue(src, dst, capture_stream_, nullptr);
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

  void drop_graphs() {
    for (const CachedGraph& g : graphs_) cudaGraphExecDestroy(g.exec);
    graphs_.clear();
  }

  std::string description_;
  FilterSpec spec_;
  std::string method_;
  int width_ = 0, height_ = 0, frames_ = 1;
  PixelFormat format_ = PixelFormat::R32F;
  std::unique_ptr<FrameFilter> filter_;
  DeviceBuffer staging_in_, staging_out_, float_in_, float_out_;
  cudaStream_t capture_stream_ = nullptr;
  struct CachedGraph {
    cudaGraphExec_t exec;
    Io src, dst;
  };
  static constexpr std::size_t kCachedGraphs = 16;  // more than the studio has frame slots
  std::vector<CachedGraph> graphs_;
  std::vector<cudaEvent_t> events_;
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
