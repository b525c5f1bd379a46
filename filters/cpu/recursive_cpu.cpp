#include "filters/cpu/recursive_cpu.h"

#include <stdexcept>

namespace rf::cpu {

struct ImagePlan::Impl {};
ImagePlan::ImagePlan(const Recursive&, Extension, int, int, int) {
  throw std::logic_error("not implemented yet");
}
ImagePlan::~ImagePlan() = default;
ImagePlan::ImagePlan(ImagePlan&&) noexcept = default;
ImagePlan& ImagePlan::operator=(ImagePlan&&) noexcept = default;
void ImagePlan::run(float*) const {}

}  // namespace rf::cpu
