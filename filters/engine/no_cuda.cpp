// Linked instead of the CUDA code when the build has no CUDA compiler: what the public API's CUDA
// entry points answer then (cuda_available() false, the rest BackendUnavailable), and the GPU
// ground truth that rf::ground_truth reaches only where a device exists.
#include <string>

#include "filters/core/device_frame.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/fir/fir_tuned_cuda.h"
#include "filters/truth/truth_cuda.h"

namespace rf {

bool cuda_available(std::string* why) {
  if (why) *why = "this build of rfstudio has no CUDA backend (nvcc was not found)";
  return false;
}

std::unique_ptr<Engine> make_cuda_engine() {
  throw BackendUnavailable("CUDA backend unavailable: this build has no CUDA (nvcc was not found)");
}

namespace {
[[noreturn]] void no_tuned_fir() {
  throw BackendUnavailable("the tuned FIR Gaussian needs CUDA; this build has no CUDA");
}
}  // namespace

struct FirTuned::Impl {};
FirTuned::FirTuned() = default;
FirTuned::~FirTuned() = default;
void FirTuned::plan(double, int, double, int, Extension, float, int, int, FirTunedKernel, int) {
  no_tuned_fir();
}
FirTunedKernel FirTuned::kernel() const {
  no_tuned_fir();
}
void FirTuned::run(const float*, std::size_t, float*, std::size_t, void*) {
  no_tuned_fir();
}
void FirTuned::run(const void*, std::size_t, FirSamples, void*, std::size_t, FirSamples, void*) {
  no_tuned_fir();
}
Image fir_tuned(const Image&, double, int, Extension, FirTunedKernel) {
  no_tuned_fir();
}

}  // namespace rf

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

namespace rf::cuda {

namespace {
[[noreturn]] void no_cuda(const char* what) {
  throw BackendUnavailable(std::string(what) +
                           " needs CUDA; this build has no CUDA (nvcc was not found)");
}
}  // namespace

void synchronize(void*) {
  no_cuda("a CUDA stream");
}
int current_device() {
  no_cuda("a CUDA device");
}
int pointer_device(const void*) {
  no_cuda("memory on a CUDA device");
}

void gather_axis(const float*, float*, std::size_t, std::int64_t, int, std::int64_t, void*) {
  no_cuda("an array on a CUDA device");
}
void scatter_axis(const float*, std::size_t, float*, std::int64_t, int, std::int64_t, void*) {
  no_cuda("an array on a CUDA device");
}
void copy_on_device(const float*, float*, std::size_t, void*) {
  no_cuda("an array on a CUDA device");
}

Image fir_ground_truth(const Image&, double, double, Extension, double) {
  no_cuda("the ground truth on the GPU");
}

}  // namespace rf::cuda
