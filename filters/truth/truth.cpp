#include "filters/truth/truth.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/filter_table.h"
#include "filters/edge_aware/edge_aware.h"
#include "filters/recursive/reference.h"
#include "filters/truth/truth_cuda.h"

namespace rf {
namespace {

bool gpu_channels(const Image& in) {
  return in.channels == 1 || in.channels == 4;
}

Image as_float(const std::vector<double>& v, const Image& like) {
  Image out(like.width, like.height, like.channels);
  for (std::size_t i = 0; i < v.size(); ++i) out.pixels[i] = float(v[i]);
  return out;
}

Image cpu_truth(const FilterSpec& spec, const Image& in) {
  if (spec.kind == FilterKind::EdgeAware) return edge_aware_reference(spec, in);
  if (fir_truth(spec))  // a derivative's: the sampled Gaussian derivatives, scipy.ndimage's
    return as_float(ref::with_derivative(spec,
                                         [&](const FilterSpec& s, int dx, int dy) {
                                           return ref::fir_gaussian(in, s.sigma,
                                                                    sigma_along(s, Axis::Y), s.ext,
                                                                    s.cval, dx, dy);
                                         }),
                    in);
  return as_float(ref::padded_reference(spec, in), in);
}

// One partial of an array: the passes in order of their axes, `orders` their derivative orders.
std::vector<double> array_partial(const ArraySpec& spec, const std::vector<std::int64_t>& shape,
                                  std::vector<double> a, std::vector<AxisPass> passes) {
  std::sort(passes.begin(), passes.end(),
            [](const AxisPass& l, const AxisPass& r) { return l.axis < r.axis; });
  const bool fir = fir_truth(spec.filter);
  double outside = spec.filter.cval;
  for (const AxisPass& p : passes) {
    LineSpec line = line_spec(spec.filter, Axis::X);
    line.sigma = p.sigma;
    line.ext = p.ext;
    line.derivative = p.derivative;
    Recursive f;
    if (!fir) f = design(line);  // validated there
    std::int64_t inner = 1, outer = 1;
    for (std::size_t d = std::size_t(p.axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    for (std::size_t d = 0; d < std::size_t(p.axis); ++d) outer *= shape[d];
    const std::int64_t n = shape[std::size_t(p.axis)];
    std::vector<double> x(static_cast<std::size_t>(n)), y;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        for (std::int64_t j = 0; j < n; ++j)
          x[std::size_t(j)] = a[std::size_t((o * n + j) * inner + i)];
        y = fir ? ref::fir_gaussian_line(x, p.sigma, p.ext, outside, p.derivative)
                : ref::filter_line_padded(f, p.ext, x, outside);
        for (std::int64_t j = 0; j < n; ++j)
          a[std::size_t((o * n + j) * inner + i)] = y[std::size_t(j)];
      }
    if (p.derivative != 0)
      outside = 0.0;
    else if (!fir)
      outside = ref::padded_constant_after(f, outside);
    if (spec.filter.derivative.normalized && p.derivative != 0) {
      const double scale = std::pow(p.sigma, p.derivative);
      for (double& v : a) v *= scale;
    }
  }
  return a;
}

}  // namespace

std::vector<double> ground_truth_array(const ArraySpec& spec,
                                       const std::vector<std::int64_t>& shape,
                                       const std::vector<double>& in) {
  if (spec.filter.kind == FilterKind::EdgeAware)
    throw InvalidParameter("ground truth of an array: the edge-aware filter's is an image's");
  // The shape, axes and passes as the array filter takes them (it plans nothing it refuses).
  ArrayFilter(spec, shape, Backend::Cpu);
  const auto measure = spec.filter.derivative.measure;
  if (measure == Derivative::Measure::Partial) return array_partial(spec, shape, in, spec.passes);
  std::vector<double> sum(in.size(), 0.0);
  for (std::size_t t = 0; t < spec.passes.size(); ++t) {
    std::vector<AxisPass> passes = spec.passes;
    for (std::size_t i = 0; i < passes.size(); ++i)
      passes[i].derivative = i != t ? 0 : measure == Derivative::Measure::GradientMagnitude ? 1 : 2;
    const std::vector<double> part = array_partial(spec, shape, in, passes);
    for (std::size_t i = 0; i < in.size(); ++i)
      sum[i] += measure == Derivative::Measure::GradientMagnitude ? part[i] * part[i] : part[i];
  }
  if (measure == Derivative::Measure::GradientMagnitude)
    for (double& v : sum) v = std::sqrt(v);
  return sum;
}

bool fir_truth(const FilterSpec& spec) {
  return info(spec.kind).approximates_gaussian;
}

Image ground_truth(const FilterSpec& spec, const Image& in, Backend backend) {
  if (in.width < 1 || in.height < 1 || in.channels < 1)
    throw InvalidParameter("ground truth: empty image");
  if (spec.kind != FilterKind::EdgeAware) validate(spec);
  if (backend == Backend::Auto)
    backend = fir_truth(spec) && !spec.derivative.any() && gpu_channels(in) && cuda_available()
                  ? Backend::Cuda
                  : Backend::Cpu;
  if (backend == Backend::Cpu) return cpu_truth(spec, in);
  if (spec.derivative.any())
    throw InvalidParameter(
        "ground truth on the GPU: a derivative's truth is computed on the CPU "
        "only");
  if (!fir_truth(spec))
    throw InvalidParameter(std::string("ground truth on the GPU: the ") + to_string(spec.kind) +
                           " filter's truth is computed on the CPU only (the GPU computes the "
                           "FIR Gaussian of the Gaussian kinds)");
  if (!gpu_channels(in))
    throw InvalidParameter("ground truth on the GPU: images of 1 or 4 channels (got " +
                           std::to_string(in.channels) + ")");
  std::string why;
  if (!cuda_available(&why)) throw BackendUnavailable("ground truth on the GPU: " + why);
  return cuda::fir_ground_truth(in, spec.sigma, sigma_along(spec, Axis::Y), spec.ext, spec.cval);
}

}  // namespace rf
