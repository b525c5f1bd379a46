// The edge-aware filter on CUDA, in a build without CUDA: every entry point says so.
#include "filters/edge_aware_cuda.h"
#include "filters/errors.h"

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
int EdgeAwarePlan::channels() const {
  unavailable();
}

Image edge_aware_filter(const FilterSpec&, const Image&) {
  unavailable();
}
EdgeAwareTiming time_edge_aware(const FilterSpec&, const Image&, int) {
  unavailable();
}

}  // namespace rf::cuda
