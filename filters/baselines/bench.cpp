// Benchmark helpers shared by the CUDA protocol and rfcli (built with and without CUDA).
#include "filters/baselines/bench.h"

#include <algorithm>

#include "filters/core/engine.h"

namespace rf {

bool uses_sigma(FilterKind kind) {
  return kind == FilterKind::Gaussian || kind == FilterKind::Deriche || kind == FilterKind::Yvrg ||
         kind == FilterKind::EdgeAware;
}

std::vector<Algorithm> bench_algorithms(const BenchOptions& options, FilterKind kind) {
  const std::vector<Algorithm> offered = algorithms_for(Backend::Cuda, kind);
  std::vector<Algorithm> out;
  if (options.algos.empty()) {
    for (Algorithm a : offered)
      if (a != Algorithm::Auto) out.push_back(a);
    return out;
  }
  for (Algorithm a : options.algos)
    if (std::find(offered.begin(), offered.end(), a) != offered.end()) out.push_back(a);
  return out;
}

}  // namespace rf
