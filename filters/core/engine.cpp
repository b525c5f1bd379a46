// Backend selection and the host-image convenience entry point.
#include "filters/core/engine.h"

#include "filters/core/errors.h"

namespace rf {

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
  if (kind == FilterKind::EdgeAware)
    return {Algorithm::Auto, Algorithm::EdgeA, Algorithm::EdgeC, Algorithm::EdgeD,
            Algorithm::EdgeExact};
  std::vector<Algorithm> out = {Algorithm::Auto, Algorithm::RT};
  if (backend != Backend::Cpu) out.push_back(Algorithm::Alg4);
  out.push_back(Algorithm::Alg5);
  out.push_back(Algorithm::Alg6);
  if (kind == FilterKind::Yvrg) {
    out.push_back(Algorithm::OneWay);
    out.push_back(Algorithm::TwoWay);
  }
  return out;
}

void check_algorithm(Backend backend, const FilterSpec& spec) {
  const std::vector<Algorithm> offered = algorithms_for(backend, spec.kind);
  for (Algorithm a : offered)
    if (a == spec.algo) return;
  if ((spec.algo == Algorithm::OneWay || spec.algo == Algorithm::TwoWay) &&
      spec.kind != FilterKind::Yvrg)
    throw InvalidParameter(std::string("algorithm ") + to_string(spec.algo) +
                           " (Lee et al. 2014) needs filter yvrg, not " + to_string(spec.kind));
  std::string names;
  for (Algorithm a : offered) names += std::string(names.empty() ? "" : ", ") + to_string(a);
  throw InvalidParameter(std::string("algorithm '") + to_string(spec.algo) + "' is not offered " +
                         (backend == Backend::Cpu ? "by the CPU backend" : "by the CUDA backend") +
                         " for " + to_string(spec.kind) + " (" + names + ")");
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
