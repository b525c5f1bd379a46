#include "filters/core/array.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "filters/core/design.h"
#include "filters/core/device_frame.h"
#include "filters/core/errors.h"

namespace rf {
namespace {

// One plan of an engine: a batch of `frames` frames of width x height, one after another; or, on
// the device, the lines of the middle axis of (outer, n, inner) gathered into one frame of n rows
// (`gathered`, device_frame.h), filtered there in one run and scattered back.
struct Step {
  std::unique_ptr<Engine> engine;
  FilterSpec spec;
  int width = 0, height = 0;
  PixelFormat format = PixelFormat::R32F;
  std::int64_t frames = 1;
  std::unique_ptr<cuda::DeviceFrame> gathered;
  std::int64_t outer = 0, inner = 0;
};

// The steps of one partial derivative (or of the filter itself).
using Term = std::vector<Step>;

std::int64_t product(const std::vector<std::int64_t>& shape, int from, int to) {
  std::int64_t p = 1;
  for (int i = from; i < to; ++i) p *= shape[std::size_t(i)];
  return p;
}

int frame_side(std::int64_t n, int axis) {
  if (n > INT_MAX)
    throw InvalidParameter("axis " + std::to_string(axis) + ": " + std::to_string(n) +
                           " samples in one frame of its pass exceed the engines' " +
                           std::to_string(INT_MAX));
  return int(n);
}

// The DC gain of the smoothing along a line (0 after a derivative): what the next pass sees of a
// constant beyond the array.
double gain_of(const FilterSpec& filter, const AxisPass& p, int derivative) {
  if (derivative != 0) return 0.0;
  LineSpec line = line_spec(filter, Axis::X);
  line.sigma = p.sigma;
  line.ext = p.ext;
  return dc_gain(design(line));
}

std::string axis_error(int axis, const std::exception& e) {
  return "axis " + std::to_string(axis) + ": " + e.what();
}

}  // namespace

const char* to_string(DType t) {
  switch (t) {
    case DType::U8:
      return "uint8";
    case DType::U16:
      return "uint16";
    case DType::F16:
      return "float16";
    case DType::F32:
      return "float32";
    case DType::F64:
      return "float64";
  }
  return "?";
}

std::size_t size_of(DType t) {
  switch (t) {
    case DType::U8:
      return 1;
    case DType::U16:
    case DType::F16:
      return 2;
    case DType::F32:
      return 4;
    case DType::F64:
      return 8;
  }
  return 0;
}

struct ArrayFilter::Impl {
  std::vector<std::int64_t> shape;
  MemorySpace space = MemorySpace::Host;  // where the steps run: the array's, or the staging's
  Backend backend = Backend::Cpu;
  // A host array on the CUDA backend: uploaded whole, filtered there, downloaded.
  std::unique_ptr<cuda::DeviceFrame> staging;
  Derivative::Measure measure = Derivative::Measure::Partial;
  std::vector<Term> terms;
  std::vector<float> term_out, sum;       // a measure's term and running sum (host)
  std::vector<double> term_out64, sum64;  // the same for a float64 plan
  std::size_t floats = 0;
  std::string description;

  bool in_double = false;  // R64F steps: float64 filtered in double (the CPU's line filter)

  // The steps of one partial, on engines of `backend`.
  Term plan_term(const ArraySpec& spec, std::vector<AxisPass> passes,
                 const std::vector<int>& derivatives);
  // `in` and `out`: float, or double where in_double.
  void run_term(Term& term, const void* in, void* out, void* stream);
};

Term ArrayFilter::Impl::plan_term(const ArraySpec& spec, std::vector<AxisPass> passes,
                                  const std::vector<int>& derivatives) {
  const int dims = int(shape.size());
  Term term;
  double outside = spec.filter.cval;  // what the next pass sees beyond the array (constant)
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const AxisPass& p = passes[i];
    const int d = derivatives[i];
    const std::int64_t inner = product(shape, p.axis + 1, dims);
    // A step plans its frames as one batch (Engine::plan_batch), kept on the device where the
    // engine runs it whole (alg5, alg6, lines in shared memory) and not a launch per frame;
    // otherwise the columns of a batch are gathered into one wide frame (a thread per column, or a
    // block algorithm, runs them in one launch) and a 2-D step takes its axes one at a time.
    const bool device = space == MemorySpace::Device;
    // Frames of four interleaved channels are float only.
    const auto packs = [&](std::int64_t inner_samples) {
      return inner_samples == 1 || (inner_samples == 4 && !in_double);
    };
    bool gathers = false;  // the columns of a batch into one frame
    bool merges = i + 1 < passes.size() && passes[i + 1].axis == p.axis + 1 &&
                  passes[i + 1].ext == p.ext && packs(product(shape, p.axis + 2, dims));
    for (;;) {
      Step step;
      step.spec = spec.filter;
      step.spec.sigma_y.reset();
      step.spec.derivative = Derivative{};
      step.spec.derivative.normalized = spec.filter.derivative.normalized;
      step.spec.ext = p.ext;
      step.spec.cval = outside;
      // The lines of the step and their derivative orders, for the constant the next step sees.
      std::vector<std::pair<const AxisPass*, int>> lines = {{&p, d}};
      if (merges) {
        // Columns along p.axis, rows along the next: an image (or a batch of them).
        const AxisPass& q = passes[i + 1];
        const std::int64_t channels = product(shape, q.axis + 1, dims);
        step.spec.sigma = q.sigma;
        if (q.sigma != p.sigma) step.spec.sigma_y = p.sigma;
        step.spec.derivative.x = derivatives[i + 1];
        step.spec.derivative.y = d;
        step.width = frame_side(shape[std::size_t(q.axis)], q.axis);
        step.height = frame_side(shape[std::size_t(p.axis)], p.axis);
        step.format = in_double       ? PixelFormat::R64F
                      : channels == 1 ? PixelFormat::R32F
                                      : PixelFormat::RGBA32F;
        step.frames = product(shape, 0, p.axis);
        lines.push_back({&q, derivatives[i + 1]});
      } else if (packs(inner)) {
        // The rows of one frame: the last axis (of pixels of 1 or 4 channels).
        step.spec.sigma = p.sigma;
        step.spec.axes = Axes::X;
        step.spec.derivative.x = d;
        step.width = frame_side(shape[std::size_t(p.axis)], p.axis);
        step.height = frame_side(product(shape, 0, p.axis), p.axis);
        step.format = in_double    ? PixelFormat::R64F
                      : inner == 1 ? PixelFormat::R32F
                                   : PixelFormat::RGBA32F;
        step.frames = 1;
      } else {
        // The columns of `outer` frames inner samples wide (one batch, or on the device gathered
        // into one frame).
        const std::int64_t outer = product(shape, 0, p.axis);
        step.spec.sigma = p.sigma;
        step.spec.axes = Axes::Y;
        step.spec.derivative.y = d;
        step.height = frame_side(shape[std::size_t(p.axis)], p.axis);
        step.format = in_double ? PixelFormat::R64F : PixelFormat::R32F;
        // A batch holds at most INT_MAX rows in all; more are gathered (as wide as it is).
        if (device && outer * step.height > INT_MAX) gathers = true;
        if (gathers) {
          step.width = frame_side(outer * inner, p.axis);
          step.outer = outer;
          step.inner = inner;
          step.gathered = std::make_unique<cuda::DeviceFrame>(
              step.width, step.height, PixelFormat::R32F, MemorySpace::Device);
        } else {
          step.width = frame_side(inner, p.axis);
          step.frames = outer;
        }
      }
      if (step.frames > INT_MAX)
        throw InvalidParameter("axis " + std::to_string(p.axis) + ": " +
                               std::to_string(step.frames) + " frames in one batch exceed " +
                               std::to_string(INT_MAX));
      try {
        step.engine = make_engine(backend);
        step.engine->plan_batch(step.spec, step.width, step.height, int(step.frames), step.format);
      } catch (const InvalidParameter& e) {
        throw InvalidParameter(axis_error(p.axis, e));
      }
      if (device && step.frames > 1 && !step.engine->batches_whole()) {
        // A launch per frame: the axes one at a time instead, or the columns gathered.
        if (merges)
          merges = false;
        else if (step.spec.axes == Axes::Y)
          gathers = true;
        else
          throw std::logic_error("array: a batch of rows is one frame");
        continue;
      }
      // Planned, so valid: what the step makes of the constant beyond the array (the edge-aware
      // filter, built on clamp, has no constant to carry).
      if (spec.filter.kind != FilterKind::EdgeAware)
        for (const auto& [line, order] : lines) outside *= gain_of(spec.filter, *line, order);
      term.push_back(std::move(step));
      break;
    }
    if (merges) ++i;
  }
  return term;
}

void ArrayFilter::Impl::run_term(Term& term, const void* in, void* out, void* stream) {
  for (Step& s : term) {
    if (s.gathered) {
      const FrameView f = s.gathered->view();
      cuda::gather_axis(static_cast<const float*>(in), static_cast<float*>(f.data), f.pitch,
                        s.outer, s.height, s.inner, stream);
      s.engine->run(f, f, stream);
      cuda::scatter_axis(static_cast<const float*>(f.data), f.pitch, static_cast<float*>(out),
                         s.outer, s.height, s.inner, stream);
      in = out;
      continue;
    }
    FrameView src, dst;
    for (FrameView* v : {&src, &dst}) {
      v->width = s.width;
      v->height = s.height;
      v->format = s.format;
      v->pitch = std::size_t(s.width) * bytes_per_pixel(s.format);
      v->space = space;
      v->frames = int(s.frames);  // one after another, as the array holds them
    }
    src.data = const_cast<void*>(in);
    dst.data = out;
    s.engine->run(src, dst, stream);
    in = out;  // the next step filters the result in place
  }
  if (term.empty() && in != out) {
    if (space == MemorySpace::Device)
      cuda::copy_on_device(static_cast<const float*>(in), static_cast<float*>(out), floats, stream);
    else
      std::memmove(out, in, floats * (in_double ? sizeof(double) : sizeof(float)));
  }
}

ArrayFilter::ArrayFilter(const ArraySpec& spec, std::vector<std::int64_t> shape, Backend backend,
                         MemorySpace space, DType precision)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  if (precision != DType::F32 && precision != DType::F64)
    throw InvalidParameter(std::string("array: filtered in float32 or float64, not ") +
                           to_string(precision));
  m.in_double = precision == DType::F64;
  if (m.in_double && (space != MemorySpace::Host || backend == Backend::Cuda))
    throw InvalidParameter("float64: arrays are filtered in double on the CPU backend");
  if (m.in_double) backend = Backend::Cpu;
  const int dims = int(shape.size());
  if (dims < 1) throw InvalidParameter("array: no axes");
  for (int a = 0; a < dims; ++a)
    if (shape[std::size_t(a)] < 1)
      throw InvalidParameter("array: axis " + std::to_string(a) + " is empty (shape " + [&] {
        std::string s;
        for (auto n : shape) s += (s.empty() ? "" : "x") + std::to_string(n);
        return s;
      }() + ")");
  m.shape = std::move(shape);
  m.space = space;
  m.floats = std::size_t(product(m.shape, 0, dims));
  if (space == MemorySpace::CudaSurface)
    throw InvalidParameter("array: host or device memory, not a surface");
  m.backend =
      backend == Backend::Auto ? (cuda_available() ? Backend::Cuda : Backend::Cpu) : backend;
  if (space == MemorySpace::Device && m.backend != Backend::Cuda)
    throw InvalidParameter("array: in device memory, filtered by the CUDA backend only");
  if (space == MemorySpace::Host && m.backend == Backend::Cuda &&
      m.floats <= std::size_t(INT_MAX)) {
    m.staging = std::make_unique<cuda::DeviceFrame>(int(m.floats), 1, PixelFormat::R32F,
                                                    MemorySpace::Device);
    m.space = MemorySpace::Device;
  }

  std::vector<AxisPass> passes = spec.passes;
  std::sort(passes.begin(), passes.end(),
            [](const AxisPass& a, const AxisPass& b) { return a.axis < b.axis; });
  for (std::size_t i = 0; i < passes.size(); ++i) {
    if (passes[i].axis < 0 || passes[i].axis >= dims)
      throw InvalidParameter("axes: axis " + std::to_string(passes[i].axis) +
                             " is outside an array of " + std::to_string(dims) +
                             (dims == 1 ? " axis" : " axes"));
    if (i > 0 && passes[i].axis == passes[i - 1].axis)
      throw InvalidParameter("axes: axis " + std::to_string(passes[i].axis) + " is given twice");
    if (passes[i].derivative < 0 || passes[i].derivative > 2)
      throw InvalidParameter("derivative order must be 0, 1 or 2 along each axis (got " +
                             std::to_string(passes[i].derivative) + " along axis " +
                             std::to_string(passes[i].axis) + ")");
  }
  const Derivative::Measure measure = spec.filter.derivative.measure;
  m.measure = measure;
  std::vector<int> orders;
  for (const AxisPass& p : passes) orders.push_back(p.derivative);
  if (measure == Derivative::Measure::Partial) {
    m.terms.push_back(m.plan_term(spec, passes, orders));
  } else {
    const char* name =
        measure == Derivative::Measure::GradientMagnitude ? "gradient magnitude" : "Laplacian";
    if (passes.empty())
      throw InvalidParameter(std::string("derivative: the ") + name + " needs an axis to filter");
    if (std::any_of(orders.begin(), orders.end(), [](int o) { return o != 0; }))
      throw InvalidParameter(std::string("derivative: the ") + name +
                             " takes no partial derivative orders besides");
    if (space != MemorySpace::Host)
      throw InvalidParameter(std::string("derivative: the ") + name +
                             " of an array in device memory is made of its partials by the "
                             "caller");
    const int order = measure == Derivative::Measure::GradientMagnitude ? 1 : 2;
    for (std::size_t t = 0; t < passes.size(); ++t) {
      std::vector<int> o(passes.size(), 0);
      o[t] = order;
      m.terms.push_back(m.plan_term(spec, passes, o));
    }
    if (m.in_double) {
      m.term_out64.resize(m.floats);
      m.sum64.resize(m.floats);
    } else {
      m.term_out.resize(m.floats);
      m.sum.resize(m.floats);
    }
  }
  for (const Term& t : m.terms)
    if (!t.empty()) {
      m.description = t.front().engine->description();
      break;
    }
}

ArrayFilter::~ArrayFilter() = default;
ArrayFilter::ArrayFilter(ArrayFilter&&) noexcept = default;
ArrayFilter& ArrayFilter::operator=(ArrayFilter&&) noexcept = default;

const std::vector<std::int64_t>& ArrayFilter::shape() const {
  return impl_->shape;
}

std::string ArrayFilter::description() const {
  return impl_->description;
}

std::string ArrayFilter::algorithms() const {
  std::string out;
  for (const Step& s : impl_->terms.front())
    out += (out.empty() ? "" : "+") + s.engine->algorithm();
  return out;
}

void ArrayFilter::run(const double* in, double* out) {
  Impl& m = *impl_;
  if (!m.in_double) throw std::logic_error("ArrayFilter: run(double) of a float32 plan");
  if (m.measure == Derivative::Measure::Partial) {
    m.run_term(m.terms.front(), in, out, nullptr);
    return;
  }
  const bool squares = m.measure == Derivative::Measure::GradientMagnitude;
  std::fill(m.sum64.begin(), m.sum64.end(), 0.0);
  for (Term& t : m.terms) {
    m.run_term(t, in, m.term_out64.data(), nullptr);
    for (std::size_t i = 0; i < m.floats; ++i)
      m.sum64[i] += squares ? m.term_out64[i] * m.term_out64[i] : m.term_out64[i];
  }
  for (std::size_t i = 0; i < m.floats; ++i) out[i] = squares ? std::sqrt(m.sum64[i]) : m.sum64[i];
}

void ArrayFilter::run(const float* in, float* out, void* stream) {
  Impl& m = *impl_;
  if (m.in_double) throw std::logic_error("ArrayFilter: run(float) of a float64 plan");
  // A host array on the device: one upload, the passes there, one download (per term).
  auto staged = [&](Term& t, float* result) {
    auto* data = static_cast<float*>(m.staging->view().data);
    m.staging->upload(in);
    m.run_term(t, data, data, stream);
    m.staging->download(result);
  };
  if (m.measure == Derivative::Measure::Partial) {
    if (m.staging)
      staged(m.terms.front(), out);
    else
      m.run_term(m.terms.front(), in, out, stream);
    return;
  }
  // Each term from `in` (which may be `out`), summed apart, then written.
  const bool squares = m.measure == Derivative::Measure::GradientMagnitude;
  std::fill(m.sum.begin(), m.sum.end(), 0.0f);
  for (Term& t : m.terms) {
    if (m.staging)
      staged(t, m.term_out.data());
    else
      m.run_term(t, in, m.term_out.data(), stream);
    for (std::size_t i = 0; i < m.floats; ++i)
      m.sum[i] += squares ? m.term_out[i] * m.term_out[i] : m.term_out[i];
  }
  for (std::size_t i = 0; i < m.floats; ++i) out[i] = squares ? std::sqrt(m.sum[i]) : m.sum[i];
}

namespace {

// An integer array's value back: the nearest integer, ties to even, clamped to [0, top], NaN 0.
template <class T>
T saturate(float v, float top) {
  v = v > 0.0f ? v : 0.0f;
  v = v < top ? v : top;
  return T(std::lrintf(v));
}

void to_float(const void* in, DType t, float* out, std::size_t n) {
  switch (t) {
    case DType::U8:
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<const std::uint8_t*>(in)[i];
      break;
    case DType::U16:
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<const std::uint16_t*>(in)[i];
      break;
    case DType::F16:
      for (std::size_t i = 0; i < n; ++i)
        out[i] = from_half(static_cast<const std::uint16_t*>(in)[i]);
      break;
    case DType::F32:
      if (in != out) std::memmove(out, in, n * sizeof(float));
      break;
    case DType::F64:
      for (std::size_t i = 0; i < n; ++i) out[i] = float(static_cast<const double*>(in)[i]);
      break;
  }
}

void from_float(const float* in, void* out, DType t, std::size_t n) {
  switch (t) {
    case DType::U8:
      for (std::size_t i = 0; i < n; ++i)
        static_cast<std::uint8_t*>(out)[i] = saturate<std::uint8_t>(in[i], 255.0f);
      break;
    case DType::U16:
      for (std::size_t i = 0; i < n; ++i)
        static_cast<std::uint16_t*>(out)[i] = saturate<std::uint16_t>(in[i], 65535.0f);
      break;
    case DType::F16:
      for (std::size_t i = 0; i < n; ++i) static_cast<std::uint16_t*>(out)[i] = to_half(in[i]);
      break;
    case DType::F32:
      if (in != out) std::memmove(out, in, n * sizeof(float));
      break;
    case DType::F64:
      for (std::size_t i = 0; i < n; ++i) static_cast<double*>(out)[i] = in[i];
      break;
  }
}

}  // namespace

bool filters_in_double(const ArraySpec& spec, Backend backend) {
  const FilterSpec& f = spec.filter;
  const bool line_filter =
      (f.algo == Algorithm::Auto || f.algo == Algorithm::RT) && f.kind != FilterKind::EdgeAware;
  return backend != Backend::Cuda && line_filter;
}

void filter_array(const ArraySpec& spec, const std::vector<std::int64_t>& shape, const void* in,
                  DType in_type, void* out, DType out_type, Backend backend) {
  const std::size_t n = std::size_t(product(shape, 0, int(shape.size())));
  if (in_type == DType::F64 && out_type == DType::F64 && filters_in_double(spec, backend)) {
    ArrayFilter filter(spec, shape, Backend::Cpu, MemorySpace::Host, DType::F64);
    filter.run(static_cast<const double*>(in), static_cast<double*>(out));
    return;
  }
  ArrayFilter filter(spec, shape, backend);
  if (in_type == DType::F32 && out_type == DType::F32) {
    filter.run(static_cast<const float*>(in), static_cast<float*>(out));
    return;
  }
  std::vector<float> work(n);
  to_float(in, in_type, work.data(), n);
  filter.run(work.data(), work.data());
  from_float(work.data(), out, out_type, n);
}

}  // namespace rf
