// The Python module rfstudio (its compiled half, rfstudio._rfstudio): the library's Engine on
// numpy arrays, and on arrays in GPU memory that offer __cuda_array_interface__ or __dlpack__.
// Parameters are checked by rf::parse_spec, the code rfcli uses, so a mistake reads the same in
// both; InvalidParameter (a std::invalid_argument) arrives in Python as ValueError.
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <rf/rf.h>

#include "array_filter.h"
#include "array_view.h"
#include "device_array.h"

namespace rfpy {
namespace {

// sigma: one for both axes, or (sigma_y, sigma_x), one per array axis, rows first (scipy's order).
using Sigma = std::variant<double, std::array<double, 2>>;
constexpr const char* kSigmaPair =
    "; a pair (sigma_y, sigma_x) gives one per array axis, rows first, as scipy.ndimage takes it";

rf::FilterArgs args_of(const std::string& kind, const Sigma& sigma, std::optional<int> order,
                       const std::optional<std::string>& ext, std::optional<double> cval,
                       const std::string& derivative, bool normalized, const std::string& algo,
                       double sigma_r, double kappa, int iterations, double pole,
                       const std::string& gaussian_method, const std::string& backend) {
  rf::FilterArgs a;
  a.filter = kind;
  if (const auto* pair = std::get_if<std::array<double, 2>>(&sigma)) {
    a.sigma = (*pair)[1];
    a.sigma_y = (*pair)[0];
  } else {
    a.sigma = std::get<double>(sigma);
  }
  a.order = order;
  a.ext = ext;
  a.cval = cval;
  a.derivative = derivative;
  a.normalized = normalized;
  a.algo = algo;
  a.sigma_r = sigma_r;
  a.kappa = kappa;
  a.iterations = iterations;
  a.pole = pole;
  a.gaussian_method = gaussian_method;
  a.backend = backend;
  return a;
}

// The keyword arguments every filtering call shares, in the order of args_of(), with
// rf::FilterArgs' defaults (those of rfcli).
auto filter_kwargs() {
  const rf::FilterArgs d;
  return std::make_tuple(py::arg("sigma") = d.sigma, py::arg("order") = py::none(),
                         py::arg("ext") = py::none(), py::arg("cval") = py::none(),
                         py::arg("derivative") = d.derivative, py::arg("normalized") = d.normalized,
                         py::arg("algo") = d.algo, py::arg("sigma_r") = d.sigma_r,
                         py::arg("kappa") = d.kappa, py::arg("iterations") = d.iterations,
                         py::arg("pole") = d.pole, py::arg("gaussian_method") = d.gaussian_method);
}

// A packed float image of the array's pixels (integers read on [0, 1]), for the paths that
// convert.
rf::Image to_image(const ArrayView& v) {
  rf::Image img(v.width, v.height, v.channels);
  const char* base = static_cast<const char*>(v.data);
  float* dst = img.pixels.data();
  for (int y = 0; y < v.height; ++y)
    for (int x = 0; x < v.width; ++x)
      for (int c = 0; c < v.channels; ++c) {
        const char* p = base + y * v.row_stride + x * v.pixel_stride + c * v.channel_stride;
        *dst++ = decode(v.dtype, p);
      }
  return img;
}

void from_image(const rf::Image& img, const ArrayView& v) {
  char* base = static_cast<char*>(v.data);
  const float* src = img.pixels.data();
  for (int y = 0; y < v.height; ++y)
    for (int x = 0; x < v.width; ++x)
      for (int c = 0; c < v.channels; ++c, ++src) {
        char* p = base + y * v.row_stride + x * v.pixel_stride + c * v.channel_stride;
        encode(v.dtype, *src, p);
      }
}

// The bytes an array's pixels span, for telling overlapping arrays apart.
std::pair<std::uintptr_t, std::uintptr_t> extent(const ArrayView& v) {
  std::ptrdiff_t lo = 0, hi = 0;
  for (std::ptrdiff_t step : {v.row_stride * (v.height - 1), v.pixel_stride * (v.width - 1),
                              v.channel_stride * (v.channels - 1)})
    (step < 0 ? lo : hi) += step;
  const auto p = reinterpret_cast<std::uintptr_t>(v.data);
  return {p + lo, p + hi + item_size(v.dtype)};
}

// `out` must be a writable array of the input's shape and dtype, in the same memory space, and
// either the input itself or apart from it.
ArrayView check_out(py::handle out, const ArrayView& in) {
  ArrayView o = view_of(out);
  if (o.height != in.height || o.width != in.width || o.channels != in.channels ||
      o.channel_axis != in.channel_axis || o.dtype != in.dtype || o.on_device != in.on_device)
    throw py::value_error("out: " + o.describe() + " differs from the array, " + in.describe());
  if (!o.writable) throw py::value_error("out: the array is read-only");
  const bool same = o.data == in.data && o.row_stride == in.row_stride &&
                    o.pixel_stride == in.pixel_stride && o.channel_stride == in.channel_stride;
  const auto a = extent(in), b = extent(o);
  if (!same && a.first < b.second && b.first < a.second)
    throw py::value_error("out: overlaps the array without being it");
  return o;
}

const char* kEngineDoc = R"(A filter planned once and run on many frames.

Engine(kind='gaussian', *, sigma=4.0, order=None, ext=None, cval=None,
       derivative='none', normalized=False, algo='auto', sigma_r=0.2, kappa=2.0, iterations=2,
       pole=0.5, gaussian_method='recursive', backend='auto', timing=False)

The parameters are those of rfstudio.filter(). Designing the filter and precomputing its
boundary matrices happen on the first frame of a size and format; later frames of the same size
reuse them and allocate nothing. backend='auto' runs on CUDA when a device is present and on the
CPU otherwise (the attribute `note` says why). With timing=True, `timings` lists the stages of
the last run in milliseconds. One run at a time: calls from several threads take turns.)";

class PyEngine {
 public:
  PyEngine(const rf::FilterArgs& args, bool timing) : spec_(rf::parse_spec(args)) {
    engine_ = rf::make_engine(spec_.backend, &note_);
    engine_->set_timing(timing);
  }

  py::object run(py::handle array, py::handle out) {
    const ArrayView in = view_of(array);
    if (spec_.derivative.any() && (in.dtype == Dtype::U8 || in.dtype == Dtype::U16))
      throw py::value_error("array: " + in.describe() + ": a derivative's values are signed; " +
                            "filter float32 or float16 arrays (" + dtype_name(in.dtype) +
                            " would clamp them)");
    return in.on_device ? run_device(in, out) : run_host(in, out);
  }

  rf::Backend backend() const { return engine_->backend(); }
  std::string description() const { return engine_->description(); }
  // The engine plans on the first frame: before it, the method is not yet chosen.
  std::string method() {
    std::lock_guard<std::mutex> lock(mutex_);
    return engine_->method();
  }
  std::string algorithm() {
    std::lock_guard<std::mutex> lock(mutex_);
    return engine_->algorithm();
  }
  const std::string& note() const { return note_; }
  std::string spec() const { return rf::describe(spec_); }

  std::vector<std::pair<std::string, double>> timings() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::pair<std::string, double>> out;
    for (const rf::StageTime& t : engine_->timings()) out.emplace_back(t.stage, t.ms);
    return out;
  }

 private:
  py::object run_host(const ArrayView& in, py::handle out) {
    py::object result = py::reinterpret_borrow<py::object>(out);
    ArrayView dst;
    if (out.is_none()) {
      std::vector<py::ssize_t> shape = {in.height, in.width};
      if (in.channel_axis) shape.push_back(in.channels);
      result = new_numpy(in.dtype, shape);
      dst = view_of(result);
    } else {
      dst = check_out(out, in);
    }
    rf::PixelFormat format;
    const bool direct = in.engine_format(&format) && dst.engine_format(&format);
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      if (direct) {
        engine_->plan(spec_, in.width, in.height, format);
        engine_->run(in.frame(), dst.frame());
      } else {
        from_image(rf::filter_image(*engine_, spec_, to_image(in)), dst);
      }
      if (engine_->backend() == rf::Backend::Cuda) rf::cuda::synchronize();
    }
    return result;
  }

  // In GPU memory the array is filtered where it is, into a new DeviceArray or into `out`.
  py::object run_device(const ArrayView& in, py::handle out) {
    if (engine_->backend() != rf::Backend::Cuda)
      throw py::value_error("array: " + in.describe() + " needs the CUDA backend, not " +
                            rf::to_string(engine_->backend()));
    rf::PixelFormat format;
    if (!in.engine_format(&format))
      throw py::value_error(
          "array: " + in.describe() +
          " is filtered on the GPU as H x W float32, float16 or uint16, H x W x 4 float32 or "
          "H x W x 4 uint8 with the channels of a pixel packed and rows aligned to a pixel (16 "
          "bytes for float32 x 4); copy it to the host or to such a layout");
    if (in.device != rf::cuda::current_device())
      throw py::value_error("array: on CUDA device " + std::to_string(in.device) +
                            ", and rfstudio runs on device " +
                            std::to_string(rf::cuda::current_device()));
    py::object result = py::reinterpret_borrow<py::object>(out);
    ArrayView dst;
    if (out.is_none()) {
      DeviceArray d(in.height, in.width, in.channels, in.channel_axis, in.dtype);
      dst = d.view();
      result = py::cast(std::move(d));
    } else {
      dst = check_out(out, in);
      rf::PixelFormat out_format;
      if (!dst.engine_format(&out_format) || dst.device != in.device)
        throw py::value_error("out: " + dst.describe() +
                              " has another layout or device than the array");
    }
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      engine_->plan(spec_, in.width, in.height, format);
      engine_->run(in.frame(), dst.frame());
      rf::cuda::synchronize();
    }
    return result;
  }

  rf::FilterSpec spec_;
  std::unique_ptr<rf::Engine> engine_;
  std::string note_;
  std::mutex mutex_;
};

// "name: text" wrapped at 96 columns, its continuation lines indented, for the docstrings.
std::string doc_item(const std::string& name, const std::string& text) {
  constexpr std::size_t kWidth = 96;
  std::string out, line = name + ":";
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (line.size() + 1 + word.size() > kWidth) {
      out += line + "\n";
      line = "   ";
    }
    line += " " + word;
    start = end + 1;
  }
  return out + line + "\n";
}

// filter()'s docstring: the parameters as rfcli's --help describes them, from the filter table.
const char* filter_doc() {
  static const std::string doc = [] {
    const rf::OptionHelp& h = rf::option_help();
    return std::string(R"(Filters an image and returns the result as a new array.

filter(array, kind='gaussian', *, sigma=4.0, order=None, ext=None, cval=None,
       derivative='none', normalized=False, algo='auto', sigma_r=0.2, kappa=2.0, iterations=2,
       pole=0.5, gaussian_method='recursive', backend='auto', out=None)

array: H x W or H x W x C (C = 1 to 4) of float32, float16, uint8 or uint16: a numpy array,
    anything numpy reads without a copy (PIL images, memoryviews), or an object with
    __dlpack__. uint8 and uint16 are filtered on [0, 1] and rounded back. The result has the
    same shape and dtype.
    In GPU memory (__cuda_array_interface__, or __dlpack__ on a CUDA device: CuPy, PyTorch,
    Numba, JAX) the array is filtered where it is, without a copy, by the CUDA backend, and the
    result is a new rfstudio.DeviceArray (or `out`); there the layout must be H x W float32,
    float16 or uint16, H x W x 4 float32 or H x W x 4 uint8.
)") + doc_item("kind", h.filter) +
           doc_item("sigma", h.sigma.substr(0, h.sigma.find(';')) + kSigmaPair) +
           doc_item("order", h.order + "; None: the kind's default") +
           doc_item("ext", h.ext + "; None: the kind's default") +
           doc_item("cval", h.cval + "; None: 0") + doc_item("derivative", h.derivative) +
           doc_item("normalized",
                    "scale-normalised derivatives: each partial times "
                    "sigma^order along its axis") +
           doc_item("algo", h.algo) + doc_item("sigma_r", h.sigma_r) + doc_item("kappa", h.kappa) +
           doc_item("iterations", h.iterations) + doc_item("pole", h.pole) +
           doc_item("gaussian_method", h.gaussian_method) + doc_item("backend", h.backend) +
           R"(out: an array of the same shape, dtype and memory to write into (the input itself filters in
    place); returned.

Raises ValueError naming the parameter, with the message rfcli prints, and
rfstudio.BackendUnavailable for backend='cuda' without a CUDA device. The GIL is released while
the filter runs.)";
  }();
  return doc.c_str();
}

// The names of a table, as the tuple of a module attribute.
template <class Row>
py::tuple names_of(const std::vector<Row>& table) {
  py::list names;
  for (const Row& row : table) names.append(row.name);
  return py::tuple(names);
}

const char* kTruthDoc = R"(The ground truth of a filter, computed in double on the CPU.

truth(array, kind='gaussian', *, sigma=4.0, order=None, ext=None, cval=None,
      derivative='none', normalized=False, algo='auto', sigma_r=0.2, kappa=2.0, iterations=2,
      pole=0.5, gaussian_method='recursive')

What `rfcli truth` computes: the FIR Gaussian truncated at >= 6 sigma with the chosen extension
for the Gaussian kinds, the sequential recursion over a padding long enough for the impulse
response to vanish for the others, Algorithm A in double for edge-aware. The array is read as by
filter() (host memory only); the result is float32 of the same shape, uint8 and uint16 input
read on [0, 1].)";

const char* kCoeffsDoc =
    R"(The recursive coefficients of a design, as `rfcli coeffs --json` prints them.

coeffs(kind='gaussian', *, sigma=4.0, order=None, pole=0.5) -> {'b0', 'a', 'causal_only'}

causal y_i = b0 x_i - sum_k a_k y_{i-k}, anticausal z_i = b0 y_i - sum_k a_k z_{i+k}, applied to
columns (down, up) then rows (right, left); causal_only filters (sat) skip the anticausal pass.)";

const char* kLineFilterDoc =
    R"(What a pass along one line runs for a Gaussian derivative of `derivative` (0, 1 or 2).

line_filter(sigma, *, order, derivative=0)
    -> {'b0', 'a', 'difference', 'dc_gain', 'poles', 'pair_weights'}

The Gaussian design of `order` smoothing the line for the derivative (sigma^2 minus the variance
of the difference that follows), the weights of samples i-1, i, i+1 in that difference at i
([0, 1, 0] for none), and the pass's gain at DC (0 after a derivative). The smoothing pair's
impulse response as geometric sequences: h(d) = sum_l pair_weights[l] poles[l]^|d| for every d
(complex, conjugates included; rf::pair_modes). A ValueError names a sigma the design of that
order does not take.)";

// rfstudio.filter(): a PyEngine made for one call.
void bind_filter(py::module_& m) {
  const rf::FilterArgs d;
  std::apply(
      [&](auto... kw) {
        m.def(
            "filter",
            [](py::handle array, const std::string& kind, const Sigma& sigma,
               std::optional<int> order, const std::optional<std::string>& ext,
               std::optional<double> cval, const std::string& derivative, bool normalized,
               const std::string& algo, double sigma_r, double kappa, int iterations, double pole,
               const std::string& gaussian_method, const std::string& backend, py::handle out) {
              const rf::FilterArgs a =
                  args_of(kind, sigma, order, ext, cval, derivative, normalized, algo, sigma_r,
                          kappa, iterations, pole, gaussian_method, backend);
              return PyEngine(a, false).run(array, out);
            },
            filter_doc(), py::arg("array"), py::arg("kind") = d.filter, py::kw_only(), kw...,
            py::arg("backend") = d.backend, py::arg("out") = py::none());
      },
      filter_kwargs());
}

py::array_t<float> truth(py::handle array, const rf::FilterArgs& args) {
  const rf::FilterSpec spec = rf::parse_spec(args);
  const ArrayView in = view_of(array);
  if (in.on_device)
    throw py::value_error("array: " + in.describe() + ": the ground truth is computed on the host");
  std::vector<py::ssize_t> shape = {in.height, in.width};
  if (in.channel_axis) shape.push_back(in.channels);
  py::array_t<float> result(shape);
  ArrayView dst = view_of(result);
  {
    py::gil_scoped_release release;
    from_image(rf::ground_truth(spec, to_image(in)), dst);
  }
  return result;
}

// rfstudio.truth(): rfcli truth on an array.
void bind_truth(py::module_& m) {
  const rf::FilterArgs d;
  std::apply(
      [&](auto... kw) {
        m.def(
            "truth",
            [](py::handle array, const std::string& kind, const Sigma& sigma,
               std::optional<int> order, const std::optional<std::string>& ext,
               std::optional<double> cval, const std::string& derivative, bool normalized,
               const std::string& algo, double sigma_r, double kappa, int iterations, double pole,
               const std::string& gaussian_method) {
              return truth(array,
                           args_of(kind, sigma, order, ext, cval, derivative, normalized, algo,
                                   sigma_r, kappa, iterations, pole, gaussian_method, "auto"));
            },
            kTruthDoc, py::arg("array"), py::arg("kind") = d.filter, py::kw_only(), kw...);
      },
      filter_kwargs());
}

// rfstudio.Engine: planned once, run per frame.
void bind_engine(py::module_& m) {
  const rf::FilterArgs d;
  std::apply(
      [&](auto... kw) {
        py::class_<PyEngine>(m, "Engine", kEngineDoc)
            .def(py::init([](const std::string& kind, const Sigma& sigma, std::optional<int> order,
                             const std::optional<std::string>& ext, std::optional<double> cval,
                             const std::string& derivative, bool normalized,
                             const std::string& algo, double sigma_r, double kappa, int iterations,
                             double pole, const std::string& gaussian_method,
                             const std::string& backend, bool timing) {
                   return std::make_unique<PyEngine>(
                       args_of(kind, sigma, order, ext, cval, derivative, normalized, algo, sigma_r,
                               kappa, iterations, pole, gaussian_method, backend),
                       timing);
                 }),
                 py::arg("kind") = d.filter, py::kw_only(), kw..., py::arg("backend") = d.backend,
                 py::arg("timing") = false)
            .def("run", &PyEngine::run, py::arg("array"), py::kw_only(),
                 py::arg("out") = py::none(),
                 "Filters one frame as rfstudio.filter() does, with this engine's parameters.")
            .def_property_readonly(
                "backend", [](const PyEngine& e) { return rf::to_string(e.backend()); },
                "'cpu' or 'cuda': the backend that runs.")
            .def_property_readonly("description", &PyEngine::description,
                                   "The backend for people: 'CPU, OpenMP 2 threads', ...")
            .def_property_readonly("method", &PyEngine::method,
                                   "What the last frame was filtered with: 'recursive order 3', "
                                   "'FIR radius 9' (gaussian_method='auto' resolved); '' before "
                                   "the first frame.")
            .def_property_readonly("algorithm", &PyEngine::algorithm,
                                   "What the last frame's method ran as, algo='auto' resolved: "
                                   "'alg5', 'rt', 'lines' (CUDA: lines held whole in shared "
                                   "memory), 'fir'; '' before the first frame.")
            .def_property_readonly("note", &PyEngine::note,
                                   "Why backend='auto' runs on the CPU, or ''.")
            .def_property_readonly("spec", &PyEngine::spec, "The filter in one line.")
            .def_property_readonly("timings", &PyEngine::timings,
                                   "[(stage, ms), ...] of the last run, with timing=True.")
            .def("__repr__", [](const PyEngine& e) {
              return "rfstudio.Engine(" + e.spec() + " on " + e.description() + ")";
            });
      },
      filter_kwargs());
}

// rfstudio.coeffs(): rfcli coeffs --json.
void bind_coeffs(py::module_& m) {
  const rf::FilterArgs d;
  m.def(
      "coeffs",
      [](const std::string& kind, double sigma, std::optional<int> order, double pole) {
        rf::FilterArgs a;
        a.filter = kind;
        a.sigma = sigma;
        a.order = order;
        a.pole = pole;
        const rf::Recursive f = rf::design(rf::parse_spec(a));
        py::dict out;
        out["b0"] = f.b0;
        out["a"] = f.a;
        out["causal_only"] = f.causal_only;
        return out;
      },
      kCoeffsDoc, py::arg("kind") = d.filter, py::kw_only(), py::arg("sigma") = d.sigma,
      py::arg("order") = py::none(), py::arg("pole") = d.pole);
  // The pass along one line of rfstudio.ndimage and rfstudio.dask.
  m.def(
      "line_filter",
      [](double sigma, int order, int derivative) {
        rf::LineSpec line;
        line.kind = rf::FilterKind::Gaussian;
        line.sigma = sigma;
        line.order = order;
        line.derivative = derivative;
        const rf::Recursive f = rf::design(line);
        const std::array<double, 3> w = rf::difference_weights(derivative);
        py::dict out;
        out["b0"] = f.b0;
        out["a"] = f.a;
        out["difference"] = std::vector<double>(w.begin(), w.end());
        out["dc_gain"] = derivative == 0 ? rf::dc_gain(f) : 0.0;
        const rf::PairModes modes = rf::pair_modes(f);
        out["poles"] = modes.poles;
        out["pair_weights"] = modes.weights;
        return out;
      },
      kLineFilterDoc, py::arg("sigma"), py::kw_only(), py::arg("order"), py::arg("derivative") = 0);
}

// The names each parameter takes, from the filter table, and whether CUDA can run.
void bind_names(py::module_& m) {
  m.attr("kinds") = names_of(rf::kind_table());
  m.attr("extensions") = names_of(rf::extension_table());
  m.attr("algorithms") = names_of(rf::algorithm_table());
  m.attr("backends") = names_of(rf::backend_table());
  m.attr("gaussian_methods") = names_of(rf::method_table());

  m.def(
      "cuda_available", [] { return rf::cuda_available(); },
      "True when the CUDA backend can run here; Engine(backend='auto').note says why not.");
}

void bind_device_array(py::module_& m) {
  py::class_<DeviceArray>(m, "DeviceArray", R"(An image in CUDA device memory.

DeviceArray(array) copies a host array of H x W float32, float16 or uint16, H x W x 4 float32 or
H x W x 4 uint8 to the current device; rfstudio.filter() returns one for an array in GPU memory. Other libraries
take it without a copy: cupy.asarray(d) and numba.cuda.as_cuda_array(d) through
__cuda_array_interface__, torch.from_dlpack(d) through __dlpack__. Its contents are complete
when the rfstudio call that wrote them returns.)")
      .def(py::init(&DeviceArray::upload), py::arg("array"))
      .def("numpy", &DeviceArray::download, "A copy on the host, as a numpy array.")
      .def_property_readonly("shape", &DeviceArray::shape)
      .def_property_readonly("dtype", &DeviceArray::dtype)
      .def_property_readonly("__cuda_array_interface__", &DeviceArray::cuda_array_interface)
      .def("__dlpack__", &DeviceArray::dlpack, py::kw_only(), py::arg("stream") = py::none())
      .def("__dlpack_device__", &DeviceArray::dlpack_device);
}

}  // namespace
}  // namespace rfpy

PYBIND11_MODULE(_rfstudio, m) {
  using namespace rfpy;
  m.doc() = "Exact recursive image filtering on the CPU and CUDA (Recursive Filter Studio)";
  m.attr("__version__") = RF_VERSION;
  py::register_exception<rf::BackendUnavailable>(m, "BackendUnavailable", PyExc_RuntimeError);
  bind_filter(m);
  bind_truth(m);
  bind_engine(m);
  bind_coeffs(m);
  bind_names(m);
  bind_device_array(m);
  bind_array_filter(m);
}
