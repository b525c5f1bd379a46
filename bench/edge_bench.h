// Timing the edge-aware filter (edge-aware paper): its algorithms A, C, D and the exact variant on
// the CPU backend and on CUDA, as `rfcli bench --filters edge-aware` and `rfcli edge-study
// --timing` measure them.
#pragma once

#include <vector>

#include "bench/bench.h"
#include "bench/timer.h"
#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf::bench {

// The case: an RGB image filtered with 2 iterations at sigma 50, sigma_r 50/255, kappa 2 (the
// edge-aware paper's example) unless said otherwise.
struct EdgeCase {
  std::vector<double> sigmas{50.0};
  double sigma_r255 = 50.0;  // sigma_r on the 8-bit scale
  double kappa = 2.0;
  int passes = 2;  // the filter's iterations N
};

FilterSpec edge_spec(const EdgeCase& e, double sigma, Algorithm algo);

// `src` (any channel count) tiled with mirrored copies to width x height RGB, so that it keeps
// real edges at any size.
Image mirror_tile(const Image& src, int width, int height);

// The benchmark's image: `photo` mirror-tiled (as the paper measures, on real edges) or, when it
// is null, 64 seeded random rectangles over a gradient with mild noise.
Image edge_image(const Image* photo, int width, int height);

// The CPU backend: a steady clock around cpu::EdgeAwarePlan::run on RGB float (no copies).
Timing time_edge_aware_cpu(const FilterSpec& spec, const Image& rgb, const Repeats& repeats);

// The CUDA backend: `rgb` as RGBA float on the device, its three colours filtered; CUDA events
// around one graph launch of the frame's kernels, as the engine launches them (no upload or
// readback). Throws BackendUnavailable without CUDA.
Timing time_edge_aware_cuda(const FilterSpec& spec, const Image& rgb, const Repeats& repeats);

// Every algorithm of `algos` at every sigma of `e` on every size of `o` (squares, then the HD
// frames when o.include_hd), on the CPU and/or CUDA. The rows say "clamp": the edge-aware filter
// extends the image constantly. `progress` receives every row as it is measured.
std::vector<BenchResult> bench_edge(const BenchOptions& o, const EdgeCase& e, const Image* photo,
                                    const std::vector<Algorithm>& algos, bool cpu, bool cuda,
                                    const Repeats& cpu_repeats, const Repeats& cuda_repeats,
                                    void (*progress)(const BenchResult&) = nullptr);

}  // namespace rf::bench
