// rfstudio.DeviceArray: an image in CUDA device memory that rfstudio allocated, handed to other
// libraries without a copy through __cuda_array_interface__ and __dlpack__.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <vector>

#include "array_view.h"

namespace rfpy {

class DeviceArray {
 public:
  // Uninitialised device memory for an H x W (x 1) float32, float16 or uint16, H x W x 4 float32
  // or H x W x 4 uint8 array: the layouts the engines filter without conversion. Throws ValueError
  // for any other, BackendUnavailable without CUDA.
  DeviceArray(int height, int width, int channels, bool channel_axis, Dtype dtype);

  // A copy of a host array (anything view_of() reads) on the current device.
  static DeviceArray upload(py::handle host);
  // A copy on the host, as a new numpy array of the same shape and dtype.
  py::array download() const;

  ArrayView view() const;
  py::tuple shape() const;
  py::dtype dtype() const;

  // Version 3 of the CUDA array interface. Work rfstudio queues on an array is complete when the
  // call that queued it returns, so there is no stream to wait on.
  py::dict cuda_array_interface() const;
  py::capsule dlpack(const py::object& stream) const;
  py::tuple dlpack_device() const;

 private:
  std::shared_ptr<rf::cuda::DeviceFrame> frame_;
  int device_ = 0;
  int height_ = 0, width_ = 0, channels_ = 1;
  bool channel_axis_ = false;
  Dtype dtype_ = Dtype::F32;
};

// The numpy dtype of `d`.
py::dtype numpy_dtype(Dtype d);
// A new C-contiguous numpy array. Its strides are given, not left to pybind11, which computes
// them from the dtype's C descriptor, whose layout NumPy 2 changed (pybind11 before 2.12).
py::array new_numpy(Dtype d, const std::vector<py::ssize_t>& shape);

}  // namespace rfpy
