// The plain FIR baseline: filters/fir/fir_direct_cuda.cuh in float or in double.
#include "bench/fir_cuda.h"

#include <stdexcept>

#include "filters/fir/fir_direct_cuda.cuh"

namespace rf::bench {

struct FirGaussian::Impl {
  FirPrecision precision = FirPrecision::Float;
  cuda::SeparableFir<float> single;
  cuda::SeparableFir<double> twice;
  bool planned = false;
};

FirGaussian::FirGaussian() : impl_(std::make_unique<Impl>()) {}
FirGaussian::~FirGaussian() = default;

void FirGaussian::plan(double sigma, Extension ext, int width, int height, PixelFormat format,
                       FirPrecision precision, int radius) {
  Impl& d = *impl_;
  d.planned = false;
  d.precision = precision;
  if (precision == FirPrecision::Float)
    d.single.plan(sigma, ext, width, height, format, radius);
  else
    d.twice.plan(sigma, ext, width, height, format, radius);
  d.planned = true;
}

int FirGaussian::radius() const {
  return impl_->precision == FirPrecision::Float ? impl_->single.radius() : impl_->twice.radius();
}

void FirGaussian::run(const FrameView& in, const FrameView& out, void* stream) {
  Impl& d = *impl_;
  if (!d.planned) throw std::logic_error("FirGaussian::run before plan");
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (d.precision == FirPrecision::Float)
    d.single.run(in, out, s);
  else
    d.twice.run(in, out, s);
}

Image fir_gaussian(const Image& in, double sigma, Extension ext, FirPrecision precision,
                   int radius) {
  if (in.channels != 1 && in.channels != 4)
    throw InvalidParameter("fir_gaussian: images of 1 or 4 channels");
  Image out(in.width, in.height, in.channels);
  FirGaussian fir;
  const FrameView src = const_cast<Image&>(in).view();
  fir.plan(sigma, ext, in.width, in.height, src.format, precision, radius);
  fir.run(src, out.view());
  return out;
}

}  // namespace rf::bench
