#include "filters/edge_aware.h"

#include "filters/errors.h"

namespace rf {

Image edge_aware_reference(const FilterSpec&, const Image&) {
  throw InvalidParameter("edge-aware filter: not implemented yet");
}

namespace cpu {

struct EdgeAwarePlan::Impl {};
EdgeAwarePlan::EdgeAwarePlan(const FilterSpec&, int, int, int) {
  throw InvalidParameter("edge-aware filter: not implemented yet");
}
EdgeAwarePlan::~EdgeAwarePlan() = default;
EdgeAwarePlan::EdgeAwarePlan(EdgeAwarePlan&&) noexcept = default;
EdgeAwarePlan& EdgeAwarePlan::operator=(EdgeAwarePlan&&) noexcept = default;
void EdgeAwarePlan::run(const float*, float*) const {}

}  // namespace cpu
}  // namespace rf
