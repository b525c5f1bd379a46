// What rfstudio reads from a Python array: where its pixels are and how they are laid out, from a
// numpy array, an object with __cuda_array_interface__ (CuPy, Numba, PyTorch on the GPU) or one
// with __dlpack__ (PyTorch, JAX, CuPy, numpy itself).
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <rf/rf.h>

namespace rfpy {

namespace py = pybind11;

// The sample types of rfstudio.filter: unsigned integers are filtered on [0, 1] (a level c of n
// bits as c / (2^n - 1)) and rounded back, as the engines' RGBA8 and R16U frames are.
enum class Dtype { F32, U8, U16, F16 };

inline std::size_t item_size(Dtype d) {
  return d == Dtype::F32 ? 4 : d == Dtype::U8 ? 1 : 2;
}
const char* dtype_name(Dtype d);  // "float32", "uint8", "uint16", "float16", as numpy names them

// A sample of `d` at `p` as the filters see it, and back (rf's conversions, core/image.h).
float decode(Dtype d, const void* p);
void encode(Dtype d, float v, void* p);

// The frame format the engines take for pixels of `channels` samples of `dtype`: R32F, RGBA32F,
// RGBA8, R16U or R16F; false for the others (2 or 3 channels, 1 channel of uint8, 4 of 16 bits).
bool engine_format_of(Dtype dtype, int channels, rf::PixelFormat* format);

// An H x W or H x W x C array (C = 1 to 4) of a Dtype, any strides, on the host or on a CUDA
// device. `owner` keeps the memory alive while the view is in use.
struct ArrayView {
  void* data = nullptr;
  bool on_device = false;  // CUDA device (or managed) memory
  int device = -1;         // the CUDA device, when on_device
  int height = 0, width = 0, channels = 1;
  bool channel_axis = false;  // H x W x C rather than H x W
  Dtype dtype = Dtype::F32;
  std::ptrdiff_t row_stride = 0, pixel_stride = 0, channel_stride = 0;  // in bytes
  bool writable = true;
  std::shared_ptr<void> owner;

  std::size_t pixel_bytes() const { return item_size(dtype) * std::size_t(channels); }

  // The frame format the engines take without conversion, when the layout is one of theirs:
  // float32 H x W (or x 1) as R32F, float32 H x W x 4 as RGBA32F, uint8 H x W x 4 as RGBA8,
  // uint16 and float16 H x W as R16U and R16F, with the channels of a pixel packed and rows
  // `row_stride` bytes apart.
  bool engine_format(rf::PixelFormat* format) const;

  // A frame view of the array; engine_format() must hold.
  rf::FrameView frame() const;

  // "(480, 640, 3) float32" for messages.
  std::string describe() const;
};

// Reads `obj`: __cuda_array_interface__ first, then a numpy array, then __dlpack__. Throws
// ValueError (py::value_error) naming what is wrong with the array, and BackendUnavailable for an
// array in GPU memory where no CUDA device can run.
ArrayView view_of(py::handle obj);

// A DLPack capsule ("dltensor") for a device array that rfstudio allocated: `owner` keeps it
// alive until the consumer calls the deleter. Shape and strides as in `view`.
py::capsule dlpack_capsule(const ArrayView& view);

}  // namespace rfpy
