// rfstudio._rfstudio.filter_array: N-D arrays filtered one axis at a time (rf::ArrayFilter), for
// rfstudio.ndimage.
#pragma once

#include <pybind11/pybind11.h>

namespace rfpy {

void bind_array_filter(pybind11::module_& m);

}  // namespace rfpy
