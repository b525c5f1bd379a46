// The CPU Engine: host frames in R32F, RGBA32F or RGBA8, filtered in float with OpenMP.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/edge_aware/edge_aware.h"
#include "filters/lee2014/lee2014.h"
#include "filters/recursive/fully_overlapped_cpu.h"
#include "filters/recursive/overlapped_cpu.h"
#include "filters/recursive/recursive_cpu.h"

namespace rf {
namespace {

using Clock = std::chrono::steady_clock;

// Copies of less than a megabyte run on one thread: waking another costs more than it saves.
constexpr std::size_t kParallelCopyFloats = std::size_t(1) << 18;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

const char* format_name(PixelFormat f) {
  switch (f) {
    case PixelFormat::R32F:
      return "R32F";
    case PixelFormat::RGBA32F:
      return "RGBA32F";
    default:
      return "RGBA8";
  }
}

class CpuEngine final : public Engine {
 public:
  Backend backend() const override { return Backend::Cpu; }

  std::string description() const override {
    const int n = omp_get_max_threads();
    return "CPU, OpenMP " + std::to_string(n) + (n == 1 ? " thread" : " threads");
  }

  void plan(const FilterSpec& spec, int width, int height, PixelFormat format) override {
    if (planned_ && spec == spec_ && width == width_ && height == height_ && format == format_)
      return;
    if (width < 1 || height < 1)
      throw InvalidParameter("frame size: " + std::to_string(width) + "x" + std::to_string(height) +
                             " is empty");
    planned_ = false;
    recursive_.reset();
    edge_aware_.reset();
    lee_.reset();
    overlapped_.reset();
    fully_.reset();
    const int channels = channel_count(format);
    check_algorithm(Backend::Cpu, spec);
    const bool lee = spec.algo == Algorithm::OneWay || spec.algo == Algorithm::TwoWay;
    if (spec.kind == FilterKind::EdgeAware) {
      edge_aware_.emplace(spec, width, height, channels);
    } else if (lee) {
      validate(spec);
      lee_.emplace(
          spec.algo == Algorithm::OneWay ? lee2014::Partition::OneWay : lee2014::Partition::TwoWay,
          spec.sigma, width, height, channels);
    } else if (spec.algo == Algorithm::Alg6) {
      // The CUDA kernels' stages in mode states, for teaching and comparison.
      fully_.emplace(design(spec), spec.ext, width, height, channels);
    } else if (spec.algo == Algorithm::Alg5) {
      // The fully overlapped block-parallel algorithm, blueprint of the CUDA kernels, for
      // teaching and comparison; it takes one channel, so RGBA is filtered plane by plane.
      overlapped_.emplace(design(spec), spec.ext, width, height);
    } else {
      recursive_.emplace(design(spec), spec.ext, width, height, channels);
    }
    spec_ = spec;
    width_ = width;
    height_ = height;
    format_ = format;
    // Packed float frames are filtered in place in `out`: the staging copy is allocated only for
    // RGBA8 and the edge-aware filter here, and for a pitched float output on its first run. An
    // 8192^2 RGBA float image is 1 GiB; a copy nobody needs would double the engine's memory.
    const std::size_t floats = std::size_t(width) * height * channels;
    std::vector<float>().swap(stage_);
    if (format == PixelFormat::RGBA8 || edge_aware_) stage_.assign(floats, 0.0f);
    std::vector<float>().swap(result_);
    if (edge_aware_ || (overlapped_ && channels > 1)) result_.assign(floats, 0.0f);
    planned_ = true;
  }

  void run(const FrameView& in, const FrameView& out, void*) override {
    if (!planned_) throw std::logic_error("CPU engine: run() before plan()");
    check_view(in, "input");
    check_view(out, "output");
    times_.clear();
    const int C = channel_count(format_);
    const std::size_t packed = std::size_t(width_) * C * sizeof(float);

    // Recursive filters run in place: on `out` itself when it is packed float, else on stage_.
    // The edge-aware plan reads one buffer and writes another.
    auto t0 = Clock::now();
    float* work = nullptr;
    if (!edge_aware_ && format_ != PixelFormat::RGBA8 && out.pitch == packed) {
      work = static_cast<float*>(out.data);
      if (in.data != out.data || in.pitch != out.pitch) copy_in(in, work);
    } else {
      stage_.resize(std::size_t(width_) * height_ * C);
      work = stage_.data();
      copy_in(in, work);
    }
    record("convert in", t0);

    if (lee_) {
      t0 = Clock::now();
      lee_->run(work, work);
      record(lee2014::to_string(lee_->partition()), t0);
    } else if (recursive_) {
      t0 = Clock::now();
      recursive_->run_columns(work);
      record("columns", t0);
      t0 = Clock::now();
      recursive_->run_rows(work);
      record("rows", t0);
    } else if (fully_) {
      t0 = Clock::now();
      fully_->run(work, work);
      record("alg6", t0);
    } else if (overlapped_) {
      t0 = Clock::now();
      run_overlapped(work, C);
      record("alg5", t0);
    } else {
      t0 = Clock::now();
      edge_aware_->run(work, result_.data());
      work = result_.data();
      record("edge-aware", t0);
    }

    t0 = Clock::now();
    if (work != out.data) copy_out(work, out);
    record("convert out", t0);
  }

  void set_timing(bool enabled) override { timing_ = enabled; }
  std::vector<StageTime> timings() const override { return times_; }

 private:
  // Channel by channel through one plane of result_, for interleaved RGBA.
  void run_overlapped(float* work, int C) {
    if (C == 1) return overlapped_->run(work, work);
    const std::size_t pixels = std::size_t(width_) * height_;
    float* plane = result_.data();
    for (int c = 0; c < C; ++c) {
      for (std::size_t i = 0; i < pixels; ++i) plane[i] = work[i * C + c];
      overlapped_->run(plane, plane);
      for (std::size_t i = 0; i < pixels; ++i) work[i * C + c] = plane[i];
    }
  }

  void check_view(const FrameView& v, const char* what) const {
    const std::string name = what;
    if (v.space != MemorySpace::Host)
      throw InvalidParameter(name + " frame: the CPU engine reads and writes host memory only");
    if (v.width != width_ || v.height != height_ || v.format != format_)
      throw InvalidParameter(name + " frame: " + std::to_string(v.width) + "x" +
                             std::to_string(v.height) + " " + format_name(v.format) +
                             " differs from the planned " + std::to_string(width_) + "x" +
                             std::to_string(height_) + " " + format_name(format_));
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
      } else {
        std::memmove(dst, s, sizeof(float) * row);
      }
    }
  }

  void record(const char* stage, Clock::time_point t0) {
    if (timing_) times_.push_back({stage, ms_since(t0)});
  }

  bool planned_ = false;
  bool timing_ = false;
  FilterSpec spec_;
  int width_ = 0, height_ = 0;
  PixelFormat format_ = PixelFormat::RGBA32F;
  std::optional<cpu::ImagePlan> recursive_;
  std::optional<cpu::EdgeAwarePlan> edge_aware_;
  std::optional<cpu::OverlappedPlan> overlapped_;
  std::optional<fully_overlapped::CpuFilter> fully_;
  std::optional<lee2014::Plan> lee_;  // yvrg with algorithm one-way or two-way
  std::vector<float> stage_;   // packed float copy of the input (RGBA8, pitched or edge-aware)
  std::vector<float> result_;  // edge-aware output before conversion; one overlapped plane
  std::vector<StageTime> times_;
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine() {
  return std::make_unique<CpuEngine>();
}

}  // namespace rf
