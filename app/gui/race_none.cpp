// Builds without the CUDA backend race on the CPU only.
#include "app/gui/race.h"

#include "filters/core/errors.h"

namespace rf::gui {

std::unique_ptr<RaceBench> make_cuda_race_bench(const Image&) {
  throw BackendUnavailable("the CUDA race needs a build with CUDA (nvcc was not found)");
}

}  // namespace rf::gui
