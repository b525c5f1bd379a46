// The CPU backend of rf::Engine: a dispatcher. plan() asks the family of the spec for its CPU
// filter (HostFilter); run() converts host frames of every format to packed float and back (R64F:
// double), and filters in place where it can.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "filters/core/derivative.h"
#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/host_filter.h"
#include "filters/edge_aware/edge_aware.h"
#include "filters/fir/fir.h"
#include "filters/lee2014/lee2014.h"
#include "filters/recursive/fully_overlapped_cpu.h"
#include "filters/recursive/rt_cpu.h"

namespace rf {
namespace {

using Clock = std::chrono::steady_clock;

// Copies of less than a megabyte run on one thread: waking another costs more than it saves.
constexpr std::size_t kParallelCopyFloats = std::size_t(1) << 18;

// RT and auto: the line filter of rt_cpu.h, columns then rows (or the one axis asked), in place.
class LineFilter final : public HostFilter {
 public:
  LineFilter(const AxisDesigns& f, Extension ext, double cval, int width, int height, int channels)
      : plan_(f, ext, width, height, channels, cval),
        floats_(std::size_t(width) * height * channels) {}
  bool in_place() const override { return true; }
  std::string algorithm() const override { return to_string(Algorithm::RT); }
  std::vector<std::string> stage_names() const override {
    std::vector<std::string> names;
    if (plan_.filters_columns()) names.push_back("columns");
    if (plan_.filters_rows()) names.push_back("rows");
    return names;
  }
  void run(const float* in, float* out, const std::function<void(std::size_t)>& mark) override {
    if (in != out) std::memcpy(out, in, floats_ * sizeof(float));
    run_passes(out, mark);
  }
  bool runs_double() const override { return true; }
  void run(double* data, const std::function<void(std::size_t)>& mark) override {
    run_passes(data, mark);
  }

 private:
  template <class T>
  void run_passes(T* data, const std::function<void(std::size_t)>& mark) {
    std::size_t stage = 0;
    if (plan_.filters_columns()) {
      plan_.run_columns(data);
      mark(stage++);
    }
    if (plan_.filters_rows()) {
      plan_.run_rows(data);
      mark(stage++);
    }
  }

  cpu::ImagePlan plan_;
  std::size_t floats_;
};

// Algorithms 5 and 6: the fully overlapped filter in the CUDA kernels' layout.
class FullyOverlappedFilter final : public HostFilter {
 public:
  FullyOverlappedFilter(const AxisDesigns& f, Extension ext, double cval, int width, int height,
                        int channels, fully_overlapped::FixPlace place)
      : filter_(f, ext, width, height, channels, place, cval),
        name_(place == fully_overlapped::FixPlace::RowScan ? "alg5" : "alg6") {}
  bool in_place() const override { return true; }
  std::string algorithm() const override { return name_; }
  std::vector<std::string> stage_names() const override { return {name_}; }
  void run(const float* in, float* out, const std::function<void(std::size_t)>& mark) override {
    filter_.run(in, out);
    mark(0);
  }

 private:
  fully_overlapped::CpuFilter filter_;
  std::string name_;
};

class EdgeAwareFilter final : public HostFilter {
 public:
  EdgeAwareFilter(const FilterSpec& spec, int width, int height, int channels)
      : plan_(spec, width, height, channels) {}
  bool in_place() const override { return false; }
  std::string algorithm() const override { return to_string(plan_.algorithm()); }
  std::vector<std::string> stage_names() const override { return {"edge-aware"}; }
  void run(const float* in, float* out, const std::function<void(std::size_t)>& mark) override {
    plan_.run(in, out);
    mark(0);
  }

 private:
  cpu::EdgeAwarePlan plan_;
};

class LeeFilter final : public HostFilter {
 public:
  LeeFilter(const FilterSpec& spec, int width, int height, int channels)
      : plan_(spec.algo == Algorithm::OneWay ? lee2014::Partition::OneWay
                                             : lee2014::Partition::TwoWay,
              spec.sigma, width, height, channels) {}
  bool in_place() const override { return true; }
  std::string algorithm() const override {
    return to_string(plan_.partition() == lee2014::Partition::OneWay ? Algorithm::OneWay
                                                                     : Algorithm::TwoWay);
  }
  std::vector<std::string> stage_names() const override {
    return {lee2014::to_string(plan_.partition())};
  }
  void run(const float* in, float* out, const std::function<void(std::size_t)>& mark) override {
    plan_.run(in, out);
    mark(0);
  }

 private:
  lee2014::Plan plan_;
};

// The family's CPU filter for `spec`: RT and auto run the line filter, which is exact in double
// at every sigma the designs offer. A derivative's smoothing is one of these.
std::unique_ptr<HostFilter> make_smoothing_filter(const FilterSpec& spec, int width, int height,
                                                  int channels) {
  if (spec.kind == FilterKind::EdgeAware)
    return std::make_unique<EdgeAwareFilter>(spec, width, height, channels);
  // The CPU's crossover is the same for every frame format.
  if (runs_fir(spec, Backend::Cpu, PixelFormat::RGBA32F, width, height))
    return make_fir_host_filter(spec, width, height, channels);
  check_algorithm(Backend::Cpu, spec);
  if (spec.algo == Algorithm::OneWay || spec.algo == Algorithm::TwoWay) {
    validate(spec);
    return std::make_unique<LeeFilter>(spec, width, height, channels);
  }
  const AxisDesigns f = design_axes(spec);
  if (spec.algo == Algorithm::Alg5 || spec.algo == Algorithm::Alg6)
    return std::make_unique<FullyOverlappedFilter>(f, spec.ext, spec.cval, width, height, channels,
                                                   spec.algo == Algorithm::Alg5
                                                       ? fully_overlapped::FixPlace::RowScan
                                                       : fully_overlapped::FixPlace::ColumnScan);
  return std::make_unique<LineFilter>(f, spec.ext, spec.cval, width, height, channels);
}

// A Gaussian derivative (filters/core/derivative.h): each term's smoothing of the image, padded
// where the extension asks, then the differences and the measure in one pass.
class DerivativeFilter final : public HostFilter {
 public:
  DerivativeFilter(const FilterSpec& spec, int width, int height, int channels)
      : plan_(derivative_plan(spec, width, height)), cval_(spec.cval), channels_(channels) {
    const DerivativeArgs& a = plan_.args;
    padded_w_ = width + 2 * a.pad_x;
    padded_h_ = height + 2 * a.pad_y;
    for (const FilterSpec& s : plan_.smoothing) {
      terms_.push_back(make_smoothing_filter(s, padded_w_, padded_h_, channels));
      buffers_.emplace_back(std::size_t(padded_w_) * padded_h_ * channels);
    }
    // Each column's three neighbours as buffer offsets; a row of sums per thread.
    columns_.resize(std::size_t(width) * 3);
    for (int x = 0; x < width; ++x)
      for (int k = 0; k < 3; ++k)
        columns_[std::size_t(x) * 3 + k] =
            std::ptrdiff_t(smoothed_index(x + k - 1, width, a.pad_x, a.ext)) * channels;
    sums_.resize(std::size_t(omp_get_max_threads()) * width * channels);
  }
  bool in_place() const override { return false; }
  // Every term's smoothing takes one route (make_smoothing_filter).
  std::string algorithm() const override { return terms_.front()->algorithm(); }
  std::vector<std::string> stage_names() const override { return derivative_stages(plan_.args); }
  void run(const float* in, float* out, const std::function<void(std::size_t)>& mark) override {
    // Padded, the image is padded once, into the last term's buffer: the others smooth it from
    // there, the last in place.
    const bool padded = plan_.args.pad_x || plan_.args.pad_y;
    const std::size_t last = terms_.size() - 1;
    if (padded) pad(in, buffers_[last].data());
    for (std::size_t t = 0; t <= last; ++t) {
      terms_[t]->run(padded ? buffers_[last].data() : in, buffers_[t].data(), [](std::size_t) {});
      mark(t);
    }
    combine(out, buffers_, sums_);
    mark(terms_.size());
  }

  // In double when every term's smoothing is (the line filter): each term smooths its own copy
  // of the (padded) frame in place.
  bool runs_double() const override {
    return std::all_of(terms_.begin(), terms_.end(),
                       [](const std::unique_ptr<HostFilter>& t) { return t->runs_double(); });
  }
  void run(double* data, const std::function<void(std::size_t)>& mark) override {
    const std::size_t padded_size = std::size_t(padded_w_) * padded_h_ * channels_;
    buffers64_.resize(terms_.size());
    for (std::vector<double>& b : buffers64_) b.resize(padded_size);
    sums64_.resize(sums_.size());
    const bool padded = plan_.args.pad_x || plan_.args.pad_y;
    if (padded)
      pad(static_cast<const double*>(data), buffers64_.front().data());
    else
      std::copy(data, data + padded_size, buffers64_.front().begin());
    for (std::size_t t = 1; t < terms_.size(); ++t) buffers64_[t] = buffers64_.front();
    for (std::size_t t = 0; t < terms_.size(); ++t) {
      terms_[t]->run(buffers64_[t].data(), [](std::size_t) {});
      mark(t);
    }
    combine(data, buffers64_, sums64_);
    mark(terms_.size());
  }

 private:
  // The image into a smoothing buffer, continued by one sample of its extension along the padded
  // axes.
  template <typename T>
  void pad(const T* in, T* dst) const {
    const DerivativeArgs& a = plan_.args;
    const int C = channels_;
#pragma omp parallel for schedule(static) if (std::size_t(padded_w_) * padded_h_ * C >= \
                                              kParallelCopyFloats)
    for (int by = 0; by < padded_h_; ++by) {
      const int sy = extend_index(by - a.pad_y, a.height, a.ext);
      T* d = dst + std::size_t(by) * padded_w_ * C;
      for (int bx = 0; bx < padded_w_; ++bx) {
        const int sx = extend_index(bx - a.pad_x, a.width, a.ext);
        for (int c = 0; c < C; ++c)
          d[bx * C + c] = sx < 0 || sy < 0 ? (a.ext == Extension::Constant ? T(cval_) : T(0))
                                           : in[(std::size_t(sy) * a.width + sx) * C + c];
      }
    }
  }

  // The taps of each term (DerivativeArgs) summed a row at a time: tap by tap over the samples
  // whose neighbours lie in the buffer (a loop the compiler vectorises), through the columns'
  // extended offsets (smoothed_index, looked up once) at the unpadded ends.
  template <typename T>
  void combine(T* out, const std::vector<std::vector<T>>& buffers, std::vector<T>& sums) const {
    const DerivativeArgs& a = plan_.args;
    const int C = channels_;
    const std::ptrdiff_t* cols = columns_.data();
    // Pixels [x0, x1) read their neighbours at x - 1 .. x + 1 of the buffer directly.
    const int x0 = a.pad_x ? 0 : std::min(1, a.width), x1 = a.pad_x ? a.width : a.width - 1;
    const bool squares = squares_terms(a);
    const std::size_t row_floats = std::size_t(a.width) * C;
    // No more threads than rows of sums were planned for (the thread count may change after).
    const int threads = int(sums.size() / std::max<std::size_t>(row_floats, 1));
#pragma omp parallel num_threads(threads) if (row_floats * a.height >= kParallelCopyFloats)
    {
      T* sum = sums.data() + std::size_t(omp_get_thread_num()) * row_floats;
#pragma omp for schedule(static)
      for (int y = 0; y < a.height; ++y) {
        T* o = out + std::size_t(y) * row_floats;
        for (int t = 0; t < a.terms; ++t) {
          std::fill(sum, sum + row_floats, T(0));
          for (int k = 0; k < a.taps[t]; ++k) {
            const T w = a.weight[t][k];
            const T* row =
                buffers[std::size_t(t)].data() +
                std::size_t(smoothed_index(y + a.tap_y[t][k], a.height, a.pad_y, a.ext)) *
                    padded_w_ * C;
            const T* p = row + std::ptrdiff_t(a.pad_x + a.tap_x[t][k]) * C;
            for (std::size_t i = std::size_t(x0) * C; i < std::size_t(std::max(x0, x1)) * C; ++i)
              sum[i] += w * p[i];
            for (int x = 0; x < a.width; ++x) {
              if (x >= x0 && x < x1) continue;
              const std::ptrdiff_t at = cols[std::size_t(x) * 3 + a.tap_x[t][k] + 1];
              for (int c = 0; c < C; ++c) sum[std::size_t(x) * C + c] += w * row[at + c];
            }
          }
          for (std::size_t i = 0; i < row_floats; ++i) {
            const T term = squares ? sum[i] * sum[i] : sum[i];
            o[i] = t == 0 ? term : o[i] + term;
          }
        }
        if (squares)
          for (std::size_t i = 0; i < row_floats; ++i) o[i] = std::sqrt(o[i]);
      }
    }
  }

  DerivativePlan plan_;
  double cval_;
  int channels_, padded_w_ = 0, padded_h_ = 0;
  std::vector<std::unique_ptr<HostFilter>> terms_;
  std::vector<std::vector<float>> buffers_;
  std::vector<std::ptrdiff_t> columns_;
  std::vector<float> sums_;  // combine()'s rows of sums, one per thread
  // The same in double, allocated by the first double run.
  std::vector<std::vector<double>> buffers64_;
  std::vector<double> sums64_;
};

std::unique_ptr<HostFilter> make_host_filter(const FilterSpec& spec, int width, int height,
                                             int channels) {
  if (spec.derivative.any())
    return std::make_unique<DerivativeFilter>(spec, width, height, channels);
  return make_smoothing_filter(spec, width, height, channels);
}

class CpuEngine final : public Engine {
 public:
  Backend backend() const override { return Backend::Cpu; }

  std::string method() const override { return method_; }
  std::string algorithm() const override { return filter_ ? filter_->algorithm() : std::string(); }

  std::string description() const override {
    const int n = omp_get_max_threads();
    return "CPU, OpenMP " + std::to_string(n) + (n == 1 ? " thread" : " threads");
  }

  void plan_batch(const FilterSpec& spec, int width, int height, int frames,
                  PixelFormat format) override {
    if (frames < 1) throw InvalidParameter("batch: " + std::to_string(frames) + " frames");
    frames_ = frames;  // the filter plans one frame; run() takes the batch's one at a time
    if (filter_ && spec == spec_ && width == width_ && height == height_ && format == format_)
      return;
    if (width < 1 || height < 1)
      throw InvalidParameter("frame size: " + std::to_string(width) + "x" + std::to_string(height) +
                             " is empty");
    filter_.reset();
    validate(spec);
    check_format(spec, format);
    auto filter = make_host_filter(spec, width, height, channel_count(format));
    if (format == PixelFormat::R64F && !filter->runs_double())
      throw InvalidParameter(std::string("float64 frames: ") + describe(spec) +
                             " runs in float; in double the CPU runs the line filter (rt or "
                             "auto)");
    filter_ = std::move(filter);
    method_ = method_text(spec, runs_fir(spec, Backend::Cpu, format, width, height));
    spec_ = spec;
    width_ = width;
    height_ = height;
    format_ = format;
    // Packed float frames are filtered in place in `out`: the staging copies are allocated only
    // when needed (RGBA8 frames, a filter that cannot run in place, a pitched float output), on
    // the first run. An 8192^2 RGBA float image is 1 GiB; a copy nobody needs would double the
    // engine's memory.
    std::vector<float>().swap(stage_);
    std::vector<float>().swap(result_);
    std::vector<double>().swap(stage64_);
  }

  void run(const FrameView& in, const FrameView& out, void*) override {
    if (!filter_) throw std::logic_error("CPU engine: run() before plan()");
    check_view(in, "input");
    check_view(out, "output");
    times_.clear();
    for (int k = 0; k < frames_; ++k) {
      const std::size_t in_at = std::size_t(k) * height_ * in.pitch;
      const std::size_t out_at = std::size_t(k) * height_ * out.pitch;
      FrameView i = in, o = out;
      i.data = static_cast<char*>(in.data) + in_at;
      o.data = static_cast<char*>(out.data) + out_at;
      i.frames = o.frames = 1;
      if (format_ == PixelFormat::R64F)
        run_double(i, o);
      else
        run_frame(i, o);
    }
  }

  void set_timing(bool enabled) override { timing_ = enabled; }
  std::vector<StageTime> timings() const override { return times_; }

 private:
  void run_frame(const FrameView& in, const FrameView& out) {
    const int C = channel_count(format_);
    const std::size_t floats = std::size_t(width_) * height_ * C;
    const std::size_t packed = std::size_t(width_) * C * sizeof(float);

    // The filter reads `work` and writes `result`: both `out` itself when it is packed float and
    // the filter runs in place.
    auto t0 = Clock::now();
    const bool direct = holds_float32(format_) && out.pitch == packed;
    float* work = nullptr;
    if (direct && filter_->in_place()) {
      work = static_cast<float*>(out.data);
      if (in.data != out.data || in.pitch != out.pitch) copy_in(in, work);
    } else {
      stage_.resize(floats);
      work = stage_.data();
      copy_in(in, work);
    }
    float* result = work;
    if (!filter_->in_place()) {  // `work` is then the staged copy
      if (direct) {
        result = static_cast<float*>(out.data);
      } else {
        result_.resize(floats);
        result = result_.data();
      }
    }
    record("convert in", t0);

    const std::vector<std::string> stages = filter_->stage_names();
    t0 = Clock::now();
    filter_->run(work, result, [&](std::size_t i) {
      record(stages[i].c_str(), t0);
      t0 = Clock::now();
    });

    t0 = Clock::now();
    if (result != out.data) copy_out(result, out);
    record("convert out", t0);
  }

  // R64F: in place in `out` when it is packed, else in a staging copy.
  void run_double(const FrameView& in, const FrameView& out) {
    const std::size_t row = std::size_t(width_) * sizeof(double);
    auto t0 = Clock::now();
    double* work = static_cast<double*>(out.data);
    if (out.pitch != row) {
      stage64_.resize(std::size_t(width_) * height_);
      work = stage64_.data();
    }
    for (int y = 0; y < height_; ++y)
      std::memmove(reinterpret_cast<char*>(work) + y * row,
                   static_cast<const char*>(in.data) + y * in.pitch, row);
    record("convert in", t0);
    const std::vector<std::string> stages = filter_->stage_names();
    t0 = Clock::now();
    filter_->run(work, [&](std::size_t i) {
      record(stages[i].c_str(), t0);
      t0 = Clock::now();
    });
    t0 = Clock::now();
    if (work != out.data)
      for (int y = 0; y < height_; ++y)
        std::memmove(static_cast<char*>(out.data) + y * out.pitch,
                     reinterpret_cast<const char*>(work) + y * row, row);
    record("convert out", t0);
  }

  void check_view(const FrameView& v, const char* what) const {
    const std::string name = what;
    if (v.space != MemorySpace::Host)
      throw InvalidParameter(name + " frame: the CPU engine reads and writes host memory only");
    if (v.frames != frames_)
      throw InvalidParameter(name + " frame: a batch of " + std::to_string(v.frames) +
                             " frames where " + std::to_string(frames_) + " were planned");
    if (v.width != width_ || v.height != height_ || v.format != format_)
      throw InvalidParameter(name + " frame: " + std::to_string(v.width) + "x" +
                             std::to_string(v.height) + " " + to_string(v.format) +
                             " differs from the planned " + std::to_string(width_) + "x" +
                             std::to_string(height_) + " " + to_string(format_));
    if (!v.data) throw InvalidParameter(name + " frame: no data");
    if (v.pitch < std::size_t(width_) * bytes_per_pixel(format_))
      throw InvalidParameter(name + " frame: pitch " + std::to_string(v.pitch) +
                             " is shorter than a row");
  }

  // Frame (any pitch, any format) to packed float.
  void copy_in(const FrameView& in, float* dst) const {
    const int C = channel_count(format_);
    const std::ptrdiff_t row = std::ptrdiff_t(width_) * C;
#pragma omp parallel for schedule(static) if (std::size_t(row) * height_ >= kParallelCopyFloats)
    for (int y = 0; y < height_; ++y) {
      const char* src = static_cast<const char*>(in.data) + y * in.pitch;
      float* d = dst + y * row;
      if (format_ == PixelFormat::RGBA8) {
        const auto* s = reinterpret_cast<const std::uint8_t*>(src);
        for (std::ptrdiff_t i = 0; i < row; ++i) d[i] = from_unorm8(s[i]);
      } else if (format_ == PixelFormat::R16U || format_ == PixelFormat::R16F) {
        const auto* s = reinterpret_cast<const std::uint16_t*>(src);
        if (format_ == PixelFormat::R16U)
          for (std::ptrdiff_t i = 0; i < row; ++i) d[i] = from_unorm16(s[i]);
        else
          for (std::ptrdiff_t i = 0; i < row; ++i) d[i] = from_half(s[i]);
      } else {
        std::memmove(d, src, sizeof(float) * row);
      }
    }
  }

  // Packed float to frame (any pitch, any format).
  void copy_out(const float* src, const FrameView& out) const {
    const int C = channel_count(format_);
    const std::ptrdiff_t row = std::ptrdiff_t(width_) * C;
#pragma omp parallel for schedule(static) if (std::size_t(row) * height_ >= kParallelCopyFloats)
    for (int y = 0; y < height_; ++y) {
      char* dst = static_cast<char*>(out.data) + y * out.pitch;
      const float* s = src + y * row;
      if (format_ == PixelFormat::RGBA8) {
        auto* d = reinterpret_cast<std::uint8_t*>(dst);
        for (std::ptrdiff_t i = 0; i < row; ++i) d[i] = to_unorm8(s[i]);
      } else if (format_ == PixelFormat::R16U || format_ == PixelFormat::R16F) {
        auto* d = reinterpret_cast<std::uint16_t*>(dst);
        if (format_ == PixelFormat::R16U)
          for (std::ptrdiff_t i = 0; i < row; ++i) d[i] = to_unorm16(s[i]);
        else
          for (std::ptrdiff_t i = 0; i < row; ++i) d[i] = to_half(s[i]);
      } else {
        std::memmove(dst, s, sizeof(float) * row);
      }
    }
  }

  // A stage's time since t0; a batch's frames add theirs to the stage's one entry.
  void record(const char* stage, Clock::time_point t0) {
    if (!timing_) return;
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    for (StageTime& t : times_)
      if (t.stage == stage) {
        t.ms += ms;
        return;
      }
    times_.push_back({stage, ms});
  }

  bool timing_ = false;
  FilterSpec spec_;
  std::string method_;
  int width_ = 0, height_ = 0, frames_ = 1;
  PixelFormat format_ = PixelFormat::RGBA32F;
  std::unique_ptr<HostFilter> filter_;
  std::vector<float> stage_;     // packed float copy of the input, when `out` cannot hold it
  std::vector<float> result_;    // the output of a filter that does not run in place
  std::vector<double> stage64_;  // an R64F frame's copy when `out` is pitched
  std::vector<StageTime> times_;
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine() {
  return std::make_unique<CpuEngine>();
}

}  // namespace rf
