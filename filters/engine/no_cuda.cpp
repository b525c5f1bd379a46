// Linked instead of the CUDA code when the build has no CUDA compiler: every CUDA entry point
// of every filter family says so, and cuda_available() answers false.
#include <string>

#include "filters/baselines/baselines_cuda.h"
#include "filters/baselines/bench.h"
#include "filters/baselines/fir_cuda.h"
#include "filters/baselines/fir_tuned_cuda.h"
#include "filters/baselines/npp_cuda.h"
#include "filters/core/device_frame.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
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

namespace rf {

std::vector<BenchResult> bench_cuda(const BenchOptions&, void (*)(const BenchResult&),
                                    void (*)(const std::string&)) {
  throw BackendUnavailable(
      "CUDA benchmark unavailable: this build has no CUDA (nvcc was not found)");
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

struct FirGaussian::Impl {};
FirGaussian::FirGaussian() = default;
FirGaussian::~FirGaussian() = default;
void FirGaussian::plan(double, Extension, int, int, PixelFormat, FirPrecision, int) {
  no_cuda("the GPU FIR Gaussian");
}
int FirGaussian::radius() const {
  no_cuda("the GPU FIR Gaussian");
}
void FirGaussian::run(const FrameView&, const FrameView&, void*) {
  no_cuda("the GPU FIR Gaussian");
}
Image fir_gaussian(const Image&, double, Extension, FirPrecision, int) {
  no_cuda("the GPU FIR Gaussian");
}

struct FirTuned::Impl {};
FirTuned::FirTuned() = default;
FirTuned::~FirTuned() = default;
void FirTuned::plan(double, int, Extension, int, int, FirTunedKernel) {
  no_cuda("the tuned FIR Gaussian");
}
FirTunedKernel FirTuned::kernel() const {
  no_cuda("the tuned FIR Gaussian");
}
void FirTuned::run(const float*, std::size_t, float*, std::size_t, void*) {
  no_cuda("the tuned FIR Gaussian");
}
Image fir_tuned(const Image&, double, int, Extension, FirTunedKernel) {
  no_cuda("the tuned FIR Gaussian");
}

struct NppGaussian::Impl {};
NppGaussian::NppGaussian(int, int, double, int) {
  no_cuda("the NPP baseline");
}
NppGaussian::~NppGaussian() = default;
bool NppGaussian::available(std::string* why) {
  if (why) *why = "this build has no CUDA";
  return false;
}
std::string NppGaussian::version() {
  return {};
}
void NppGaussian::run(const float*, std::size_t, float*, std::size_t, void*) {
  no_cuda("the NPP baseline");
}
Image npp_gaussian(const Image&, double, int) {
  no_cuda("the NPP baseline");
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
EdgeAwareTiming time_edge_aware(const FilterSpec&, const Image&, int) {
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
Timing time_lee(Partition, double, int, int, int, int, int) {
  unavailable();
}
Timing time_engine(const FilterSpec&, int, int, int, int) {
  unavailable();
}
std::string device_summary(int*) {
  unavailable();
}

}  // namespace rf::lee2014::cuda
