// The protocol of docs/bench/README.md as `rfcli bench` runs it: rows of results, the options that
// choose the cases, and the drivers of the CPU and CUDA backends (edge_bench.h has the edge-aware
// filter's).
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/timer.h"
#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf::bench {

struct BenchResult {
  // "rfstudio" (the engine), "cpu", "fir" / "fir-f64" (the plain FIR, float / double
  // accumulation), "fir-tuned", "npp", "cufft", "cub-sat", "copy".
  std::string impl;
  // The engine's algorithm ("rt", "alg4", "alg5", "alg6", "auto"; edge-aware "a", "c", "d",
  // "exact"), a baseline's kernel ("fused", "two-pass" for fir-tuned), "-" where there is none.
  std::string algo = "-";
  std::string filter;    // "gaussian", "bspline3", ..., "sat", "copy"
  double sigma = 0.0;    // 0 where the filter has none (SAT, B-splines, copy); along x with sigma_y
  double sigma_y = 0.0;  // the case's sigma along y where it has one of its own, else 0
  int order = 0;
  std::string ext;  // "mirror", ... ("-" where it does not apply)
  int width = 0;
  int height = 0;
  int channels = 1;
  std::string format;      // "f32", "rgba8", "f32x4", "u16", "f16" (bench_format_name)
  double ms = 0.0;         // median over the timed runs, the filter only (no upload, no readback)
  double gips = 0.0;       // 2^30 pixels per second
  double gbps = 0.0;       // for the copy floor: bytes read + written per second / 1e9
  int runs = 0;            // timed runs whose median is `ms`
  std::string derivative;  // the engine's rows of a derivative: "1,0", "gradient", ...; "" none
  int radius = 0;          // FIR baselines: taps on each side of the centre
  // The engine's rows of the Gaussian: the method asked ("recursive", "fir", "auto") and what
  // the plan ran (Engine::method(): "recursive order 3", "FIR radius 9"); "" elsewhere.
  std::string gaussian_method, method;
  // The engine's rows: the algorithm the plan ran, auto resolved (Engine::algorithm(): "alg5",
  // "lines", "rt"; a volume's steps joined by '+': "lines+rt"); "" elsewhere.
  std::string ran;
  int depth = 0;     // a volume's pages (width x height x depth); 0: a frame
  std::string axes;  // a volume's axes filtered ("x,y,z", "x,y", "z"); "" for a frame
  // Baselines checked against the double FIR with the same taps and extension (one channel):
  // the largest absolute difference on the benchmark's data in [0.05, 1); < 0: not checked.
  double max_error = -1.0;
  std::string clock;  // the timer's clock_name() ("CUDA events, stream held", ...); "" unknown
};

struct BenchOptions {
  std::vector<int> sizes;       // square sizes; empty: the protocol's default list (512..8192)
  bool include_hd = true;       // 1920x1080 and 3840x2160 as well
  std::vector<int> orders;      // empty: 1..5
  std::vector<Extension> exts;  // empty: all
  std::vector<int> channels;    // empty: {1, 4}
  // The CUDA backend's frames in these formats instead of by channels (1: R32F, 4: RGBA32F, the
  // HD frames RGBA8); empty: by channels. The baselines time the float and RGBA8 frames.
  std::vector<PixelFormat> formats;
  int iterations = 100;  // timed runs per case (median)
  int warmup = 10;
  // A case whose timed runs would take longer than this (GPU milliseconds, estimated from one
  // run) gets fewer of them, never fewer than kBenchMinRuns; <= 0: always `iterations`.
  double case_ms = 500.0;
  std::vector<double> sigmas;  // every case at every sigma; empty: {4}
  // Every case of a kind with a sigma per axis at this sigma along y (--sigmas then along x);
  // the baselines keep one sigma.
  std::optional<double> sigma_y;
  std::vector<Algorithm> algos;   // empty: every algorithm the CUDA backend offers (not Auto)
  std::vector<FilterKind> kinds;  // empty: Gaussian and Sat
  Derivative derivative;          // every case of a kind that takes one (the baselines: none)
  // The Gaussian's methods, each case of the kind with each (fir: with auto alone, at the first
  // order); empty: recursive.
  std::vector<GaussianMethod> methods;
  bool baselines = true;  // FIR (plain and tuned), NPP, cuFFT, CUB SAT, copy floor
  // The CUDA clock (timer.h): CudaEvents from the call, or CudaHeld, the GPU's time alone.
  Clock cuda_clock = Clock::CudaEvents;
  // The CUDA backend only: an n^3 float32 volume filtered along its three axes, its pages alone
  // and through them (rf::ArrayFilter), beside a copy of its bytes; 0: none.
  int volume = 0;
};

inline constexpr int kBenchMinRuns = 10;

// Radii of the FIR baselines, in standard deviations: the plain FIR keeps 6 (the truncation of
// the ground truth), the tuned FIR and NPP 3 (what a user picks for speed).
inline constexpr double kBenchTruthSigmas = 6.0;
inline constexpr double kBenchFastFirSigmas = 3.0;

// ceil(sigmas * sigma): the FIR radius that keeps `sigmas` standard deviations of the Gaussian.
inline int fir_radius(double sigma, double sigmas) {
  return int(std::ceil(sigmas * sigma));
}

// A row's name of a frame format: "f32", "f32x4", "rgba8", "u16", "f16" ("f64" for R64F).
const char* bench_format_name(PixelFormat f);

// The frame formats the CUDA bench times (BenchOptions::formats), in the order --formats lists
// them.
inline constexpr PixelFormat kBenchFormats[] = {PixelFormat::R32F, PixelFormat::RGBA32F,
                                                PixelFormat::RGBA8, PixelFormat::R16U,
                                                PixelFormat::R16F};

// The format of that name among kBenchFormats, if any.
std::optional<PixelFormat> parse_bench_format(const std::string& name);

// The names of kBenchFormats: "f32, f32x4, rgba8, u16, f16".
std::string bench_format_names();

// 2^30 pixels per second of a width x height frame filtered in `ms`.
double gips(int width, int height, double ms);

// The options with the protocol's lists where they leave one empty (sizes 512..8192, orders
// 1..5, every extension, 1 and 4 channels, sigma 4, Gaussian and SAT).
BenchOptions with_defaults(BenchOptions options);

// A frame of the protocol: the squares of options.sizes, then 1920x1080 and 3840x2160 (`hd`)
// when options.include_hd.
struct Shape {
  int width = 0, height = 0;
  bool hd = false;
};
std::vector<Shape> bench_shapes(const BenchOptions& options);

// Whether the filter kind reads sigma (filter_table.h; the benchmark runs the others once).
bool uses_sigma(FilterKind kind);

// Whether the benchmark times the kind at every extension of the options: a kind that takes only
// some (the SAT: zero, and ignore, the same for it) is timed once, at its default.
bool sweeps_extensions(FilterKind kind);

// The algorithms the benchmark times for a kind: options.algos where the CUDA backend offers
// them for it, or, when that list is empty, every algorithm it offers but Auto.
std::vector<Algorithm> bench_algorithms(const BenchOptions& options, FilterKind kind,
                                        Backend backend = Backend::Cuda);

// The cases of one kind, as the filter table says the kind takes them: every sigma of the
// options where it reads one (else once, at FilterSpec's), the orders of the options its design
// offers (a kind of one fixed order: once, at that order), the extensions of the options (see
// sweeps_extensions), and every algorithm of bench_algorithms for the backend.
// In the order the drivers time them: sigma, order, extension, algorithm.
std::vector<FilterSpec> bench_cases(const BenchOptions& options, FilterKind kind, Backend backend);

// A row for `spec` timed on a width x height frame: its filter, algorithm, sigma (0 where the
// kind reads none), order and extension ("-" where the case does not sweep them).
BenchResult case_row(const FilterSpec& spec, int width, int height, int channels,
                     const std::string& format);

// The rows a driver measures, each handed to `progress` (when set) as it comes.
class Rows {
 public:
  explicit Rows(void (*progress)(const BenchResult&)) : progress_(progress) {}
  void add(const BenchResult& row);
  // `row` with the median, run count and GiP/s of `t`.
  void add(BenchResult row, const Timing& t);  // GiP/s of width x height (x depth) pixels
  std::vector<BenchResult> take() { return std::move(rows_); }

 private:
  void (*progress_)(const BenchResult&);
  std::vector<BenchResult> rows_;
};

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
