// The protocol of docs/bench/README.md as `rfcli bench` runs it: rows of results, the options that
// choose the cases, and the drivers of the CPU and CUDA backends (edge_bench.h has the edge-aware
// filter's).
#pragma once

#include <string>
#include <vector>

#include "filters/core/spec.h"

namespace rf::bench {

struct BenchResult {
  // "rfstudio" (the engine), "cpu", "fir" / "fir-f64" (the plain FIR, float / double
  // accumulation), "fir-tuned", "npp", "cufft", "cub-sat", "copy".
  std::string impl;
  // The engine's algorithm ("rt", "alg4", "alg5", "alg6", "auto"; edge-aware "a", "c", "d",
  // "exact"), a baseline's kernel ("fused", "two-pass" for fir-tuned), "-" where there is none.
  std::string algo = "-";
  std::string filter;  // "gaussian", "bspline3", ..., "sat", "copy"
  double sigma = 0.0;  // 0 where the filter has none (SAT, B-splines, copy)
  int order = 0;
  std::string ext;  // "mirror", ... ("-" where it does not apply)
  int width = 0;
  int height = 0;
  int channels = 1;
  std::string format;  // "f32", "rgba8", "f32x4"
  double ms = 0.0;     // median over the timed runs, the filter only (no upload, no readback)
  double gips = 0.0;   // 2^30 pixels per second
  double gbps = 0.0;   // for the copy floor: bytes read + written per second / 1e9
  int runs = 0;        // timed runs whose median is `ms`
  int radius = 0;      // FIR baselines: taps on each side of the centre
  // Baselines checked against the double FIR with the same taps and extension (one channel):
  // the largest absolute difference on the benchmark's data in [0.05, 1); < 0: not checked.
  double max_error = -1.0;
};

struct BenchOptions {
  std::vector<int> sizes;       // square sizes; empty: the protocol's default list
  bool include_hd = true;       // 1920x1080 and 3840x2160 as well
  std::vector<int> orders;      // empty: 1..5
  std::vector<Extension> exts;  // empty: all
  std::vector<int> channels;    // empty: {1, 4}
  int iterations = 100;         // timed runs per case (median)
  int warmup = 10;
  // A case whose timed runs would take longer than this (GPU milliseconds, estimated from one
  // run) gets fewer of them, never fewer than kBenchMinRuns; <= 0: always `iterations`.
  double case_ms = 500.0;
  std::vector<double> sigmas;     // every case at every sigma; empty: {4}
  std::vector<Algorithm> algos;   // empty: every algorithm the CUDA backend offers (not Auto)
  std::vector<FilterKind> kinds;  // empty: Gaussian (and Sat)
  bool baselines = true;          // FIR (plain and tuned), NPP, cuFFT, CUB SAT, copy floor
};

inline constexpr int kBenchMinRuns = 10;

// Radii of the FIR baselines, in standard deviations: the plain FIR keeps 6 (the truncation of
// the ground truth), the tuned FIR and NPP 3 (what a user picks for speed).
inline constexpr double kBenchTruthSigmas = 6.0;
inline constexpr double kBenchFastFirSigmas = 3.0;

// 2^30 pixels per second of a width x height frame filtered in `ms`.
double gips(int width, int height, double ms);

// Whether the filter kind's design depends on sigma (the benchmark runs the others once).
bool uses_sigma(FilterKind kind);

// The algorithms the benchmark times for a kind: options.algos where the CUDA backend offers
// them for it, or, when that list is empty, every algorithm it offers but Auto.
std::vector<Algorithm> bench_algorithms(const BenchOptions& options, FilterKind kind);

// Measures the CPU backend: a steady clock around its column and row passes (the engine's stage
// times; no copies or conversions), every kind, sigma, order and extension on every size and
// channel count, then the copy floor of the largest frame. `progress` receives every row as it is
// measured.
std::vector<BenchResult> bench_cpu(const BenchOptions& options,
                                   void (*progress)(const BenchResult&) = nullptr);

// Measures the CUDA backend and its baselines (CUDA events around the filter only). Throws
// BackendUnavailable without CUDA. `progress` receives every row as it is measured, `note` one
// line for every case skipped (an algorithm that cannot run a case, a baseline that is missing),
// when set (otherwise notes go to stderr).
std::vector<BenchResult> bench_cuda(const BenchOptions& options,
                                    void (*progress)(const BenchResult&) = nullptr,
                                    void (*note)(const std::string&) = nullptr);

}  // namespace rf::bench
