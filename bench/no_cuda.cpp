// Linked instead of the bench's .cu files when the build has no CUDA compiler: every CUDA entry
// point says so.
#include <string>

#include "bench/baselines_cuda.h"
#include "bench/bench.h"
#include "bench/cuda_clock.h"
#include "bench/edge_bench.h"
#include "bench/fir_cuda.h"
#include "bench/frame_bench.h"
#include "bench/lee_bench.h"
#include "bench/npp_cuda.h"
#include "filters/core/errors.h"

namespace rf::bench {
namespace {

[[noreturn]] void no_cuda(const char* what) {
  throw BackendUnavailable(std::string(what) +
                           " needs CUDA; this build has no CUDA (nvcc was not found)");
}

}  // namespace

CudaClock::CudaClock(void*, bool) {
  no_cuda("CUDA events");
}
CudaClock::~CudaClock() = default;
double CudaClock::time_ms(const std::function<void()>&) {
  no_cuda("CUDA events");
}
void CudaClock::synchronize() {
  no_cuda("CUDA events");
}

std::vector<BenchResult> bench_cuda(const BenchOptions&, void (*)(const BenchResult&),
                                    void (*)(const std::string&)) {
  no_cuda("the CUDA benchmark");
}

std::unique_ptr<FrameBench> make_cuda_frame_bench(const Image&) {
  no_cuda("the CUDA race");
}

Timing time_edge_aware_cuda(const FilterSpec&, const Image&, const Repeats&) {
  no_cuda("timing the edge-aware filter on CUDA");
}

Image lee_cuda(lee2014::Partition, double, const Image&) {
  no_cuda("Lee et al. 2014 on CUDA");
}
Timing time_lee(lee2014::Partition, double, int, int, int, int, int) {
  no_cuda("Lee et al. 2014 on CUDA");
}
Timing time_cuda_engine(const FilterSpec&, int, int, int, int) {
  no_cuda("the CUDA engine");
}
std::string device_summary(int*) {
  no_cuda("a CUDA device");
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

}  // namespace rf::bench
