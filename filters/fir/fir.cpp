#include "filters/fir/fir.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "filters/core/design.h"
#include "filters/core/extension.h"
#include "filters/core/filter_table.h"

namespace rf {
namespace {

// The largest sigma at which the FIR beats the recursive filter of each order (1..5), measured
// with the engine's auto algorithms beside each other in one run; a sigma is kept where the FIR
// is at least 2% ahead at it and at every smaller sigma of the list. Each kind of frame has its
// classes by the frame's pixels, the first whose bound the frame is within:
//   CUDA  one channel (float, and the 16-bit kinds with it): up to 1920x1080, up to 3840x2160
//         (2048^2 measured the same) and beyond (4096^2), each from
//         docs/bench/fir-crossover-sizes-h200.json, measured at those sizes at sigma 2 to 16
//         (4096^2 from 1) after the tuned FIR's two passes batched their loads. Order 1 of the
//         middle class keeps 4096^2's 1 (at sigma 2 the FIR was 1.6% ahead at 2048^2 and 3%
//         behind at 3840x2160). RGBA8: frames up to 1920x1080 from the same record; larger ones
//         from docs/bench/four-channel-tiles-h200.json (crossover_x4, 3840x2160), which the new
//         record confirms at 3840x2160 (at 2048^2 and 4096^2 the FIR is up to 5% slower at the
//         table's sigma of orders 2 to 4). Four floats from four-channel-tiles-h200.json (4096^2
//         f32x4).
//   CPU   docs/bench/fir-crossover-cpu.json: 2048^2, 2 cores, the recursion near the copy floor.
struct FrameClass {
  double max_pixels;
  double sigma[5];  // orders 1..5
};
constexpr double kAnyFrame = std::numeric_limits<double>::infinity();
constexpr FrameClass kCudaOneChannel[] = {{2.5e6, {4.0, 8.0, 12.0, 16.0, 16.0}},
                                          {8.3e6, {1.0, 4.0, 8.0, 12.0, 16.0}},
                                          {kAnyFrame, {1.0, 2.0, 5.0, 8.0, 12.0}}};
constexpr FrameClass kCudaRgba8[] = {{2.5e6, {1.0, 2.0, 5.0, 8.0, 12.0}},
                                     {kAnyFrame, {0.5, 2.0, 5.0, 8.0, 10.0}}};
constexpr FrameClass kCudaRgba32f[] = {{kAnyFrame, {0.5, 2.0, 4.0, 6.0, 8.0}}};
constexpr FrameClass kCpu[] = {{kAnyFrame, {0.5, 0.5, 0.75, 0.75, 1.0}}};

template <std::size_t N>
const double* crossover(const FrameClass (&classes)[N], double pixels) {
  for (const FrameClass& c : classes)
    if (pixels <= c.max_pixels) return c.sigma;
  return classes[N - 1].sigma;
}

// A FIR along the lines of packed frames. Each output row is made in one go: its column sums
// (the 2 ry + 1 input rows around it, which stay in cache from row to row) into the thread's
// line, the line continued by the extension at both ends, then the row sums into the output. So
// the frame is read and written once, as a copy is; in place, the input is first copied aside.
// Symmetric taps: each step adds t_k (a + b) of the two samples k away, over a block of samples
// held in registers and L1 (SIMD lanes), rows across OpenMP threads.
template <class T>
class FirPlan {
  static constexpr std::size_t kBlock = 256;  // outputs a block accumulates at once

 public:
  FirPlan(const FilterSpec& spec, int width, int height, int channels)
      : w_(width),
        h_(height),
        c_(channels),
        n_(std::size_t(width) * channels),
        ext_(spec.ext == Extension::Ignore ? Extension::Zero : spec.ext),
        outside_(spec.ext == Extension::Constant ? T(spec.cval) : T(0)) {
    const auto half = [](double sigma) {
      const int r = gaussian_fir_radius(sigma);
      const std::vector<double> taps = gaussian_fir_taps(sigma, r);
      return std::vector<T>(taps.begin() + r, taps.end());  // t_0 .. t_r
    };
    // An axis the spec leaves alone takes the one tap t_0 = 1.
    tx_ = filters_along(spec, Axis::X) ? half(sigma_along(spec, Axis::X)) : std::vector<T>{T(1)};
    ty_ = filters_along(spec, Axis::Y) ? half(sigma_along(spec, Axis::Y)) : std::vector<T>{T(1)};
    constant_row_.assign(n_, outside_);
    line_ = n_ + 2 * (tx_.size() - 1) * std::size_t(c_);
    lines_.resize(std::size_t(omp_get_max_threads()) * line_);
  }

  // `in` into `out`; in == out allowed.
  void run(const T* in, T* out) {
    const int rx = int(tx_.size()) - 1, ry = int(ty_.size()) - 1;
    if (in == out && ry > 0) {
      // The rows around an output row are read after it is written: filter from a copy.
      copy_.resize(n_ * std::size_t(h_));
      std::memcpy(copy_.data(), in, copy_.size() * sizeof(T));
      in = copy_.data();
    }
    const std::size_t step = std::size_t(c_);
    auto row = [&](int y) {
      const int j = extend_index(y, h_, ext_);
      return j < 0 ? constant_row_.data() : in + std::size_t(j) * n_;
    };
#pragma omp parallel for schedule(static) if (n_ * h_ * (rx + ry + 1) > (1u << 18))
    for (int y = 0; y < h_; ++y) {
      T* line = lines_.data() + std::size_t(omp_get_thread_num()) * line_;
      T* mid = line + std::size_t(rx) * step;
      const T* src = in + std::size_t(y) * n_;
      for (std::size_t i0 = 0; i0 < n_; i0 += kBlock)
        block(
            mid + i0, src + i0, std::min(kBlock, n_ - i0), ty_,
            [&](int k) { return row(y - k) + i0; }, [&](int k) { return row(y + k) + i0; });
      for (int i = 1; i <= rx; ++i)
        for (int x : {-i, w_ - 1 + i}) {
          const int j = extend_index(x, w_, ext_);
          for (int ch = 0; ch < c_; ++ch)
            mid[std::ptrdiff_t(x) * c_ + ch] = j < 0 ? outside_ : mid[std::size_t(j) * step + ch];
        }
      T* o = out + std::size_t(y) * n_;
      for (std::size_t i0 = 0; i0 < n_; i0 += kBlock)
        block(
            o + i0, mid + i0, std::min(kBlock, n_ - i0), tx_,
            [&](int k) { return mid + i0 - k * step; }, [&](int k) { return mid + i0 + k * step; });
    }
  }

 private:
  // A run of m <= kBlock outputs: t_0 mid[i] + sum_k t_k (before(k)[i] + after(k)[i]).
  template <class Before, class After>
  static void block(T* o, const T* mid, std::size_t m, const std::vector<T>& taps,
                    const Before& before, const After& after) {
    T acc[kBlock];
    const T t0 = taps[0];
#pragma omp simd
    for (std::size_t i = 0; i < m; ++i) acc[i] = t0 * mid[i];
    for (std::size_t k = 1; k < taps.size(); ++k) {
      const T* a = before(int(k));
      const T* b = after(int(k));
      const T t = taps[k];
#pragma omp simd
      for (std::size_t i = 0; i < m; ++i) acc[i] += t * (a[i] + b[i]);
    }
    std::memcpy(o, acc, m * sizeof(T));
  }

  int w_, h_, c_;
  std::size_t n_;  // samples in a row
  Extension ext_;
  T outside_;
  std::vector<T> tx_, ty_;  // t_0 .. t_r of each axis
  std::vector<T> constant_row_, lines_, copy_;
  std::size_t line_ = 0;  // a thread's line: the row and rx samples on each side
};

class FirHostFilter final : public HostFilter {
 public:
  FirHostFilter(const FilterSpec& spec, int width, int height, int channels)
      : spec_(spec),
        width_(width),
        height_(height),
        channels_(channels),
        single_(spec, width, height, channels) {}
  // Rows are written as they are made, from the rows around them: the engine hands a copy.
  bool in_place() const override { return false; }
  std::string algorithm() const override { return "fir"; }
  std::vector<std::string> stage_names() const override { return {"fir"}; }
  void run(const float* in, float* out, const std::function<void(std::size_t)>& mark) override {
    single_.run(in, out);
    mark(0);
  }
  bool runs_double() const override { return true; }
  void run(double* data, const std::function<void(std::size_t)>& mark) override {
    if (!twice_) twice_ = std::make_unique<FirPlan<double>>(spec_, width_, height_, channels_);
    twice_->run(data, data);
    mark(0);
  }

 private:
  FilterSpec spec_;
  int width_, height_, channels_;
  FirPlan<float> single_;
  std::unique_ptr<FirPlan<double>> twice_;  // made on the first double frame
};

// The largest sigma of the filtered axes.
double largest_sigma(const FilterSpec& spec) {
  double s = 0.0;
  for (Axis axis : {Axis::X, Axis::Y})
    if (filters_along(spec, axis)) s = std::max(s, sigma_along(spec, axis));
  return s;
}

}  // namespace

int gaussian_fir_radius(double sigma) {
  return int(kFirTruncate * sigma + 0.5);
}

std::vector<double> gaussian_fir_taps(double sigma, int radius) {
  std::vector<double> taps(std::size_t(2 * radius + 1));
  double sum = 0.0;
  for (int k = -radius; k <= radius; ++k)
    sum += taps[std::size_t(k + radius)] = std::exp(-0.5 * k * k / (sigma * sigma));
  for (double& t : taps) t /= sum;
  return taps;
}

bool runs_fir(const FilterSpec& spec, Backend backend, PixelFormat format, int width, int height) {
  if (!info(spec.kind).params.has(Param::GaussianMethod)) return false;
  switch (spec.gaussian_method) {
    case GaussianMethod::Fir:
      return true;
    case GaussianMethod::Recursive:
      return false;
    case GaussianMethod::Auto:
      break;
  }
  if (spec.derivative.any() || spec.order < 1 || spec.order > 5) return false;
  // Below the order's least sigma the recursive design does not exist.
  for (Axis axis : {Axis::X, Axis::Y})
    if (filters_along(spec, axis) &&
        sigma_along(spec, axis) < sigma_range(spec.kind, spec.order).lo)
      return true;
  const double pixels = double(width) * height;
  const double* limits = backend == Backend::Cpu          ? crossover(kCpu, pixels)
                         : format == PixelFormat::RGBA32F ? crossover(kCudaRgba32f, pixels)
                         : format == PixelFormat::RGBA8   ? crossover(kCudaRgba8, pixels)
                                                          : crossover(kCudaOneChannel, pixels);
  return largest_sigma(spec) <= limits[spec.order - 1];
}

std::string method_text(const FilterSpec& spec, bool fir) {
  if (!fir) {
    const KindInfo& k = info(spec.kind);
    if (k.params.has(Param::Order)) return "recursive order " + std::to_string(spec.order);
    return k.title;
  }
  std::string out = "FIR radius";
  const char* sep = " ";
  for (Axis axis : {Axis::X, Axis::Y})
    if (filters_along(spec, axis)) {
      const int r = gaussian_fir_radius(sigma_along(spec, axis));
      if (axis == Axis::Y && spec.axes == Axes::Both &&
          r == gaussian_fir_radius(sigma_along(spec, Axis::X)))
        break;
      out += sep + std::to_string(r);
      sep = ",";
    }
  return out;
}

std::unique_ptr<HostFilter> make_fir_host_filter(const FilterSpec& spec, int width, int height,
                                                 int channels) {
  validate(spec);
  return std::make_unique<FirHostFilter>(spec, width, height, channels);
}

}  // namespace rf
