// N-D arrays (filters/core/array.h) against a double reference that filters every line of every
// axis on its own: the line padded far beyond its ends with the axis's extension (constant: the
// value the earlier passes made of cval), differenced there for a derivative, then the recursion
// over the whole padded line (recursive/reference.h), kept in double between axes. Shared by the
// CPU and CUDA suites; shapes of 1 to 4 axes, odd sizes, channels 1 to 5, every extension, a
// derivative on each axis, both measures, seeded random data.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "filters/core/array.h"
#include "filters/core/design.h"
#include "filters/core/errors.h"
#include "filters/recursive/reference.h"
#include "tests/random_data.h"

namespace rf::test {

using Shape = std::vector<std::int64_t>;

// One line along `p.axis` filtered with the pass's design, `outside` past its ends (constant).
inline std::vector<double> reference_line(const FilterSpec& filter, const AxisPass& p,
                                          int derivative, const std::vector<double>& x,
                                          double outside) {
  LineSpec line = line_spec(filter, Axis::X);
  line.sigma = p.sigma;
  line.ext = p.ext;
  line.derivative = derivative;
  const Recursive f = design(line);
  const double scale = filter.derivative.normalized ? std::pow(p.sigma, derivative) : 1.0;
  if (derivative == 0) return ref::filter_line_padded(f, p.ext, x, outside);
  // Differenced on a padding long enough that the far ends do not matter, then filtered whole.
  const int n = int(x.size());
  const int pad = int(60.0 * p.sigma) + 64;
  std::vector<double> padded(std::size_t(n + 2 * pad));
  for (int i = -pad; i < n + pad; ++i) {
    const int j = extend_index(i, n, p.ext);
    padded[std::size_t(i + pad)] =
        j < 0 ? (p.ext == Extension::Constant ? outside : 0.0) : x[std::size_t(j)];
  }
  std::vector<double> diff(padded.size(), 0.0);
  for (std::size_t i = 1; i + 1 < padded.size(); ++i)
    diff[i] = derivative == 1 ? 0.5 * (padded[i + 1] - padded[i - 1])
                              : padded[i + 1] - 2.0 * padded[i] + padded[i - 1];
  const std::vector<double> y = ref::filter_line_padded(f, Extension::Zero, diff);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out[std::size_t(i)] = scale * y[std::size_t(i + pad)];
  return out;
}

// A partial: each pass's lines in turn (ascending axes), `orders` its derivative orders.
inline std::vector<double> reference_partial(const ArraySpec& spec, const Shape& shape,
                                             std::vector<double> a, std::vector<AxisPass> passes,
                                             const std::vector<int>& orders) {
  std::vector<std::size_t> index(passes.size());
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = i;
  std::sort(index.begin(), index.end(),
            [&](std::size_t l, std::size_t r) { return passes[l].axis < passes[r].axis; });
  double outside = spec.filter.cval;
  for (std::size_t k : index) {
    const AxisPass& p = passes[k];
    std::int64_t inner = 1, outer = 1;
    for (std::size_t d = std::size_t(p.axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    for (std::size_t d = 0; d < std::size_t(p.axis); ++d) outer *= shape[d];
    const std::int64_t n = shape[std::size_t(p.axis)];
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        std::vector<double> line(static_cast<std::size_t>(n));
        for (std::int64_t j = 0; j < n; ++j)
          line[std::size_t(j)] = a[std::size_t((o * n + j) * inner + i)];
        const std::vector<double> y = reference_line(spec.filter, p, orders[k], line, outside);
        for (std::int64_t j = 0; j < n; ++j)
          a[std::size_t((o * n + j) * inner + i)] = y[std::size_t(j)];
      }
    // What the next pass sees of the constant: this pass's filter of it, on a long line.
    const std::vector<double> flat(64, outside);
    outside = orders[k] ? 0.0 : reference_line(spec.filter, p, 0, flat, outside)[32];
  }
  return a;
}

inline std::vector<double> reference_array(const ArraySpec& spec, const Shape& shape,
                                           const std::vector<double>& a) {
  std::vector<int> orders;
  for (const AxisPass& p : spec.passes) orders.push_back(p.derivative);
  const auto measure = spec.filter.derivative.measure;
  if (measure == Derivative::Measure::Partial)
    return reference_partial(spec, shape, a, spec.passes, orders);
  std::vector<double> sum(a.size(), 0.0);
  for (std::size_t t = 0; t < spec.passes.size(); ++t) {
    std::vector<int> o(spec.passes.size(), 0);
    o[t] = measure == Derivative::Measure::GradientMagnitude ? 1 : 2;
    const std::vector<double> part = reference_partial(spec, shape, a, spec.passes, o);
    for (std::size_t i = 0; i < a.size(); ++i)
      sum[i] += measure == Derivative::Measure::GradientMagnitude ? part[i] * part[i] : part[i];
  }
  if (measure == Derivative::Measure::GradientMagnitude)
    for (double& v : sum) v = std::sqrt(v);
  return sum;
}

struct ArrayOutcome {
  int passed = 0, failed = 0, refused = 0;
  double worst = 0.0;  // of the allowed error
};

struct ArrayCase {
  Shape shape;
  std::vector<int> axes;       // filtered, in the order given
  std::vector<double> sigmas;  // per filtered axis
  std::vector<int> orders;     // per filtered axis (empty: none)
};

inline std::vector<ArrayCase> array_cases() {
  return {
      {{37}, {0}, {3.0}, {}},
      {{37}, {0}, {2.0}, {1}},
      {{11, 13}, {0, 1}, {2.0, 3.5}, {}},
      {{11, 13}, {1}, {2.5}, {2}},
      {{11, 13}, {0}, {1.5}, {}},
      {{9, 10, 3}, {0, 1}, {2.0, 2.0}, {0, 1}},     // an RGB image: three channels
      {{7, 9, 4}, {1, 0}, {3.0, 1.5}, {}},          // RGBA: one 2-D plan of four channels
      {{5, 6, 7}, {0, 1, 2}, {1.5, 2.5, 3.0}, {}},  // a volume
      {{5, 6, 7}, {0, 2}, {2.0, 2.0}, {2, 0}},
      {{3, 5, 6, 5}, {1, 2}, {2.0, 1.2}, {}},       // a batch of 5-channel images
      {{4, 1, 9}, {0, 1, 2}, {2.0, 2.0, 2.0}, {}},  // an axis of one sample
  };
}

// Float32 arithmetic against the double reference: 1e-5 of the array's scale (as the 2-D suites,
// all_algorithms.h), x4 for a second difference.
inline ArrayOutcome check_arrays(Backend backend, const std::vector<Algorithm>& algorithms) {
  ArrayOutcome o;
  std::uint64_t seed = 500;
  const Extension exts[] = {Extension::Mirror, Extension::Reflect101, Extension::Clamp,
                            Extension::Repeat, Extension::Zero,       Extension::Constant};
  for (const ArrayCase& c : array_cases())
    for (Extension ext : exts)
      for (Algorithm algo : algorithms)
        for (int measure = 0; measure < 3; ++measure) {
          if (measure > 0 && (!c.orders.empty() || c.axes.size() < 2)) continue;
          ArraySpec spec;
          spec.filter.order = 3;
          spec.filter.cval = 0.7;
          spec.filter.algo = algo;
          spec.filter.derivative.measure = measure == 0   ? Derivative::Measure::Partial
                                           : measure == 1 ? Derivative::Measure::GradientMagnitude
                                                          : Derivative::Measure::Laplacian;
          for (std::size_t i = 0; i < c.axes.size(); ++i) {
            AxisPass p;
            p.axis = c.axes[i];
            p.sigma = c.sigmas[i];
            p.derivative = c.orders.empty() ? 0 : c.orders[i];
            p.ext = ext;
            spec.passes.push_back(p);
          }
          const std::vector<double> a = random_array(c.shape, ++seed);
          std::vector<float> x(a.begin(), a.end());
          CAPTURE(to_string(ext));
          CAPTURE(to_string(algo));
          CAPTURE(measure);
          CAPTURE(seed);
          try {
            ArrayFilter filter(spec, c.shape, backend);
            filter.run(x.data(), x.data());
          } catch (const InvalidParameter& e) {
            // alg5 and alg6 take two adjacent axes at once only.
            const std::string what = e.what();
            const bool two_axes_only = algo == Algorithm::Alg5 || algo == Algorithm::Alg6;
            CHECK_MESSAGE(two_axes_only, what);
            CHECK(what.find("filters both axes of an image at once") != std::string::npos);
            ++o.refused;
            continue;
          }
          const std::vector<double> want = reference_array(spec, c.shape, a);
          bool second = measure == 2;
          for (int ord : c.orders) second = second || ord == 2;
          const double allowed = (second ? 4.0 : 1.0) * 1e-5;
          double err = 0.0;
          for (std::size_t i = 0; i < a.size(); ++i)
            err = std::max(err, std::abs(double(x[i]) - want[i]));
          o.worst = std::max(o.worst, err / allowed);
          if (err <= allowed) {
            ++o.passed;
          } else {
            ++o.failed;
            if (o.failed <= 5)
              FAIL_CHECK("shape case " << c.shape.size() << "-D axes " << c.axes.size()
                                       << ": error " << err << " > " << allowed);
          }
        }
  return o;
}

}  // namespace rf::test
