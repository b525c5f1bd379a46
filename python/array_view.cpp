#include "array_view.h"

#include <pybind11/numpy.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

namespace rfpy {
namespace {

// DLPack's C ABI (dmlc/dlpack, include/dlpack/dlpack.h, v0.8): the unversioned "dltensor" capsule
// that every producer hands out when __dlpack__ is called without max_version.
enum : std::int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };
enum : std::uint8_t { kDLUInt = 1, kDLFloat = 2 };

struct DLDevice {
  std::int32_t device_type;
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: compact row-major
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};

// The stream argument of __dlpack__ that names CUDA's legacy default stream, where the engines run.
constexpr int kLegacyDefaultStream = 1;

constexpr const char* kDtypes =
    "rfstudio.filter takes float32, float16, uint8 or uint16 arrays (rfstudio.ndimage any real "
    "dtype)";

[[noreturn]] void refuse(const std::string& message) {
  throw py::value_error("array: " + message);
}

// GPU memory is read only where a CUDA device can run; otherwise say why, as the engines do.
void require_cuda() {
  std::string why;
  if (!rf::cuda_available(&why))
    throw rf::BackendUnavailable("an array in GPU memory needs the CUDA backend: " + why);
}

// An owner that holds a Python reference; dropped with the GIL held, as every ArrayView is.
std::shared_ptr<void> hold(py::handle obj) {
  return std::shared_ptr<void>(new py::object(py::reinterpret_borrow<py::object>(obj)),
                               [](void* p) { delete static_cast<py::object*>(p); });
}

void check_ndim(int ndim) {
  if (ndim != 2 && ndim != 3)
    refuse(std::to_string(ndim) + " dimensions: rfstudio filters H x W or H x W x C arrays");
}

bool little_endian() {
  const std::uint16_t one = 1;
  return *reinterpret_cast<const unsigned char*>(&one) == 1;
}

// Shape and strides (bytes) of an H x W or H x W x C array into `v`. Strides of axes of length 1
// are replaced by the packed ones: numpy leaves them arbitrary, and they are never stepped over.
void set_layout(ArrayView& v, int ndim, const std::int64_t* shape, const std::int64_t* strides) {
  check_ndim(ndim);
  for (int i = 0; i < ndim; ++i)
    if (shape[i] < 1 || shape[i] > INT_MAX)
      refuse("shape " + std::to_string(shape[i]) + " on axis " + std::to_string(i) +
             " (empty or too large)");
  v.height = int(shape[0]);
  v.width = int(shape[1]);
  v.channel_axis = ndim == 3;
  v.channels = ndim == 3 ? int(shape[2]) : 1;
  if (v.channels > 4)
    refuse(std::to_string(v.channels) +
           " channels: rfstudio.filter takes 1 to 4 (rfstudio.ndimage any number of axes)");
  const std::ptrdiff_t item = std::ptrdiff_t(item_size(v.dtype));
  v.channel_stride = ndim == 3 && v.channels > 1 ? std::ptrdiff_t(strides[2]) : item;
  v.pixel_stride = v.width > 1 ? std::ptrdiff_t(strides[1]) : std::ptrdiff_t(v.pixel_bytes());
  v.row_stride =
      v.height > 1 ? std::ptrdiff_t(strides[0]) : std::ptrdiff_t(v.pixel_bytes()) * v.width;
}

ArrayView from_cuda_array_interface(py::handle obj) {
  const py::dict cai = obj.attr("__cuda_array_interface__");
  require_cuda();
  ArrayView v;
  v.on_device = true;
  const std::string typestr = py::str(cai["typestr"]);
  // Little-endian on every CUDA host.
  const std::string type = typestr.size() == 3 && typestr[0] != '>' ? typestr.substr(1) : "";
  if (type == "f4")
    v.dtype = Dtype::F32;
  else if (type == "u1")
    v.dtype = Dtype::U8;
  else if (type == "u2")
    v.dtype = Dtype::U16;
  else if (type == "f2")
    v.dtype = Dtype::F16;
  else
    refuse("typestr '" + typestr + "': " + kDtypes);
  if (cai.contains("mask") && !cai["mask"].is_none()) refuse("masked arrays are not filtered");
  const py::tuple data = cai["data"];
  v.data = reinterpret_cast<void*>(data[0].cast<std::uintptr_t>());
  v.writable = !data[1].cast<bool>();
  const py::tuple shape = cai["shape"];
  std::int64_t sh[3] = {0, 0, 0}, st[3] = {0, 0, 0};
  const int ndim = int(shape.size());
  check_ndim(ndim);
  for (int i = 0; i < ndim; ++i) sh[i] = shape[i].cast<std::int64_t>();
  const bool strided = cai.contains("strides") && !cai["strides"].is_none();
  std::int64_t packed = std::int64_t(item_size(v.dtype));
  for (int i = ndim - 1; i >= 0; --i) {
    st[i] = strided ? py::tuple(cai["strides"])[i].cast<std::int64_t>() : packed;
    packed *= sh[i];
  }
  set_layout(v, ndim, sh, st);
  // Version 3: the producer's work on `stream` must be complete before the pixels are read.
  if (cai.contains("stream") && !cai["stream"].is_none()) {
    const auto stream = cai["stream"].cast<std::uintptr_t>();
    if (stream == 0) refuse("__cuda_array_interface__ stream 0 is ambiguous and not allowed");
    rf::cuda::synchronize(reinterpret_cast<void*>(stream));
  }
  v.device = rf::cuda::pointer_device(v.data);
  if (v.device < 0) refuse("__cuda_array_interface__ points to host memory");
  v.owner = hold(obj);
  return v;
}

ArrayView from_numpy(const py::array& a) {
  ArrayView v;
  // The dtype's fields through its Python attributes: pybind11's accessors read NumPy's C
  // descriptor, whose layout NumPy 2 changed (pybind11 before 2.12 reads another field there).
  const py::dtype dt = a.dtype();
  const char order = dt.attr("byteorder").cast<std::string>().at(0);
  const char kind = dt.attr("kind").cast<std::string>().at(0);
  const int itemsize = dt.attr("itemsize").cast<int>();
  const bool native = order == '=' || order == '|' || (order == '<' && little_endian());
  if (kind == 'f' && itemsize == 4 && native)
    v.dtype = Dtype::F32;
  else if (kind == 'u' && itemsize == 1)
    v.dtype = Dtype::U8;
  else if (kind == 'u' && itemsize == 2 && native)
    v.dtype = Dtype::U16;
  else if (kind == 'f' && itemsize == 2 && native)
    v.dtype = Dtype::F16;
  else
    refuse("dtype " + dt.attr("name").cast<std::string>() + ": " + kDtypes);
  const int ndim = int(a.ndim());
  check_ndim(ndim);
  std::int64_t sh[3] = {0, 0, 0}, st[3] = {0, 0, 0};
  for (int i = 0; i < ndim; ++i) {
    sh[i] = a.shape(i);
    st[i] = a.strides(i);
  }
  set_layout(v, ndim, sh, st);
  v.data = const_cast<void*>(a.data());
  v.writable = a.writeable();
  v.owner = hold(a);
  return v;
}

ArrayView from_dlpack(py::handle obj) {
  std::int32_t device_type = kDLCPU;
  if (py::hasattr(obj, "__dlpack_device__"))
    device_type = py::tuple(obj.attr("__dlpack_device__")())[0].cast<std::int32_t>();
  const bool cuda = device_type == kDLCUDA || device_type == kDLCUDAManaged;
  if (cuda) require_cuda();
  const py::object capsule = cuda ? obj.attr("__dlpack__")(py::arg("stream") = kLegacyDefaultStream)
                                  : obj.attr("__dlpack__")();
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
    refuse("__dlpack__ did not return an unused DLPack capsule");
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  // The tensor is ours now: the capsule must not free it, and we call its deleter when done.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  ArrayView v;
  v.owner = std::shared_ptr<void>(managed, [](void* p) {
    auto* t = static_cast<DLManagedTensor*>(p);
    if (t->deleter) t->deleter(t);
  });
  const DLTensor& t = managed->dl_tensor;
  switch (t.device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
      v.on_device = false;
      break;
    case kDLCUDA:
    case kDLCUDAManaged:
      require_cuda();
      v.on_device = true;
      v.device = t.device.device_id;
      break;
    default:
      refuse("DLPack device type " + std::to_string(t.device.device_type) +
             " is neither host nor CUDA memory");
  }
  const bool lane = t.dtype.lanes == 1;
  if (lane && t.dtype.code == kDLFloat && t.dtype.bits == 32)
    v.dtype = Dtype::F32;
  else if (lane && t.dtype.code == kDLUInt && t.dtype.bits == 8)
    v.dtype = Dtype::U8;
  else if (lane && t.dtype.code == kDLUInt && t.dtype.bits == 16)
    v.dtype = Dtype::U16;
  else if (lane && t.dtype.code == kDLFloat && t.dtype.bits == 16)
    v.dtype = Dtype::F16;
  else
    refuse("DLPack dtype (code " + std::to_string(t.dtype.code) + ", " +
           std::to_string(t.dtype.bits) + " bits, " + std::to_string(t.dtype.lanes) +
           " lanes): " + kDtypes);
  check_ndim(t.ndim);
  const std::int64_t item = std::int64_t(item_size(v.dtype));
  std::int64_t st[3] = {0, 0, 0};
  std::int64_t packed = item;
  for (int i = t.ndim - 1; i >= 0; --i) {
    st[i] = t.strides ? t.strides[i] * item : packed;
    packed *= t.shape[i];
  }
  set_layout(v, t.ndim, t.shape, st);
  v.data = static_cast<char*>(t.data) + t.byte_offset;
  return v;
}

}  // namespace

const char* dtype_name(Dtype d) {
  switch (d) {
    case Dtype::F32:
      return "float32";
    case Dtype::U8:
      return "uint8";
    case Dtype::U16:
      return "uint16";
    case Dtype::F16:
      return "float16";
  }
  return "?";
}

float decode(Dtype d, const void* p) {
  switch (d) {
    case Dtype::F32:
      return *static_cast<const float*>(p);
    case Dtype::U8:
      return rf::from_unorm8(*static_cast<const std::uint8_t*>(p));
    case Dtype::U16:
      return rf::from_unorm16(*static_cast<const std::uint16_t*>(p));
    case Dtype::F16:
      return rf::from_half(*static_cast<const std::uint16_t*>(p));
  }
  return 0.0f;
}

void encode(Dtype d, float v, void* p) {
  switch (d) {
    case Dtype::F32:
      *static_cast<float*>(p) = v;
      break;
    case Dtype::U8:
      *static_cast<std::uint8_t*>(p) = rf::to_unorm8(v);
      break;
    case Dtype::U16:
      *static_cast<std::uint16_t*>(p) = rf::to_unorm16(v);
      break;
    case Dtype::F16:
      *static_cast<std::uint16_t*>(p) = rf::to_half(v);
      break;
  }
}

bool engine_format_of(Dtype dtype, int channels, rf::PixelFormat* format) {
  if (dtype == Dtype::F32 && channels == 1)
    *format = rf::PixelFormat::R32F;
  else if (dtype == Dtype::F32 && channels == 4)
    *format = rf::PixelFormat::RGBA32F;
  else if (dtype == Dtype::U8 && channels == 4)
    *format = rf::PixelFormat::RGBA8;
  else if (dtype == Dtype::U16 && channels == 1)
    *format = rf::PixelFormat::R16U;
  else if (dtype == Dtype::F16 && channels == 1)
    *format = rf::PixelFormat::R16F;
  else
    return false;
  return true;
}

bool ArrayView::engine_format(rf::PixelFormat* format) const {
  if (!engine_format_of(dtype, channels, format)) return false;
  const std::ptrdiff_t pixel = std::ptrdiff_t(pixel_bytes());
  // The CUDA kernels load whole pixels (float, float4, uchar4, 16-bit), so rows start on pixel
  // boundaries of that alignment.
  const std::uintptr_t align = std::min<std::uintptr_t>(16, rf::bytes_per_pixel(*format));
  return channel_stride == std::ptrdiff_t(item_size(dtype)) && pixel_stride == pixel &&
         row_stride >= pixel * width && reinterpret_cast<std::uintptr_t>(data) % align == 0 &&
         std::uintptr_t(row_stride) % align == 0;
}

rf::FrameView ArrayView::frame() const {
  rf::FrameView f;
  engine_format(&f.format);
  f.data = data;
  f.width = width;
  f.height = height;
  f.pitch = std::size_t(row_stride);
  f.space = on_device ? rf::MemorySpace::Device : rf::MemorySpace::Host;
  return f;
}

std::string ArrayView::describe() const {
  std::string s = "(" + std::to_string(height) + ", " + std::to_string(width);
  if (channel_axis) s += ", " + std::to_string(channels);
  return s + ") " + dtype_name(dtype) + (on_device ? " on the GPU" : "");
}

ArrayView view_of(py::handle obj) {
  if (py::hasattr(obj, "__cuda_array_interface__")) return from_cuda_array_interface(obj);
  if (py::isinstance<py::array>(obj)) return from_numpy(py::reinterpret_borrow<py::array>(obj));
  if (py::hasattr(obj, "__dlpack__")) return from_dlpack(obj);
  // Anything else numpy can read without copying (the buffer protocol, __array_interface__:
  // PIL images, memoryviews, ...), or copies (nested lists).
  const py::array a = py::module_::import("numpy").attr("asarray")(obj);
  return from_numpy(a);
}

py::capsule dlpack_capsule(const ArrayView& v) {
  struct Export {
    DLManagedTensor managed{};
    std::int64_t shape[3] = {0, 0, 0};
    std::int64_t strides[3] = {0, 0, 0};
    std::shared_ptr<void> owner;
  };
  auto* e = new Export;
  const std::int64_t item = std::int64_t(item_size(v.dtype));
  e->shape[0] = v.height;
  e->shape[1] = v.width;
  e->shape[2] = v.channels;
  e->strides[0] = v.row_stride / item;
  e->strides[1] = v.pixel_stride / item;
  e->strides[2] = v.channel_stride / item;
  e->owner = v.owner;
  DLTensor& t = e->managed.dl_tensor;
  t.data = v.data;
  t.device = {v.on_device ? kDLCUDA : kDLCPU, v.on_device ? v.device : 0};
  t.ndim = v.channel_axis ? 3 : 2;
  const bool is_float = v.dtype == Dtype::F32 || v.dtype == Dtype::F16;
  t.dtype = DLDataType{is_float ? kDLFloat : kDLUInt, std::uint8_t(8 * item_size(v.dtype)), 1};
  t.shape = e->shape;
  t.strides = e->strides;
  t.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = [](DLManagedTensor* m) { delete static_cast<Export*>(m->manager_ctx); };
  PyObject* capsule = PyCapsule_New(&e->managed, "dltensor", [](PyObject* cap) {
    // A capsule nobody consumed still owns its tensor.
    if (!PyCapsule_IsValid(cap, "dltensor")) return;
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    m->deleter(m);
  });
  if (!capsule) {
    delete e;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

}  // namespace rfpy
