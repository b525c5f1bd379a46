#include "array_filter.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <rf/rf.h>

namespace rfpy {
namespace {

namespace py = pybind11;

// (axis, sigma, derivative order, extension name) per filtered axis.
using Pass = std::tuple<int, double, int, std::string>;

rf::ArraySpec spec_of(const std::vector<Pass>& passes, const std::string& kind, int order,
                      double cval, const std::string& measure, bool normalized,
                      const std::string& algo) {
  rf::FilterArgs args;
  args.filter = kind;
  args.order = order;
  args.algo = algo;
  rf::ArraySpec spec;
  spec.filter = rf::parse_spec_unvalidated(args);
  spec.filter.cval = cval;
  spec.filter.derivative.normalized = normalized;
  const std::optional<rf::Derivative> d = rf::parse_derivative(measure);
  if (!d || d->x || d->y)
    throw py::value_error("measure: '" + measure + "' (none, gradient, laplacian)");
  spec.filter.derivative.measure = d->measure;
  for (const auto& [axis, sigma, derivative, ext] : passes) {
    const std::optional<rf::Extension> e = rf::parse_extension(ext);
    if (!e) throw py::value_error("mode: unknown extension '" + ext + "'");
    spec.passes.push_back({axis, sigma, derivative, *e});
  }
  return spec;
}

// Through the dtype's Python attributes: the descriptor's C layout changed in NumPy 2.
std::optional<rf::DType> dtype_of(const py::dtype& t) {
  const std::string kinds = py::str(t.attr("kind"));
  const char kind = kinds.empty() ? '?' : kinds[0];
  const int size = t.attr("itemsize").cast<int>();
  if (kind == 'u' && size == 1) return rf::DType::U8;
  if (kind == 'u' && size == 2) return rf::DType::U16;
  if (kind == 'f' && size == 2) return rf::DType::F16;
  if (kind == 'f' && size == 4) return rf::DType::F32;
  if (kind == 'f' && size == 8) return rf::DType::F64;
  return std::nullopt;
}

std::vector<std::int64_t> shape_of(const py::array& a) {
  return std::vector<std::int64_t>(a.shape(), a.shape() + a.ndim());
}

void filter_host(const py::array& in, py::array& out, const std::vector<Pass>& passes,
                 const std::string& kind, int order, double cval, const std::string& measure,
                 bool normalized, const std::string& algo, const std::string& backend) {
  const auto in_type = dtype_of(in.dtype()), out_type = dtype_of(out.dtype());
  if (!in_type || !out_type)
    throw py::value_error(
        "dtype: rfstudio filters uint8, uint16, float16, float32 and float64 "
        "arrays (got " +
        std::string(py::str(in.dtype())) + " into " + std::string(py::str(out.dtype())) + ")");
  if (!(in.flags() & py::array::c_style) || !(out.flags() & py::array::c_style) ||
      !out.writeable() || shape_of(in) != shape_of(out))
    throw py::value_error("array: C-contiguous arrays of one shape, the output writable");
  const rf::ArraySpec spec = spec_of(passes, kind, order, cval, measure, normalized, algo);
  const std::optional<rf::Backend> b = rf::parse_backend(backend);
  if (!b) throw py::value_error("backend: unknown backend '" + backend + "' (auto, cpu, cuda)");
  const std::vector<std::int64_t> shape = shape_of(in);
  const void* src = in.data();
  void* dst = out.mutable_data();
  py::gil_scoped_release release;
  rf::filter_array(spec, shape, src, *in_type, dst, *out_type, *b);
}

// float32 C-contiguous arrays in CUDA device memory, given by address, on `stream`.
void filter_device(std::uintptr_t in, std::uintptr_t out, const std::vector<std::int64_t>& shape,
                   const std::vector<Pass>& passes, const std::string& kind, int order, double cval,
                   bool normalized, const std::string& algo, std::uintptr_t stream) {
  const rf::ArraySpec spec = spec_of(passes, kind, order, cval, "none", normalized, algo);
  py::gil_scoped_release release;
  rf::ArrayFilter filter(spec, shape, rf::Backend::Cuda, rf::MemorySpace::Device);
  filter.run(reinterpret_cast<const float*>(in), reinterpret_cast<float*>(out),
             reinterpret_cast<void*>(stream));
}

}  // namespace

void bind_array_filter(py::module_& m) {
  m.def("filter_array", &filter_host, py::arg("array"), py::arg("out"), py::arg("passes"),
        py::kw_only(), py::arg("kind") = "gaussian", py::arg("order") = 3, py::arg("cval") = 0.0,
        py::arg("measure") = "none", py::arg("normalized") = false, py::arg("algo") = "auto",
        py::arg("backend") = "auto",
        "Filters a C-contiguous numpy array into `out` (same shape; uint8, uint16, float16, "
        "float32 or float64, integers as their values) one axis at a time: passes are (axis, "
        "sigma, derivative order, extension) tuples; measure 'gradient' or 'laplacian' over their "
        "axes.");
  m.def("filter_array_device", &filter_device, py::arg("data"), py::arg("out"), py::arg("shape"),
        py::arg("passes"), py::kw_only(), py::arg("kind") = "gaussian", py::arg("order") = 3,
        py::arg("cval") = 0.0, py::arg("normalized") = false, py::arg("algo") = "auto",
        py::arg("stream") = 0,
        "filter_array on float32 C-contiguous arrays in CUDA device memory, by address, on the "
        "cudaStream_t `stream` (0: the default stream).");
}

}  // namespace rfpy
