// Linked instead of the CUDA backend when the build has no CUDA compiler.
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
