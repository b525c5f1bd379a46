// Lee et al. 2014 on the CPU: double references and the OpenMP float path.
#include "filters/lee2014/lee2014.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "filters/core/design.h"
#include "filters/core/errors.h"

namespace rf::lee2014 {
namespace {

using Index = std::ptrdiff_t;

// Columns are filtered in chunks of this many floats of a row, all of them at once, so the inner
// loops vectorise and each OpenMP work item touches whole cache lines.
constexpr int kColumnChunk = 64;

template <typename S>
Strided<const S, Index> in_line(const S* p, Index offset, Index stride) {
  return {p + offset, stride};
}
template <typename S>
Strided<S, Index> out_line(S* p, Index offset, Index stride) {
  return {p + offset, stride};
}

// The lines of one direction of an image with packed rows: `count` lines of n samples, line l
// starting at offset(l) with samples `stride` apart.
struct Lines {
  Index count, n, stride;
  int width, channels;
  bool rows;
  Index offset(Index l) const {
    if (rows) return (l / channels) * Index(width) * channels + l % channels;
    return l;  // columns: one line per float of a row
  }
};

Lines row_lines(int width, int height, int channels) {
  return {Index(height) * channels, width, channels, width, channels, true};
}
Lines column_lines(int width, int height, int channels) {
  return {Index(width) * channels, height, Index(width) * channels, width, channels, false};
}

// Double reference of one direction: every line, in sequence, x -> w -> out (out may be x).
void reference_lines(Partition p, const Coeffs<double>& k, const std::vector<double>& weights,
                     int radius, const Lines& L, const double* x, double* w, double* out) {
  for (Index l = 0; l < L.count; ++l) {
    const Index o = L.offset(l);
    if (p == Partition::OneWay) {
      one_way_line<double>(k, in_line(x, o, L.stride), out_line(w, o, L.stride),
                           out_line(out, o, L.stride), L.n);
    } else {
      double pc = 0.0;
      for (int part = 0; part < 3; ++part) {
        const double v =
            two_way_first<double>(k, part, in_line(x, o, L.stride), out_line(w, o, L.stride), L.n,
                                  weights.data(), radius);
        if (part == 1) pc = v;
      }
      for (int part = 0; part < 3; ++part)
        two_way_second<double>(k, part, in_line<double>(w, o, L.stride), out_line(out, o, L.stride),
                               L.n, pc);
    }
  }
}

// eq. (3)/(4) down (dir = +1) or up (dir = -1) n rows of packed rows `ld` floats long, from row
// `first`, for the floats j0..j1 of each row at once. The previous outputs start as edge[j].
void column_pass(const Coeffs<float>& k, const float* x, float* y, Index first, Index n, int dir,
                 const float* edge, Index ld, Index j0, Index j1) {
  for (Index i = 0; i < n; ++i) {
    const Index r = first + dir * i;
    const float* p1 = i >= 1 ? y + (r - dir) * ld : edge;
    const float* p2 = i >= 2 ? y + (r - 2 * dir) * ld : edge;
    const float* p3 = i >= 3 ? y + (r - 3 * dir) * ld : edge;
    const float* xr = x + r * ld;
    float* yr = y + r * ld;
    for (Index j = j0; j < j1; ++j)
      yr[j] = k.B * xr[j] + (k.c1 * p1[j] + k.c2 * p2[j] + k.c3 * p3[j]);
  }
}

}  // namespace

const char* to_string(Partition p) {
  return p == Partition::OneWay ? "one-way" : "two-way";
}

Coeffs<double> coefficients(double sigma) {
  FilterSpec spec;
  spec.kind = FilterKind::Yvrg;
  spec.sigma = sigma;
  const Recursive f = design(spec);
  return {f.b0, -f.a[0], -f.a[1], -f.a[2]};
}

Coeffs<float> float_coefficients(double sigma) {
  const Coeffs<double> k = coefficients(sigma);
  const float c1 = float(k.c1), c2 = float(k.c2), c3 = float(k.c3);
  return {float(1.0 - (double(c1) + double(c2) + double(c3))), c1, c2, c3};
}

int centre_radius(double sigma) {
  return std::max(1, int(std::ceil(3.0 * sigma)));
}

std::vector<double> centre_weights(double sigma) {
  const int radius = centre_radius(sigma);
  std::vector<double> g(2 * radius + 1);
  double sum = 0.0;
  for (int j = -radius; j <= radius; ++j) {
    g[j + radius] = std::exp(-0.5 * double(j) * j / (sigma * sigma));
    sum += g[j + radius];
  }
  for (double& v : g) v /= sum;
  return g;
}

std::vector<double> one_way_line(double sigma, const std::vector<double>& x) {
  if (x.empty()) return {};
  const Coeffs<double> k = coefficients(sigma);
  std::vector<double> w(x.size()), out(x.size());
  rf::lee2014::one_way_line<double>(k, in_line(x.data(), 0, 1), out_line(w.data(), 0, 1),
                                    out_line(out.data(), 0, 1), Index(x.size()));
  return out;
}

std::vector<double> two_way_line(double sigma, const std::vector<double>& x) {
  if (x.empty()) return {};
  const Coeffs<double> k = coefficients(sigma);
  const std::vector<double> g = centre_weights(sigma);
  const int radius = centre_radius(sigma);
  std::vector<double> w(x.size()), out(x.size());
  const Index n = Index(x.size());
  double pc = 0.0;
  for (int part = 0; part < 3; ++part) {
    const double v = two_way_first<double>(k, part, in_line(x.data(), 0, 1),
                                           out_line(w.data(), 0, 1), n, g.data(), radius);
    if (part == 1) pc = v;
  }
  for (int part = 0; part < 3; ++part)
    two_way_second<double>(k, part, in_line<double>(w.data(), 0, 1), out_line(out.data(), 0, 1), n,
                           pc);
  return out;
}

std::vector<double> reference(Partition p, double sigma, const Image& in) {
  const Coeffs<double> k = coefficients(sigma);
  const std::vector<double> g = centre_weights(sigma);
  const int radius = centre_radius(sigma);
  std::vector<double> data(in.pixels.begin(), in.pixels.end());
  if (data.empty()) return data;
  std::vector<double> w(data.size());
  reference_lines(p, k, g, radius, row_lines(in.width, in.height, in.channels), data.data(),
                  w.data(), data.data());
  reference_lines(p, k, g, radius, column_lines(in.width, in.height, in.channels), data.data(),
                  w.data(), data.data());
  return data;
}

Plan::Plan(Partition p, double sigma, int width, int height, int channels)
    : partition_(p), width_(width), height_(height), channels_(channels) {
  if (width < 1 || height < 1 || channels < 1)
    throw InvalidParameter("frame size: " + std::to_string(width) + "x" + std::to_string(height) +
                           "x" + std::to_string(channels) + " is empty");
  k_ = float_coefficients(sigma);
  radius_ = centre_radius(sigma);
  for (double v : centre_weights(sigma)) weights_.push_back(float(v));
  const std::size_t floats = std::size_t(width) * height * channels;
  w_.assign(floats, 0.0f);
  centre_.assign(std::size_t(std::max(width, height)) * channels, 0.0f);
}

void Plan::run(const float* in, float* out) {
  rows(in, out);
  columns(out);
}

// Rows (Fig. 1 a-b): in -> w_ -> out. The first pass reads only `in` and writes only w_ and
// centre_, so in == out is safe.
void Plan::rows(const float* in, float* out) {
  const Lines L = row_lines(width_, height_, channels_);
  float* w = w_.data();
  if (partition_ == Partition::OneWay) {
#pragma omp parallel for schedule(static)
    for (Index l = 0; l < L.count; ++l) {
      const Index o = L.offset(l);
      one_way_line<float>(k_, in_line(in, o, L.stride), out_line(w, o, L.stride),
                          out_line(out, o, L.stride), L.n);
    }
    return;
  }
  // Fig. 6: three independent work items per line in the first pass, two in the second (the third
  // item only stores Pc).
#pragma omp parallel for schedule(static)
  for (Index t = 0; t < 3 * L.count; ++t) {
    const Index l = t / 3, o = L.offset(l);
    const int part = int(t % 3);
    const float v = two_way_first<float>(k_, part, in_line(in, o, L.stride),
                                         out_line(w, o, L.stride), L.n, weights_.data(), radius_);
    if (part == 1) centre_[l] = v;
  }
#pragma omp parallel for schedule(static)
  for (Index t = 0; t < 3 * L.count; ++t) {
    const Index l = t / 3, o = L.offset(l);
    two_way_second<float>(k_, int(t % 3), in_line<float>(w, o, L.stride),
                          out_line(out, o, L.stride), L.n, centre_[l]);
  }
}

// Columns (Fig. 1 c-d): data -> w_ -> data, in chunks of whole row segments.
void Plan::columns(float* data) {
  const Index ld = Index(width_) * channels_, H = height_;
  const Index chunks = (ld + kColumnChunk - 1) / kColumnChunk;
  float* w = w_.data();
  float* pc = centre_.data();
  auto range = [&](Index chunk, Index& j0, Index& j1) {
    j0 = chunk * kColumnChunk;
    j1 = std::min(ld, j0 + kColumnChunk);
  };
  if (partition_ == Partition::OneWay) {
#pragma omp parallel for schedule(static)
    for (Index chunk = 0; chunk < chunks; ++chunk) {
      Index j0, j1;
      range(chunk, j0, j1);
      column_pass(k_, data, w, 0, H, +1, data, ld, j0, j1);
      column_pass(k_, w, data, H - 1, H, -1, w + (H - 1) * ld, ld, j0, j1);
    }
    return;
  }
  const Index c = centre_index(H);
#pragma omp parallel for schedule(static)
  for (Index t = 0; t < 3 * chunks; ++t) {
    Index j0, j1;
    range(t / 3, j0, j1);
    const int part = int(t % 3);
    if (part == 0) {
      column_pass(k_, data, w, 0, c, +1, data, ld, j0, j1);
    } else if (part == 2) {
      column_pass(k_, data, w, H - 1, H - 1 - c, -1, data + (H - 1) * ld, ld, j0, j1);
    } else {
      // Pc of eq. (2) for a whole row segment at once: the same taps as centre_gaussian().
      for (Index j = j0; j < j1; ++j) pc[j] = 0.0f;
      for (int d = -radius_; d <= radius_; ++d) {
        const Index r = std::clamp(c + d, Index(0), H - 1);
        const float g = weights_[d + radius_];
        const float* row = data + r * ld;
        for (Index j = j0; j < j1; ++j) pc[j] += g * row[j];
      }
    }
  }
#pragma omp parallel for schedule(static)
  for (Index t = 0; t < 3 * chunks; ++t) {
    Index j0, j1;
    range(t / 3, j0, j1);
    const int part = int(t % 3);
    if (part == 0) {
      column_pass(k_, w, data, c - 1, c, -1, pc, ld, j0, j1);
    } else if (part == 2) {
      column_pass(k_, w, data, c + 1, H - 1 - c, +1, pc, ld, j0, j1);
    } else {
      std::copy(pc + j0, pc + j1, data + c * ld + j0);
    }
  }
}

Image filter(Partition p, double sigma, const Image& in) {
  Image out = in;
  if (in.empty()) return out;
  Plan plan(p, sigma, in.width, in.height, in.channels);
  plan.run(in.pixels.data(), out.pixels.data());
  return out;
}

double psnr(const std::vector<double>& a, const std::vector<double>& b, double peak) {
  if (a.size() != b.size() || a.empty())
    throw InvalidParameter("psnr: the images differ in size or are empty");
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  const double mse = sum / double(a.size());
  if (mse == 0.0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(peak * peak / mse);  // eq. (5)
}

}  // namespace rf::lee2014
