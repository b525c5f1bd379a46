#include "filters/design.h"

#include "filters/errors.h"

namespace rf {

void validate(const FilterSpec&) {}
Recursive design(const FilterSpec&) { throw InvalidParameter("design: not implemented yet"); }
DesignError gaussian_design_error(const FilterSpec&) {
  throw InvalidParameter("design error: not implemented yet");
}

}  // namespace rf
