#include "filters/fir/fir_cuda.cuh"

#include "filters/core/design.h"
#include "filters/core/errors.h"
#include "filters/fir/fir.h"
#include "filters/fir/fir_direct_cuda.cuh"
#include "filters/fir/fir_tuned_cuda.h"

namespace rf::cuda {
namespace {

// Both axes of one float channel or of four channels (float or 8-bit buffers): the tuned
// kernels, which read and write those buffers themselves.
class TunedFirFilter final : public FrameFilter {
 public:
  TunedFirFilter(const FilterSpec& spec, int width, int height, int channels)
      : channels_(channels) {
    const double sx = sigma_along(spec, Axis::X), sy = sigma_along(spec, Axis::Y);
    fir_.plan(sx, gaussian_fir_radius(sx), sy, gaussian_fir_radius(sy), spec.ext,
              spec.ext == Extension::Constant ? float(spec.cval) : 0.f, width, height,
              FirTunedKernel::Auto, channels);
  }
  bool reads(IoKind k) const override {
    return channels_ == 1 ? k == IoKind::F32 : k == IoKind::F32x4 || k == IoKind::U8x4;
  }
  bool writes(IoKind k) const override { return reads(k); }
  std::string algorithm() const override { return "fir"; }
  std::vector<std::string> stage_names() const override { return {"fir"}; }
  void enqueue(const Io& src, const Io& dst, cudaStream_t stream, cudaEvent_t* marks) override {
    fir_.run(src.ptr, src.pitch, samples(src.kind), dst.ptr, dst.pitch, samples(dst.kind), stream);
    if (marks) CUDA_CHECK(cudaEventRecord(marks[0], stream));
  }

 private:
  static FirSamples samples(IoKind k) {
    return k == IoKind::F32    ? FirSamples::F32
           : k == IoKind::U8x4 ? FirSamples::U8x4
                               : FirSamples::F32x4;
  }
  int channels_;
  FirTuned fir_;
};

// One axis (the other's radius 0), or a radius beyond the tuned kernels' shared memory: the
// direct kernel, every storage kind.
class DirectFirFilter final : public FrameFilter {
 public:
  DirectFirFilter(const FilterSpec& spec, int width, int height, int channels) {
    const double sx = sigma_along(spec, Axis::X), sy = sigma_along(spec, Axis::Y);
    fir_.plan(sx, sy, spec.ext, spec.cval, width, height,
              channels == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F,
              filters_along(spec, Axis::X) ? gaussian_fir_radius(sx) : 0,
              filters_along(spec, Axis::Y) ? gaussian_fir_radius(sy) : 0);
  }
  bool reads(IoKind) const override { return true; }
  bool writes(IoKind) const override { return true; }
  std::string algorithm() const override { return "fir"; }
  std::vector<std::string> stage_names() const override { return {"fir"}; }
  void enqueue(const Io& src, const Io& dst, cudaStream_t stream, cudaEvent_t* marks) override {
    fir_.enqueue(src, dst, stream);
    if (marks) CUDA_CHECK(cudaEventRecord(marks[0], stream));
  }

 private:
  SeparableFir<float> fir_;
};

}  // namespace

std::unique_ptr<FrameFilter> make_fir_frame_filter(const FilterSpec& spec, int width, int height,
                                                   PixelFormat format) {
  validate(spec);
  const int channels = channel_count(format);
  if (spec.axes == Axes::Both) {
    try {
      return std::make_unique<TunedFirFilter>(spec, width, height, channels);
    } catch (const InvalidParameter&) {
      // A radius whose tiles the shared memory cannot hold: the direct kernel takes any.
    }
  }
  return std::make_unique<DirectFirFilter>(spec, width, height, channels);
}

}  // namespace rf::cuda
