#include "filters/reference.h"

#include <stdexcept>

namespace rf::ref {

std::vector<double> filter_line_exact(const Recursive&, Extension, const std::vector<double>&) {
  throw std::logic_error("not implemented yet");
}
std::vector<double> filter_line_padded(const Recursive&, Extension, const std::vector<double>&) {
  throw std::logic_error("not implemented yet");
}
Image ground_truth(const FilterSpec&, const Image&) { throw std::logic_error("not implemented yet"); }

}  // namespace rf::ref
