#include "device_array.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rfpy {

py::dtype numpy_dtype(Dtype d) {
  return py::dtype(dtype_name(d));
}

py::array new_numpy(Dtype d, const std::vector<py::ssize_t>& shape) {
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = py::ssize_t(item_size(d));
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return py::array(numpy_dtype(d), shape, strides);
}

DeviceArray::DeviceArray(int height, int width, int channels, bool channel_axis, Dtype dtype)
    : height_(height),
      width_(width),
      channels_(channels),
      channel_axis_(channel_axis),
      dtype_(dtype) {
  rf::PixelFormat format;
  if (!engine_format_of(dtype, channels, &format))
    throw py::value_error(std::string("DeviceArray: ") + std::to_string(channels) +
                          " channels of " + dtype_name(dtype) +
                          " (it holds H x W float32, float16 or uint16, H x W x 4 float32 or "
                          "H x W x 4 uint8)");
  std::string why;
  if (!rf::cuda_available(&why))
    throw rf::BackendUnavailable("DeviceArray needs the CUDA backend: " + why);
  device_ = rf::cuda::current_device();
  frame_ = std::make_shared<rf::cuda::DeviceFrame>(width, height, format, rf::MemorySpace::Device);
}

DeviceArray DeviceArray::upload(py::handle host) {
  ArrayView v = view_of(host);
  if (v.on_device) throw py::value_error("DeviceArray: the array is on the GPU already");
  DeviceArray d(v.height, v.width, v.channels, v.channel_axis, v.dtype);
  rf::PixelFormat format;
  if (!v.engine_format(&format))
    v = view_of(py::module_::import("numpy").attr("ascontiguousarray")(host));
  {
    py::gil_scoped_release release;
    d.frame_->upload(v.data, std::size_t(v.row_stride));
  }
  return d;
}

py::array DeviceArray::download() const {
  std::vector<py::ssize_t> dims = {height_, width_};
  if (channel_axis_) dims.push_back(channels_);
  py::array out = new_numpy(dtype_, dims);
  const std::size_t row = std::size_t(width_) * channels_ * item_size(dtype_);
  void* dst = out.mutable_data();
  {
    py::gil_scoped_release release;
    frame_->download(dst, row);
  }
  return out;
}

ArrayView DeviceArray::view() const {
  const rf::FrameView f = frame_->view();
  ArrayView v;
  v.data = f.data;
  v.on_device = true;
  v.device = device_;
  v.height = height_;
  v.width = width_;
  v.channels = channels_;
  v.channel_axis = channel_axis_;
  v.dtype = dtype_;
  v.channel_stride = std::ptrdiff_t(item_size(dtype_));
  v.pixel_stride = std::ptrdiff_t(v.pixel_bytes());
  v.row_stride = std::ptrdiff_t(f.pitch);
  v.owner = frame_;
  return v;
}

py::tuple DeviceArray::shape() const {
  return channel_axis_ ? py::make_tuple(height_, width_, channels_)
                       : py::make_tuple(height_, width_);
}

py::dtype DeviceArray::dtype() const {
  return numpy_dtype(dtype_);
}

py::dict DeviceArray::cuda_array_interface() const {
  const ArrayView v = view();
  py::dict d;
  d["shape"] = shape();
  d["typestr"] = dtype_ == Dtype::F32   ? "<f4"
                 : dtype_ == Dtype::U8  ? "|u1"
                 : dtype_ == Dtype::U16 ? "<u2"
                                        : "<f2";
  d["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(v.data), false);
  d["strides"] = channel_axis_ ? py::make_tuple(v.row_stride, v.pixel_stride, v.channel_stride)
                               : py::make_tuple(v.row_stride, v.pixel_stride);
  d["version"] = 3;
  d["stream"] = py::none();
  return d;
}

py::capsule DeviceArray::dlpack(const py::object& stream) const {
  if (!stream.is_none() && stream.cast<long long>() == 0)
    throw py::value_error("__dlpack__: stream 0 is ambiguous and not allowed");
  return dlpack_capsule(view());
}

py::tuple DeviceArray::dlpack_device() const {
  constexpr int kDLCUDA = 2;
  return py::make_tuple(kDLCUDA, device_);
}

}  // namespace rfpy
