// The GPU ground truth: the separable FIR Gaussian of filters/fir/fir_direct_cuda.cuh, accumulated
// in double.
#include "filters/truth/truth_cuda.h"

#include <string>

#include "filters/fir/fir_direct_cuda.cuh"

namespace rf::cuda {

Image fir_ground_truth(const Image& in, double sigma_x, double sigma_y, Extension ext,
                       double cval) {
  if (in.channels != 1 && in.channels != 4)
    throw InvalidParameter("ground truth on the GPU: images of 1 or 4 channels (got " +
                           std::to_string(in.channels) + ")");
  Image out(in.width, in.height, in.channels);
  const FrameView src = const_cast<Image&>(in).view();
  SeparableFir<double> fir;
  fir.plan(sigma_x, sigma_y, ext, cval, in.width, in.height, src.format);
  fir.run(src, out.view(), nullptr);
  return out;
}

}  // namespace rf::cuda
