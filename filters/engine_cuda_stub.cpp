// Linked instead of the CUDA backend when the build has no CUDA compiler.
#include <string>

#include "filters/engine.h"
#include "filters/errors.h"

namespace rf {

bool cuda_available(std::string* why) {
  if (why) *why = "this build of rfstudio has no CUDA backend (nvcc was not found)";
  return false;
}

std::unique_ptr<Engine> make_cuda_engine() {
  throw BackendUnavailable("CUDA backend unavailable: this build has no CUDA (nvcc was not found)");
}

}  // namespace rf

#include "filters/bench.h"

namespace rf {

std::vector<BenchResult> bench_cuda(const BenchOptions&, void (*)(const BenchResult&)) {
  throw BackendUnavailable(
      "CUDA benchmark unavailable: this build has no CUDA (nvcc was not found)");
}

}  // namespace rf

#include "filters/cuda/device_frame.h"

namespace rf::cuda {

struct DeviceFrame::Impl {};

DeviceFrame::DeviceFrame(int, int, PixelFormat, MemorySpace) {
  throw BackendUnavailable("device frames need CUDA; this build has no CUDA (nvcc was not found)");
}
DeviceFrame::~DeviceFrame() = default;
void DeviceFrame::upload(const void*, std::size_t) {}
void DeviceFrame::download(void*, std::size_t) const {}
void DeviceFrame::poison() {}
FrameView DeviceFrame::view() const {
  return {};
}

}  // namespace rf::cuda

#include "filters/cuda/baselines_cuda.h"
#include "filters/cuda/fir_cuda.h"

namespace rf::cuda {

namespace {
[[noreturn]] void no_cuda(const char* what) {
  throw BackendUnavailable(std::string(what) +
                           " needs CUDA; this build has no CUDA (nvcc was not found)");
}
}  // namespace

struct FirGaussian::Impl {};
FirGaussian::FirGaussian() = default;
FirGaussian::~FirGaussian() = default;
void FirGaussian::plan(double, Extension, int, int, PixelFormat, FirPrecision) {
  no_cuda("the GPU FIR Gaussian");
}
void FirGaussian::run(const FrameView&, const FrameView&, void*) {
  no_cuda("the GPU FIR Gaussian");
}
Image fir_gaussian(const Image&, double, Extension, FirPrecision) {
  no_cuda("the GPU FIR Gaussian");
}

struct CufftGaussian::Impl {};
CufftGaussian::CufftGaussian(int, int, double) {
  no_cuda("the cuFFT baseline");
}
CufftGaussian::~CufftGaussian() = default;
bool CufftGaussian::available(std::string* why) {
  if (why) *why = "this build has no CUDA";
  return false;
}
void CufftGaussian::run(const float*, float*, void*) {
  no_cuda("the cuFFT baseline");
}

struct CubSat::Impl {};
CubSat::CubSat(int, int) {
  no_cuda("the CUB summed-area table");
}
CubSat::~CubSat() = default;
void CubSat::run(const float*, float*, void*) {
  no_cuda("the CUB summed-area table");
}

}  // namespace rf::cuda
