// Linked instead of the CUDA code when the build has no CUDA compiler: every CUDA entry point
// of every filter family says so, and cuda_available() answers false.
#include <string>

#include "filters/core/device_frame.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/truth/truth_cuda.h"
#include "filters/edge_aware/edge_aware_cuda.h"
#include "filters/lee2014/lee2014_cuda.h"

namespace rf {

bool cuda_available(std::string* why) {
  if (why) *why = "this build of rfstudio has no CUDA backend (nvcc was not found)";
  return false;
}

std::unique_ptr<Engine> make_cuda_engine() {
  throw BackendUnavailable("CUDA backend unavailable: this build has no CUDA (nvcc was not found)");
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

Image fir_ground_truth(const Image&, double, Extension) {
  no_cuda("the ground truth on the GPU");
}

}  // namespace rf::cuda

namespace rf::cuda {
namespace {

[[noreturn]] void unavailable() {
  throw BackendUnavailable("edge-aware filter on CUDA: built without CUDA");
}

}  // namespace

struct EdgeAwarePlan::Impl {};

EdgeAwarePlan::EdgeAwarePlan(const FilterSpec&, int, int, int) {
  unavailable();
}
EdgeAwarePlan::~EdgeAwarePlan() = default;
void EdgeAwarePlan::run(const float*, std::size_t, float*, std::size_t, void*) {
  unavailable();
}
void EdgeAwarePlan::enqueue(const float*, std::size_t, float*, std::size_t, void*) {
  unavailable();
}
void EdgeAwarePlan::run(const EdgeImage&, const EdgeOutput&, void*) {
  unavailable();
}
void EdgeAwarePlan::prepare(EdgeFormat, EdgeFormat) {
  unavailable();
}
void EdgeAwarePlan::enqueue(const EdgeImage&, const EdgeOutput&, void*) {
  unavailable();
}
int EdgeAwarePlan::channels() const {
  unavailable();
}

Image edge_aware_filter(const FilterSpec&, const Image&) {
  unavailable();
}
Image edge_aware_filter(const FilterSpec&, const Image&, EdgeFormat) {
  unavailable();
}

}  // namespace rf::cuda

namespace rf::lee2014::cuda {
namespace {

[[noreturn]] void unavailable() {
  throw BackendUnavailable("Lee et al. 2014 on CUDA: built without CUDA");
}

}  // namespace

struct DevicePlan::Impl {};

DevicePlan::DevicePlan(Partition, double, int, int, int, int) {
  unavailable();
}
DevicePlan::~DevicePlan() = default;
void DevicePlan::run(const float*, std::size_t, float*, std::size_t, void*) {
  unavailable();
}
void DevicePlan::run_rows(const float*, std::size_t, float*, std::size_t, void*) {
  unavailable();
}
void DevicePlan::run_columns(float*, std::size_t, void*) {
  unavailable();
}

Image filter(Partition, double, const Image&, int, bool) {
  unavailable();
}

}  // namespace rf::lee2014::cuda
