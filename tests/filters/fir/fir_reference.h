// An independent double reference of the FIR method (filters/fir/fir.h) for its tests: the
// sampled Gaussian at scipy.ndimage's radius int(4 sigma + 0.5), each line continued sample by
// sample by folding or wrapping an index until it lands inside, in double. It shares no code with
// the library's FIR or its extension_index.
#pragma once

#include <cmath>
#include <vector>

#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf::test {

// The sample of a line of n that position i of the extended line holds, or -1 for the value
// outside (zero, ignore, constant).
inline int folded_index(int i, int n, Extension ext) {
  switch (ext) {
    case Extension::Clamp:
      return i < 0 ? 0 : i >= n ? n - 1 : i;
    case Extension::Repeat:
      while (i < 0) i += n;
      while (i >= n) i -= n;
      return i;
    case Extension::Mirror:  // c b a | a b c | c b a: fold about -1/2 and n - 1/2
      while (i < 0 || i >= n) i = i < 0 ? -1 - i : 2 * n - 1 - i;
      return i;
    case Extension::Reflect101:  // d c b | a b c d | c b a: fold about 0 and n - 1
      if (n == 1) return 0;
      while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
      return i;
    default:
      return i < 0 || i >= n ? -1 : i;
  }
}

// One line filtered by the sampled Gaussian of sigma at radius int(4 sigma + 0.5).
inline std::vector<double> fir_line(const std::vector<double>& x, double sigma, Extension ext,
                                    double outside) {
  const int n = int(x.size());
  const int r = int(4.0 * sigma + 0.5);
  std::vector<double> taps(std::size_t(2 * r + 1));
  double sum = 0.0;
  for (int k = -r; k <= r; ++k)
    sum += taps[std::size_t(k + r)] = std::exp(-k * k / (2 * sigma * sigma));
  std::vector<double> y(x.size(), 0.0);
  for (int i = 0; i < n; ++i) {
    double acc = 0.0;
    for (int k = -r; k <= r; ++k) {
      const int j = folded_index(i + k, n, ext);
      acc += taps[std::size_t(k + r)] / sum * (j < 0 ? outside : x[std::size_t(j)]);
    }
    y[std::size_t(i)] = acc;
  }
  return y;
}

// A host image of any channel count: its columns (if the spec filters along y), then its rows,
// in double, with the spec's sigma per axis, extension and cval (Ignore reads as Zero).
inline std::vector<double> fir_image(const Image& in, const FilterSpec& spec) {
  const int w = in.width, h = in.height, c = in.channels;
  const double outside = spec.ext == Extension::Constant ? spec.cval : 0.0;
  std::vector<double> v(in.pixels.begin(), in.pixels.end());
  auto at = [&](int x, int y, int ch) -> double& { return v[(std::size_t(y) * w + x) * c + ch]; };
  const double sy = spec.sigma_y.value_or(spec.sigma), sx = spec.sigma;
  if (spec.axes != Axes::X)
    for (int x = 0; x < w; ++x)
      for (int ch = 0; ch < c; ++ch) {
        std::vector<double> line(static_cast<std::size_t>(h));
        for (int y = 0; y < h; ++y) line[std::size_t(y)] = at(x, y, ch);
        line = fir_line(line, sy, spec.ext, outside);
        for (int y = 0; y < h; ++y) at(x, y, ch) = line[std::size_t(y)];
      }
  if (spec.axes != Axes::Y)
    for (int y = 0; y < h; ++y)
      for (int ch = 0; ch < c; ++ch) {
        std::vector<double> line(static_cast<std::size_t>(w));
        for (int x = 0; x < w; ++x) line[std::size_t(x)] = at(x, y, ch);
        line = fir_line(line, sx, spec.ext, outside);
        for (int x = 0; x < w; ++x) at(x, y, ch) = line[std::size_t(x)];
      }
  return v;
}

// The largest |got - want| over the samples, relative to the largest |want| (at least 1).
inline double worst_relative(const std::vector<float>& got, const std::vector<double>& want) {
  double worst = 0.0, scale = 1.0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(double(got[i]) - want[i]));
  return worst / scale;
}

}  // namespace rf::test
