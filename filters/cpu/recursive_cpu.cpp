#include "filters/cpu/recursive_cpu.h"

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "filters/errors.h"
#include "filters/initial_feedback.h"

namespace rf::cpu {
namespace {

// Lines filtered together, one per SIMD lane: 16 floats are one cache line, two AVX registers,
// and enough independent chains to hide the latency of the recursion's feedback.
constexpr int kLanes = 16;

// One BoundaryMaps matrix in float, dense over its nonzero columns: w[j * order + k] is the weight
// of sample first + j in feedback k.
struct FloatMap {
  int first = 0;
  int count = 0;
  std::vector<float> w;
};

// The initial-feedback maps of lines of one length.
struct LineMaps {
  int n = 0;
  FloatMap causal_from_x, anticausal_from_y, anticausal_from_x;
};

struct Coeffs {
  int order = 0;
  float b0 = 1.0f;
  float a[5] = {};
  bool causal_only = false;
};

FloatMap to_float(const SparseColumns& m) {
  FloatMap f;
  f.first = m.first;
  f.count = m.count;
  f.w.assign(m.w.begin(), m.w.end());
  return f;
}

LineMaps make_line_maps(const Recursive& f, Extension ext, int n) {
  LineMaps m;
  m.n = n;
  // Ignore starts every recursion from zero feedback: all three maps are zero.
  if (ext == Extension::Ignore) return m;
  const BoundaryMaps b = boundary_maps(f, ext, n);
  m.causal_from_x = to_float(b.causal_from_x);
  if (!f.causal_only) {
    m.anticausal_from_y = to_float(b.anticausal_from_y);
    m.anticausal_from_x = to_float(b.anticausal_from_x);
  }
  return m;
}

// acc[k][l] += sum_j map(k, j) * x[j][l]: one initial-feedback map applied to kLanes lines whose
// samples lie `stride` floats apart.
template <int R>
inline void apply_map(const FloatMap& m, const float* x, std::ptrdiff_t stride,
                      float (&acc)[R][kLanes]) {
  for (int j = 0; j < m.count; ++j) {
    const float* xj = x + std::ptrdiff_t(m.first + j) * stride;
    const float* w = &m.w[std::size_t(j) * R];
    for (int k = 0; k < R; ++k) {
      const float wk = w[k];
#pragma omp simd
      for (int l = 0; l < kLanes; ++l) acc[k][l] += wk * xj[l];
    }
  }
}

// Filters kLanes lines of n samples in place: sample i of lane l is x[i * stride + l].
// Causal: y_i = b0 x_i - sum_k a_k y_{i-k}, started from (y_{-1} .. y_{-R}) = causal_from_x * x;
// anticausal: z_i = b0 y_i - sum_k a_k z_{i+k}, started from (z_n .. z_{n+R-1}) =
// anticausal_from_y * y + anticausal_from_x * x (Nehab & Maximo 2016, the initial feedbacks of
// eq. 35/44 for constant padding, 49/51 for periodic and 67/72 for even-periodic extensions,
// evaluated once per line length in double by boundary_maps()). Each output overwrites its input
// and the recursion reads its history back from the line itself, so no history is shifted.
template <int R>
void filter_lines(float* x, std::ptrdiff_t stride, const Coeffs& c, const LineMaps& m) {
  const int n = m.n;
  const float b0 = c.b0;
  float a[R];
  for (int k = 0; k < R; ++k) a[k] = c.a[k];

  alignas(64) float head[R][kLanes] = {};  // y_{-1} .. y_{-R}
  alignas(64) float tail[R][kLanes] = {};  // z_n .. z_{n+R-1}
  apply_map<R>(m.causal_from_x, x, stride, head);
  if (!c.causal_only) apply_map<R>(m.anticausal_from_x, x, stride, tail);

  // Causal pass. The first R samples reach back into the initial feedback.
  const int lead = std::min(R, n);
  for (int i = 0; i < lead; ++i) {
    float* xi = x + std::ptrdiff_t(i) * stride;
    float y[kLanes];
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) y[l] = b0 * xi[l];
    for (int k = 1; k <= R; ++k) {
      const float* prev = i - k >= 0 ? x + std::ptrdiff_t(i - k) * stride : head[k - i - 1];
#pragma omp simd
      for (int l = 0; l < kLanes; ++l) y[l] -= a[k - 1] * prev[l];
    }
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) xi[l] = y[l];
  }
  for (int i = lead; i < n; ++i) {
    float* xi = x + std::ptrdiff_t(i) * stride;
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) {
      float y = b0 * xi[l];
      for (int k = 1; k <= R; ++k) y -= a[k - 1] * xi[l - k * stride];
      xi[l] = y;
    }
  }
  if (c.causal_only) return;

  // Anticausal pass, from the end; the last R samples reach into the initial feedback.
  apply_map<R>(m.anticausal_from_y, x, stride, tail);
  const int stop = std::max(n - R, 0);
  for (int i = n - 1; i >= stop; --i) {
    float* xi = x + std::ptrdiff_t(i) * stride;
    float z[kLanes];
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) z[l] = b0 * xi[l];
    for (int k = 1; k <= R; ++k) {
      const float* next = i + k < n ? x + std::ptrdiff_t(i + k) * stride : tail[i + k - n];
#pragma omp simd
      for (int l = 0; l < kLanes; ++l) z[l] -= a[k - 1] * next[l];
    }
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) xi[l] = z[l];
  }
  for (int i = stop - 1; i >= 0; --i) {
    float* xi = x + std::ptrdiff_t(i) * stride;
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) {
      float z = b0 * xi[l];
      for (int k = 1; k <= R; ++k) z -= a[k - 1] * xi[l + k * stride];
      xi[l] = z;
    }
  }
}

using LinesFn = void (*)(float*, std::ptrdiff_t, const Coeffs&, const LineMaps&);
constexpr LinesFn kLinesByOrder[] = {filter_lines<1>, filter_lines<2>, filter_lines<3>,
                                     filter_lines<4>, filter_lines<5>};

}  // namespace

struct ImagePlan::Impl {
  Coeffs coeffs;
  LinesFn lines = nullptr;
  int width = 0, height = 0, channels = 0;
  int threads = 1;
  LineMaps columns;  // lines of `height` samples
  LineMaps rows;     // lines of `width` samples
  // Per thread: a band of rows transposed to lanes (width x kLanes), or the last, partial strip
  // of columns (height x kLanes).
  std::size_t scratch_per_thread = 0;
  mutable std::vector<float> scratch;
};

ImagePlan::ImagePlan(const Recursive& f, Extension ext, int width, int height, int channels)
    : impl_(std::make_unique<Impl>()) {
  if (f.order() < 1 || f.order() > 5)
    throw InvalidParameter("order: the CPU backend filters orders 1..5, got " +
                           std::to_string(f.order()));
  if (width < 1 || height < 1)
    throw InvalidParameter("image size: " + std::to_string(width) + "x" + std::to_string(height) +
                           " is empty");
  if (channels < 1 || channels > kLanes)
    throw InvalidParameter("channels: " + std::to_string(channels) + " is not supported");
  Impl& p = *impl_;
  p.coeffs.order = f.order();
  p.coeffs.b0 = float(f.b0);
  for (int k = 0; k < f.order(); ++k) p.coeffs.a[k] = float(f.a[k]);
  p.coeffs.causal_only = f.causal_only;
  p.lines = kLinesByOrder[f.order() - 1];
  p.width = width;
  p.height = height;
  p.channels = channels;
  p.threads = std::max(1, omp_get_max_threads());
  p.columns = make_line_maps(f, ext, height);
  p.rows = width == height ? p.columns : make_line_maps(f, ext, width);
  p.scratch_per_thread = std::size_t(std::max(width, height)) * kLanes;
  p.scratch.assign(p.scratch_per_thread * p.threads, 0.0f);
}

ImagePlan::~ImagePlan() = default;
ImagePlan::ImagePlan(ImagePlan&&) noexcept = default;
ImagePlan& ImagePlan::operator=(ImagePlan&&) noexcept = default;

int ImagePlan::threads() const {
  return impl_->threads;
}

void ImagePlan::run(float* data) const {
  run_columns(data);
  run_rows(data);
}

// Columns: every float of a row starts its own line, so a strip of kLanes adjacent floats is
// kLanes lines whose samples are one row apart. The recursion walks down the image itself, one
// cache line per row; only the last strip, narrower than kLanes, goes through scratch.
void ImagePlan::run_columns(float* data) const {
  const Impl& p = *impl_;
  const std::ptrdiff_t row = std::ptrdiff_t(p.width) * p.channels;
  const int full = int(row / kLanes);
  const int rest = int(row % kLanes);
  const int strips = full + (rest ? 1 : 0);
#pragma omp parallel for schedule(static) num_threads(p.threads)
  for (int s = 0; s < strips; ++s) {
    float* base = data + std::ptrdiff_t(s) * kLanes;
    if (s < full) {
      p.lines(base, row, p.coeffs, p.columns);
      continue;
    }
    float* tmp = p.scratch.data() + p.scratch_per_thread * omp_get_thread_num();
    for (int i = 0; i < p.height; ++i) {
      float* t = tmp + std::size_t(i) * kLanes;
      std::memcpy(t, base + i * row, sizeof(float) * rest);
      std::fill(t + rest, t + kLanes, 0.0f);
    }
    p.lines(tmp, kLanes, p.coeffs, p.columns);
    for (int i = 0; i < p.height; ++i)
      std::memcpy(base + i * row, tmp + std::size_t(i) * kLanes, sizeof(float) * rest);
  }
}

// Rows: a band of kLanes / channels rows is transposed into scratch so that lane
// r * channels + c holds channel c of row r; the band is filtered there and copied back.
void ImagePlan::run_rows(float* data) const {
  const Impl& p = *impl_;
  const int C = p.channels;
  const int band = kLanes / C;
  const std::ptrdiff_t row = std::ptrdiff_t(p.width) * C;
  const int bands = (p.height + band - 1) / band;
#pragma omp parallel for schedule(static) num_threads(p.threads)
  for (int b = 0; b < bands; ++b) {
    float* tmp = p.scratch.data() + p.scratch_per_thread * omp_get_thread_num();
    const int y0 = b * band;
    const int nrows = std::min(band, p.height - y0);
    if (nrows * C < kLanes) std::fill(tmp, tmp + std::size_t(p.width) * kLanes, 0.0f);
    for (int r = 0; r < nrows; ++r) {
      const float* src = data + (y0 + r) * row;
      float* dst = tmp + r * C;
      if (C == 4) {
        for (int x = 0; x < p.width; ++x)
          std::memcpy(dst + std::size_t(x) * kLanes, src + x * 4, sizeof(float) * 4);
      } else {
        for (int x = 0; x < p.width; ++x)
          for (int c = 0; c < C; ++c) dst[std::size_t(x) * kLanes + c] = src[x * C + c];
      }
    }
    p.lines(tmp, kLanes, p.coeffs, p.rows);
    for (int r = 0; r < nrows; ++r) {
      float* dstrow = data + (y0 + r) * row;
      const float* src = tmp + r * C;
      if (C == 4) {
        for (int x = 0; x < p.width; ++x)
          std::memcpy(dstrow + x * 4, src + std::size_t(x) * kLanes, sizeof(float) * 4);
      } else {
        for (int x = 0; x < p.width; ++x)
          for (int c = 0; c < C; ++c) dstrow[x * C + c] = src[std::size_t(x) * kLanes + c];
      }
    }
  }
}

}  // namespace rf::cpu
