#include "filters/core/truth.h"

#include <string>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/truth_cuda.h"
#include "filters/recursive/reference.h"

namespace rf {
namespace {

bool gpu_channels(const Image& in) {
  return in.channels == 1 || in.channels == 4;
}

}  // namespace

bool fir_truth(const FilterSpec& spec) {
  return spec.kind == FilterKind::Gaussian || spec.kind == FilterKind::Deriche ||
         spec.kind == FilterKind::Yvrg;
}

Image ground_truth(const FilterSpec& spec, const Image& in, Backend backend) {
  if (backend == Backend::Auto)
    backend =
        fir_truth(spec) && gpu_channels(in) && cuda_available() ? Backend::Cuda : Backend::Cpu;
  if (backend == Backend::Cpu) return ref::ground_truth(spec, in);
  if (!fir_truth(spec))
    throw InvalidParameter(std::string("ground truth on the GPU: the ") + to_string(spec.kind) +
                           " filter's truth is computed on the CPU only (the GPU computes the "
                           "FIR Gaussian of gaussian, deriche and yvrg)");
  if (!gpu_channels(in))
    throw InvalidParameter("ground truth on the GPU: images of 1 or 4 channels (got " +
                           std::to_string(in.channels) + ")");
  validate(spec);
  std::string why;
  if (!cuda_available(&why)) throw BackendUnavailable("ground truth on the GPU: " + why);
  return cuda::fir_ground_truth(in, spec.sigma, spec.ext);
}

}  // namespace rf
