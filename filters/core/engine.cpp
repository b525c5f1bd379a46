// Backend selection and the host-image convenience entry point.
#include "filters/core/engine.h"

#include <algorithm>

#include "filters/core/errors.h"
#include "filters/core/filter_table.h"

namespace rf {

std::string method_line(const Engine& engine) {
  const std::string method = engine.method(), algorithm = engine.algorithm();
  if (method.empty() || algorithm.empty() || algorithm == "fir") return method;
  return method + " by " + (algorithm == "lines" ? "lines in shared memory" : algorithm);
}

std::unique_ptr<Engine> make_engine(Backend requested, std::string* note) {
  if (note) note->clear();
  if (requested == Backend::Cpu) return make_cpu_engine();
  std::string why;
  if (requested == Backend::Cuda) {
    if (!cuda_available(&why)) throw BackendUnavailable("CUDA backend unavailable: " + why);
    return make_cuda_engine();
  }
  if (cuda_available(&why)) {
    try {
      return make_cuda_engine();
    } catch (const BackendUnavailable& e) {
      why = e.what();
    }
  }
  if (note) *note = "CUDA unavailable (" + why + "): running on CPU";
  return make_cpu_engine();
}

std::vector<Algorithm> algorithms_for(Backend backend, FilterKind kind) {
  std::vector<Algorithm> out;
  for (const AlgorithmInfo& a : algorithm_table()) {
    const bool runs = backend == Backend::Auto ||
                      std::find(a.backends.begin(), a.backends.end(), backend) != a.backends.end();
    if (runs && std::find(a.kinds.begin(), a.kinds.end(), kind) != a.kinds.end())
      out.push_back(a.algo);
  }
  return out;
}

void check_algorithm(Backend backend, const FilterSpec& spec) {
  const std::vector<Algorithm> offered = algorithms_for(backend, spec.kind);
  if (std::find(offered.begin(), offered.end(), spec.algo) != offered.end()) {
    // Lee et al.'s partitions are planned for one Gaussian on both axes.
    if (spec.sigma_y && (spec.algo == Algorithm::OneWay || spec.algo == Algorithm::TwoWay))
      throw InvalidParameter(std::string("algorithm ") + info(spec.algo).name +
                             " takes one sigma for both axes; alg5, alg6, alg4 or rt take one "
                             "per axis");
    return;
  }
  // An algorithm of other kinds: name the kinds it filters.
  const AlgorithmInfo& a = info(spec.algo);
  if (std::find(a.kinds.begin(), a.kinds.end(), spec.kind) == a.kinds.end()) {
    std::string kinds;
    for (FilterKind k : a.kinds) kinds += std::string(kinds.empty() ? "" : " or ") + to_string(k);
    throw InvalidParameter(std::string("algorithm ") + a.name + " (" + a.description +
                           ") needs filter " + kinds + ", not " + to_string(spec.kind) + " (" +
                           names_of(offered) + ")");
  }
  const std::string by =
      backend == Backend::Auto
          ? std::string("by any backend")
          : std::string("by the ") + (backend == Backend::Cpu ? "CPU" : "CUDA") + " backend";
  throw InvalidParameter(std::string("algorithm '") + a.name + "' is not offered " + by + " for " +
                         to_string(spec.kind) + " (" + names_of(offered) + ")");
}

const char* to_string(PixelFormat f) {
  switch (f) {
    case PixelFormat::R32F:
      return "R32F";
    case PixelFormat::RGBA32F:
      return "RGBA32F";
    case PixelFormat::RGBA8:
      return "RGBA8";
    case PixelFormat::R64F:
      return "R64F";
    case PixelFormat::R16U:
      return "R16U";
    case PixelFormat::R16F:
      return "R16F";
  }
  return "?";
}

void check_format(const FilterSpec& spec, PixelFormat format) {
  if (spec.derivative.any() && (format == PixelFormat::RGBA8 || format == PixelFormat::R16U))
    throw InvalidParameter("derivative " + to_string(spec.derivative) +
                           ": its values are signed; filter into float frames (R32F, RGBA32F, "
                           "R16F), not " +
                           to_string(format) + " ones");
}

Image filter_image(Engine& engine, const FilterSpec& spec, Image in) {
  if (in.width < 1 || in.height < 1 || in.channels < 1)
    throw InvalidParameter("image: " + std::to_string(in.width) + "x" + std::to_string(in.height) +
                           "x" + std::to_string(in.channels) + " is empty");
  if (in.channels > 4)
    throw InvalidParameter("image: " + std::to_string(in.channels) +
                           " channels (1 to 4 are supported)");
  if (in.channels == 1 || in.channels == 4) {
    FrameView v = in.view();
    engine.plan(spec, in.width, in.height, v.format);
    engine.run(v, v);
    return in;
  }
  // Channels are filtered independently, so the padding cannot leak into the others.
  Image work(in.width, in.height, 4);
  const std::size_t pixels = std::size_t(in.width) * in.height;
  for (std::size_t i = 0; i < pixels; ++i)
    for (int c = 0; c < in.channels; ++c) work.pixels[i * 4 + c] = in.pixels[i * in.channels + c];
  FrameView v = work.view();
  engine.plan(spec, in.width, in.height, v.format);
  engine.run(v, v);
  Image out(in.width, in.height, in.channels);
  for (std::size_t i = 0; i < pixels; ++i)
    for (int c = 0; c < in.channels; ++c) out.pixels[i * in.channels + c] = work.pixels[i * 4 + c];
  return out;
}

Image filter_image(const FilterSpec& spec, const Image& in, Backend backend) {
  return filter_image(*make_engine(backend), spec, in);
}

}  // namespace rf
