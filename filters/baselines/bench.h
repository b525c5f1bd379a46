// Benchmark records shared by `rfcli bench` and the backends that measure themselves.
#pragma once

#include <string>
#include <vector>

#include "filters/core/spec.h"

namespace rf {

struct BenchResult {
  std::string impl;    // "rfstudio", "rt", "fir", "cufft", "cub-sat", "copy", "cpu", ...
  std::string filter;  // "gaussian", "bspline3", ..., "sat", "copy"
  int order = 0;
  std::string ext;  // "mirror", ... ("-" where it does not apply)
  int width = 0;
  int height = 0;
  int channels = 1;
  std::string format;  // "f32", "rgba8", "f32x4"
  double ms = 0.0;     // median over the timed runs, the filter only (no upload, no readback)
  double gips = 0.0;   // 2^30 pixels per second
  double gbps = 0.0;   // for the copy floor: bytes read + written per second / 1e9
};

struct BenchOptions {
  std::vector<int> sizes;       // square sizes; empty: the protocol's default list
  bool include_hd = true;       // 1920x1080 and 3840x2160 as well
  std::vector<int> orders;      // empty: 1..5
  std::vector<Extension> exts;  // empty: all
  std::vector<int> channels;    // empty: {1, 4}
  int iterations = 100;         // timed runs per case (median)
  int warmup = 10;
  double sigma = 4.0;
  std::vector<FilterKind> kinds;  // empty: Gaussian (and Sat)
  bool baselines = true;          // RT, FIR, cuFFT, CUB SAT, copy floor
};

// Measures the CUDA backend and its baselines (CUDA events around the filter only). Throws
// BackendUnavailable without CUDA. `progress` receives one line per finished case when set.
std::vector<BenchResult> bench_cuda(const BenchOptions& options,
                                    void (*progress)(const BenchResult&) = nullptr);

}  // namespace rf
