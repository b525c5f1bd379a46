// Lee et al. 2014 on CUDA, in a build without CUDA: every entry point says so.
#include "filters/errors.h"
#include "filters/lee2014_cuda.h"

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
