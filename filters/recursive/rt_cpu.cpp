#include "filters/recursive/rt_cpu.h"

#include <emmintrin.h>
#include <omp.h>
#include <xmmintrin.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "filters/core/errors.h"
#include "filters/recursive/direct_form.h"

namespace rf::cpu {
namespace {

// Lines filtered together, one per SIMD lane: four AVX registers of doubles, enough independent
// chains to hide the latency of the recursion's feedback.
constexpr int kLanes = 16;
constexpr int kMaxOrder = 5;
// Images of fewer floats are filtered on one thread (about 0.1 ms of work).
constexpr std::size_t kParallelFloats = std::size_t(1) << 16;

// The recursions run in double, with the image stored in float between passes. A wide Gaussian of
// order 3..5 has poles clustered near z = 1; in float, rounding a_k alone moves them by more
// than their distance to the unit circle (order 5 at sigma 20 diverges, order 3 at sigma 100 is
// off by 2%). In double the same designs stay within 1e-7 of the reference for sigma up to 200.
// Only the block being filtered is double: the image stays float, so memory traffic does not grow.

using direct_form::LineMaps;
using direct_form::SparseColumns;

struct Coeffs {
  int order = 0;
  double b0 = 1.0;
  double a[5] = {};
  bool causal_only = false;
};

// acc[k][l] += sum_j map(k, j) * s[j * stride + l]
template <int R>
[[gnu::always_inline]] inline void apply_map(const SparseColumns& m, const double* s,
                                             std::ptrdiff_t stride, double (&acc)[R][kLanes]) {
  for (int j = 0; j < m.count; ++j) {
    const double* sj = s + (m.first + j) * stride;
    const double* w = &m.w[std::size_t(j) * R];
    for (int k = 0; k < R; ++k) {
      const double wk = w[k];
#pragma omp simd
      for (int l = 0; l < kLanes; ++l) acc[k][l] += wk * sj[l];
    }
  }
}

// Filters kLanes lines of n samples in place in s (sample i of lane l at s[i * stride + l]).
// Causal: y_i = b0 x_i - sum_k a_k y_{i-k}, started from (y_{-1} .. y_{-R}) = causal_from_x * x;
// anticausal: z_i = b0 y_i - sum_k a_k z_{i+k}, started from (z_n .. z_{n+R-1}) =
// anticausal_from_y * y + anticausal_from_x * x. These are the exact initial feedbacks of
// Nehab & Maximo 2016 (eq. 35/44 constant padding, 49/51 periodic, 67/72 even-periodic), turned
// into linear maps once per line length by direct_form::line_maps(). Each output overwrites its
// input and the recursion reads its history back from the block, oldest term first so that only
// the last multiply-add waits for the newest output.
template <int R>
[[gnu::always_inline]] inline void filter_block(double* s, std::ptrdiff_t stride, const Coeffs& c,
                                                const LineMaps& m) {
  const int n = m.n;
  const double b0 = c.b0;
  double a[R];
  for (int k = 0; k < R; ++k) a[k] = c.a[k];

  alignas(64) double head[R][kLanes];  // y_{-1} .. y_{-R}
  alignas(64) double tail[R][kLanes];  // z_n .. z_{n+R-1}
  for (int k = 0; k < R; ++k)
    for (int l = 0; l < kLanes; ++l) {
      head[k][l] = m.causal_from_value[std::size_t(k)];  // the constant's share (at_value)
      tail[k][l] = m.anticausal_from_value[std::size_t(k)];
    }
  apply_map<R>(m.causal_from_x, s, stride, head);
  if (!c.causal_only) apply_map<R>(m.anticausal_from_x, s, stride, tail);

  const int lead = std::min(R, n);
  for (int i = 0; i < lead; ++i) {
    double* si = s + i * stride;
    for (int k = R; k >= 1; --k) {
      const double* prev = i - k >= 0 ? si - k * stride : head[k - i - 1];
#pragma omp simd
      for (int l = 0; l < kLanes; ++l) si[l] = (k == R ? b0 * si[l] : si[l]) - a[k - 1] * prev[l];
    }
  }
  for (int i = lead; i < n; ++i) {
    double* si = s + i * stride;
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) {
      double y = b0 * si[l];
      for (int k = R; k >= 1; --k) y -= a[k - 1] * si[l - k * stride];
      si[l] = y;
    }
  }
  if (c.causal_only) return;

  apply_map<R>(m.anticausal_from_y, s, stride, tail);
  const int stop = std::max(n - R, 0);
  for (int i = n - 1; i >= stop; --i) {
    double* si = s + i * stride;
    for (int k = R; k >= 1; --k) {
      const double* next = i + k < n ? si + k * stride : tail[i + k - n];
#pragma omp simd
      for (int l = 0; l < kLanes; ++l) si[l] = (k == R ? b0 * si[l] : si[l]) - a[k - 1] * next[l];
    }
  }
  for (int i = stop - 1; i >= 0; --i) {
    double* si = s + i * stride;
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) {
      double z = b0 * si[l];
      for (int k = R; k >= 1; --k) z -= a[k - 1] * si[l + k * stride];
      si[l] = z;
    }
  }
}

// Columns, streamed: a chunk of `width` adjacent floats of every row holds `width` column lines.
// The causal pass walks the rows down and the anticausal pass walks them up, each row contiguous in
// memory (every hardware prefetcher follows), with the last R rows of feedback kept in double in
// `work` (2 R rows of `width` doubles). Between the passes the causal output y is stored in the
// image as float: a rounding of the anticausal pass's input, which the filter does not amplify,
// while the feedbacks, which it would amplify, stay double. The initial-feedback maps are applied
// on the way: causal_from_x before the causal pass, anticausal_from_x and anticausal_from_y to
// each row of x and y as the causal pass reaches it.
template <int R, class T>
[[gnu::always_inline]] inline void column_chunk(T* base, std::ptrdiff_t stride, int width,
                                                double* work, const Coeffs& c, const LineMaps& m) {
  const int n = m.n;
  const double b0 = c.b0;
  double a[R];
  for (int k = 0; k < R; ++k) a[k] = c.a[k];
  double* head = work;              // row k: y_{-1-k}, then the causal ring
  double* tail = work + R * width;  // row k: z_{n+k}, then the anticausal ring
  for (int k = 0; k < R; ++k) {     // the constant's share (at_value), zero for the others
    std::fill(head + k * width, head + (k + 1) * width, m.causal_from_value[std::size_t(k)]);
    std::fill(tail + k * width, tail + (k + 1) * width, m.anticausal_from_value[std::size_t(k)]);
  }

  auto accumulate = [&](const SparseColumns& map, int j, const auto* row, double* acc) {
    if (j < map.first || j >= map.first + map.count) return;
    const double* w = &map.w[std::size_t(j - map.first) * R];
    for (int k = 0; k < R; ++k) {
      const double wk = w[k];
      double* dst = acc + k * width;
#pragma omp simd
      for (int l = 0; l < width; ++l) dst[l] += wk * row[l];
    }
  };
  for (int j = m.causal_from_x.first; j < m.causal_from_x.first + m.causal_from_x.count; ++j)
    accumulate(m.causal_from_x, j, base + j * stride, head);

  // prev[k - 1] is y_{i-k}; the oldest row becomes the newest after each step.
  double* prev[R];
  for (int k = 0; k < R; ++k) prev[k] = head + k * width;
  for (int i = 0; i < n; ++i) {
    T* x = base + i * stride;
    if (!c.causal_only) accumulate(m.anticausal_from_x, i, x, tail);
    double* y = prev[R - 1];
#pragma omp simd
    for (int l = 0; l < width; ++l) {
      double v = b0 * x[l];
      for (int k = R; k >= 1; --k) v -= a[k - 1] * prev[k - 1][l];
      y[l] = v;
      x[l] = T(v);
    }
    for (int k = R - 1; k > 0; --k) prev[k] = prev[k - 1];
    prev[0] = y;
    if (!c.causal_only) accumulate(m.anticausal_from_y, i, y, tail);
  }
  if (c.causal_only) return;

  double* next[R];  // next[k - 1] is z_{i+k}
  for (int k = 0; k < R; ++k) next[k] = tail + k * width;
  for (int i = n - 1; i >= 0; --i) {
    T* yz = base + i * stride;
    double* z = next[R - 1];
#pragma omp simd
    for (int l = 0; l < width; ++l) {
      double v = b0 * yz[l];
      for (int k = R; k >= 1; --k) v -= a[k - 1] * next[k - 1][l];
      z[l] = v;
      yz[l] = T(v);
    }
    for (int k = R - 1; k > 0; --k) next[k] = next[k - 1];
    next[0] = z;
  }
}

// Four rows of one channel, four samples at a time, to and from lanes r0..r0+3 of the block:
// a 4x4 transpose in SSE registers instead of sixteen scalar moves.
[[gnu::always_inline]] inline void rows4_to_block(const float* data, std::ptrdiff_t row_floats,
                                                  int n, double* s) {
  const float* r0 = data;
  const float* r1 = data + row_floats;
  const float* r2 = data + 2 * row_floats;
  const float* r3 = data + 3 * row_floats;
  int x = 0;
  for (; x + 4 <= n; x += 4) {
    __m128 a0 = _mm_loadu_ps(r0 + x), a1 = _mm_loadu_ps(r1 + x);
    __m128 a2 = _mm_loadu_ps(r2 + x), a3 = _mm_loadu_ps(r3 + x);
    _MM_TRANSPOSE4_PS(a0, a1, a2, a3);
    const __m128 cols[4] = {a0, a1, a2, a3};
    for (int j = 0; j < 4; ++j) {
      double* d = s + std::size_t(x + j) * kLanes;
      _mm_storeu_pd(d, _mm_cvtps_pd(cols[j]));
      _mm_storeu_pd(d + 2, _mm_cvtps_pd(_mm_movehl_ps(cols[j], cols[j])));
    }
  }
  for (; x < n; ++x) {
    double* d = s + std::size_t(x) * kLanes;
    d[0] = r0[x], d[1] = r1[x], d[2] = r2[x], d[3] = r3[x];
  }
}

[[gnu::always_inline]] inline void block_to_rows4(const double* s, int n, float* data,
                                                  std::ptrdiff_t row_floats) {
  float* r0 = data;
  float* r1 = data + row_floats;
  float* r2 = data + 2 * row_floats;
  float* r3 = data + 3 * row_floats;
  int x = 0;
  for (; x + 4 <= n; x += 4) {
    __m128 c[4];
    for (int j = 0; j < 4; ++j) {
      const double* d = s + std::size_t(x + j) * kLanes;
      c[j] = _mm_movelh_ps(_mm_cvtpd_ps(_mm_loadu_pd(d)), _mm_cvtpd_ps(_mm_loadu_pd(d + 2)));
    }
    _MM_TRANSPOSE4_PS(c[0], c[1], c[2], c[3]);
    _mm_storeu_ps(r0 + x, c[0]);
    _mm_storeu_ps(r1 + x, c[1]);
    _mm_storeu_ps(r2 + x, c[2]);
    _mm_storeu_ps(r3 + x, c[3]);
  }
  for (; x < n; ++x) {
    const double* d = s + std::size_t(x) * kLanes;
    r0[x] = float(d[0]), r1[x] = float(d[1]), r2[x] = float(d[2]), r3[x] = float(d[3]);
  }
}

// A band of `rows` <= kLanes / C consecutive rows of C interleaved channels, transposed so that
// lane r * C + ch holds channel ch of row r, filtered, and transposed back.
template <int R, int C, class T>
[[gnu::always_inline]] inline void row_band(T* data, std::ptrdiff_t row_floats, int rows, double* s,
                                            const Coeffs& c, const LineMaps& m) {
  const int n = m.n;  // the image width
  if (rows * C < kLanes) std::fill(s, s + std::size_t(n) * kLanes, 0.0);
  int r = 0;
  if constexpr (C == 1 && std::is_same_v<T, float>)
    for (; r + 4 <= rows; r += 4) rows4_to_block(data + r * row_floats, row_floats, n, s + r);
  for (; r < rows; ++r) {
    const T* src = data + r * row_floats;
    double* dst = s + r * C;
    for (int x = 0; x < n; ++x)
      for (int ch = 0; ch < C; ++ch) dst[std::size_t(x) * kLanes + ch] = src[x * C + ch];
  }
  filter_block<R>(s, kLanes, c, m);
  r = 0;
  if constexpr (C == 1 && std::is_same_v<T, float>)
    for (; r + 4 <= rows; r += 4) block_to_rows4(s + r, n, data + r * row_floats, row_floats);
  for (; r < rows; ++r) {
    T* dst = data + r * row_floats;
    const double* src = s + r * C;
    for (int x = 0; x < n; ++x)
      for (int ch = 0; ch < C; ++ch) dst[x * C + ch] = T(src[std::size_t(x) * kLanes + ch]);
  }
}

// The image's samples are T: float (the recursions in double, the image stored in float between
// passes), or double throughout.
template <class T>
using ColumnFn = void (*)(T*, std::ptrdiff_t, int, double*, const Coeffs&, const LineMaps&);
template <class T>
using RowFn = void (*)(T*, std::ptrdiff_t, int, double*, const Coeffs&, const LineMaps&);

// Each kernel is compiled twice: for the x86-64-v2 baseline of the build and for AVX2 + FMA,
// chosen at run time.
template <int R, class T>
void column_chunk_base(T* b, std::ptrdiff_t st, int w, double* s, const Coeffs& c,
                       const LineMaps& m) {
  column_chunk<R>(b, st, w, s, c, m);
}
template <int R, class T>
[[gnu::target("avx2,fma")]] void column_chunk_avx2(T* b, std::ptrdiff_t st, int w, double* s,
                                                   const Coeffs& c, const LineMaps& m) {
  column_chunk<R>(b, st, w, s, c, m);
}
template <int R, int C, class T>
void row_band_base(T* d, std::ptrdiff_t rf, int rows, double* s, const Coeffs& c,
                   const LineMaps& m) {
  row_band<R, C>(d, rf, rows, s, c, m);
}
template <int R, int C, class T>
[[gnu::target("avx2,fma")]] void row_band_avx2(T* d, std::ptrdiff_t rf, int rows, double* s,
                                               const Coeffs& c, const LineMaps& m) {
  row_band<R, C>(d, rf, rows, s, c, m);
}

template <int R, class T>
RowFn<T> row_kernel(int channels, bool avx2) {
  switch (channels) {
    case 1:
      return avx2 ? row_band_avx2<R, 1, T> : row_band_base<R, 1, T>;
    case 2:
      return avx2 ? row_band_avx2<R, 2, T> : row_band_base<R, 2, T>;
    case 3:
      return avx2 ? row_band_avx2<R, 3, T> : row_band_base<R, 3, T>;
    default:
      return avx2 ? row_band_avx2<R, 4, T> : row_band_base<R, 4, T>;
  }
}

template <class T>
struct Kernels {
  ColumnFn<T> columns = nullptr;
  RowFn<T> rows = nullptr;
};

template <int R, class T>
Kernels<T> kernels_of(int channels, bool avx2) {
  return {avx2 ? column_chunk_avx2<R, T> : column_chunk_base<R, T>,
          row_kernel<R, T>(channels, avx2)};
}

template <class T>
Kernels<T> kernels(int order, int channels) {
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  switch (order) {
    case 1:
      return kernels_of<1, T>(channels, avx2);
    case 2:
      return kernels_of<2, T>(channels, avx2);
    case 3:
      return kernels_of<3, T>(channels, avx2);
    case 4:
      return kernels_of<4, T>(channels, avx2);
    default:
      return kernels_of<5, T>(channels, avx2);
  }
}

}  // namespace

struct ImagePlan::Impl {
  Coeffs column_coeffs, row_coeffs;
  Kernels<float> kernels{};
  Kernels<double> kernels64{};
  int width = 0, height = 0, channels = 0;
  int threads = 1;
  // Small images run on one thread: waking a second costs more than it saves, and far more on a
  // loaded machine, where it may not get a core for a whole time slice.
  bool parallel = true;
  LineMaps columns;                                  // lines of `height` samples
  LineMaps rows;                                     // lines of `width` samples
  bool filters_columns = true, filters_rows = true;  // AxisDesigns::axes
  int chunk = 0;                                     // floats per row in a chunk of the column pass
  // Per thread: the column pass's feedback rows (2 R x chunk doubles) or the row pass's block of
  // kLanes lines (width x kLanes doubles).
  std::size_t scratch_per_thread = 0;
  mutable std::vector<double> scratch;
};

namespace {

// The line maps of a pass whose constant extension has the value `value`: the value windows of
// direct_form::LineMaps, given per unit of the value, scaled once here, so that the kernels start
// the feedbacks from them.
LineMaps at_value(LineMaps m, double value) {
  for (double& w : m.causal_from_value) w *= value;
  for (double& w : m.anticausal_from_value) w *= value;
  return m;
}

Coeffs coeffs_of(const Recursive& f) {
  Coeffs c;
  c.order = f.order();
  c.b0 = f.b0;
  for (int k = 0; k < f.order(); ++k) c.a[k] = f.a[k];
  c.causal_only = f.causal_only;
  return c;
}

}  // namespace

ImagePlan::ImagePlan(const AxisDesigns& filters, Extension ext, int width, int height, int channels,
                     double cval)
    : impl_(std::make_unique<Impl>()) {
  const Recursive& f = filters.x;
  if (filters.y.order() != f.order() || filters.y.causal_only != f.causal_only)
    throw InvalidParameter("the CPU backend filters both axes with one order (got " +
                           std::to_string(f.order()) + " along x, " +
                           std::to_string(filters.y.order()) + " along y)");
  if (f.order() < 1 || f.order() > 5)
    throw InvalidParameter("order: the CPU backend filters orders 1..5, got " +
                           std::to_string(f.order()));
  if (width < 1 || height < 1)
    throw InvalidParameter("image size: " + std::to_string(width) + "x" + std::to_string(height) +
                           " is empty");
  if (channels < 1 || channels > 4)
    throw InvalidParameter("channels: " + std::to_string(channels) + " (1 to 4 are supported)");
  Impl& p = *impl_;
  p.column_coeffs = coeffs_of(filters.y);
  p.row_coeffs = coeffs_of(filters.x);
  p.kernels = kernels<float>(f.order(), channels);
  p.kernels64 = kernels<double>(f.order(), channels);
  p.width = width;
  p.height = height;
  p.channels = channels;
  p.threads = std::max(1, omp_get_max_threads());
  p.parallel = std::size_t(width) * height * channels >= kParallelFloats;
  const ConstantValues k =
      ext == Extension::Constant ? constant_values(filters, cval) : ConstantValues{};
  const LineMaps columns = direct_form::line_maps(filters.y, ext, height);
  p.columns = at_value(columns, k.columns);
  p.filters_columns = filters.filters(Axis::Y);
  p.filters_rows = filters.filters(Axis::X);
  if (p.filters_rows)
    p.rows = at_value(width == height && filters.x.a == filters.y.a && filters.x.b0 == filters.y.b0
                          ? columns
                          : direct_form::line_maps(filters.x, ext, width),
                      k.rows);
  // Strips as wide as 4 cache lines per row, as long as the block stays well inside a core's L2.
  const std::ptrdiff_t row_floats = std::ptrdiff_t(width) * channels;
  // Two chunks per thread, whole cache lines each, for balance; at least a page of floats per
  // row, so that the prefetchers run.
  const std::ptrdiff_t per = (row_floats + 2 * p.threads - 1) / (2 * p.threads);
  p.chunk = int(
      std::min<std::ptrdiff_t>(row_floats, std::max<std::ptrdiff_t>(1024, (per + 15) / 16 * 16)));
  p.scratch_per_thread = std::max(std::size_t(2) * kMaxOrder * p.chunk,
                                  p.filters_rows ? std::size_t(kLanes) * width : std::size_t(0));
  p.scratch.assign(p.scratch_per_thread * p.threads, 0.0);
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

bool ImagePlan::filters_columns() const {
  return impl_->filters_columns;
}

bool ImagePlan::filters_rows() const {
  return impl_->filters_rows;
}

// Both passes hand out strips or bands dynamically: on a shared machine a thread can lose its core
// for a while, and a static split would leave the other waiting at the barrier.

// Columns: every sample of a row starts its own line, so adjacent samples are lines whose samples
// are one row apart.
template <class T>
void run_columns_of(const ImagePlan::Impl& p, const Kernels<T>& k, T* data) {
  if (!p.filters_columns) return;
  const std::ptrdiff_t row = std::ptrdiff_t(p.width) * p.channels;
  const int chunks = int((row + p.chunk - 1) / p.chunk);
#pragma omp parallel for schedule(dynamic) num_threads(p.threads) if (p.parallel)
  for (int s = 0; s < chunks; ++s) {
    double* work = p.scratch.data() + p.scratch_per_thread * omp_get_thread_num();
    const std::ptrdiff_t x0 = std::ptrdiff_t(s) * p.chunk;
    const int width = int(std::min<std::ptrdiff_t>(p.chunk, row - x0));
    k.columns(data + x0, row, width, work, p.column_coeffs, p.columns);
  }
}

// Rows: a band of kLanes / channels rows is transposed into the block so that each lane holds one
// channel of one row.
template <class T>
void run_rows_of(const ImagePlan::Impl& p, const Kernels<T>& k, T* data) {
  if (!p.filters_rows) return;
  const int band = kLanes / p.channels;
  const std::ptrdiff_t row = std::ptrdiff_t(p.width) * p.channels;
  const int bands = (p.height + band - 1) / band;
#pragma omp parallel for schedule(dynamic) num_threads(p.threads) if (p.parallel)
  for (int b = 0; b < bands; ++b) {
    double* block = p.scratch.data() + p.scratch_per_thread * omp_get_thread_num();
    const int y0 = b * band;
    k.rows(data + y0 * row, row, std::min(band, p.height - y0), block, p.row_coeffs, p.rows);
  }
}

void ImagePlan::run_columns(float* data) const {
  run_columns_of(*impl_, impl_->kernels, data);
}
void ImagePlan::run_rows(float* data) const {
  run_rows_of(*impl_, impl_->kernels, data);
}
void ImagePlan::run_columns(double* data) const {
  run_columns_of(*impl_, impl_->kernels64, data);
}
void ImagePlan::run_rows(double* data) const {
  run_rows_of(*impl_, impl_->kernels64, data);
}

}  // namespace rf::cpu
