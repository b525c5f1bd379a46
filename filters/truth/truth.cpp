#include "filters/truth/truth.h"

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

}  // namespace

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
