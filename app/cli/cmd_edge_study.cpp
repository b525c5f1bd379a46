// rfcli edge-study: the kappa study of the edge-aware paper's Fig. 6 (mean squared error of
// Algorithms C and D against the exact Algorithm A as kappa grows, for several (sigma, sigma_r)
// and images), and the CPU and CUDA backends' times for every algorithm on one large RGB image.
#include <omp.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "app/io/image_io.h"
#include "bench/bench.h"
#include "bench/edge_bench.h"
#include "filters/core/engine.h"
#include "filters/edge_aware/edge_aware.h"

namespace rf::cli {
namespace {

// (sigma, sigma_r) as in the paper, sigma_r on the 8-bit scale.
struct Pair {
  double sigma, sigma_r255;
};

Pair parse_pair(const std::string& s) {
  const auto colon = s.find(':');
  try {
    if (colon == std::string::npos) throw std::invalid_argument(s);
    Pair p{std::stod(s.substr(0, colon)), std::stod(s.substr(colon + 1))};
    if (!(p.sigma > 0.0) || !(p.sigma_r255 > 0.0)) throw std::invalid_argument(s);
    return p;
  } catch (const std::exception&) {
    throw UsageError("--pairs: '" + s +
                     "' is not SIGMA:SIGMA_R with positive numbers (e.g. 50:50)");
  }
}

// The colour channels only: the study follows the paper's RGB images.
Image rgb_of(const Image& in) {
  if (in.channels == 3 || in.channels == 1) return in;
  Image out(in.width, in.height, 3);
  const std::size_t n = std::size_t(in.width) * in.height;
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c)
      out.pixels[i * 3 + c] = in.pixels[i * in.channels + std::min(c, in.channels - 1)];
  return out;
}

// MSE on the 8-bit scale (values times 255), as the paper measures it, without quantising.
double mse255(const Image& a, const Image& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.pixels.size(); ++i) {
    const double d = 255.0 * (double(a.pixels[i]) - double(b.pixels[i]));
    s += d * d;
  }
  return s / double(a.pixels.size());
}

Image run_plan(const FilterSpec& spec, const Image& in) {
  cpu::EdgeAwarePlan plan(spec, in.width, in.height, in.channels);
  Image out(in.width, in.height, in.channels);
  plan.run(in.pixels.data(), out.pixels.data());
  return out;
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = name.find_last_of('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

// Timed CUDA runs per algorithm (the benchmark protocol's minimum).
constexpr int kCudaRuns = 100;

void run_timing(const Image& src, int size, int repeats) {
  const Image in = bench::mirror_tile(rgb_of(src), size, size);
  std::printf(
      "# CPU backend, %dx%d RGB float, 2 iterations, sigma 50, sigma_r 50/255, kappa 2, "
      "%d OpenMP threads; steady clock around run() (no I/O), median of %d\n",
      size, size, omp_get_max_threads(), repeats);
  std::string why;
  const bool gpu = cuda_available(&why);
  if (gpu)
    std::printf(
        "# CUDA backend, the same image as RGBA float on the device: CUDA events around the "
        "filter's graph launch (no upload or readback), median of %d after warm-up\n",
        kCudaRuns);
  else
    std::printf("# CUDA backend not timed: %s\n", why.c_str());
  std::printf("%-6s %10s %10s\n", "algo", "cpu_ms", "cuda_ms");
  bench::EdgeCase paper;
  for (Algorithm a : bench::bench_algorithms({}, FilterKind::EdgeAware)) {
    const FilterSpec spec = bench::edge_spec(paper, paper.sigmas.front(), a);
    const double cpu_ms =
        bench::time_edge_aware_cpu(spec, in, bench::Repeats{1, repeats}).median_ms;
    if (gpu)
      std::printf("%-6s %10.1f %10.3f\n", to_string(a), cpu_ms,
                  bench::time_edge_aware_cuda(spec, in, bench::Repeats{5, kCudaRuns}).median_ms);
    else
      std::printf("%-6s %10.1f %10s\n", to_string(a), cpu_ms, "-");
  }
}

// How far the float algorithms are from the double-precision reference of Algorithm A, and the
// exact block-parallel variant from Algorithm A, on each image. The exact variant's segments run
// on the CUDA backend; on the CPU it runs whole lines, Algorithm A's recursion (exact-A is 0), so
// the study takes it from CUDA when there is a GPU and says which it used.
void run_accuracy(const std::vector<std::string>& paths, const std::vector<Pair>& pairs,
                  int iterations) {
  std::string why;
  const bool gpu = cuda_available(&why);
  std::printf(
      "# max |difference| on the [0, 1] scale; A = float Algorithm A (CPU), ref = double "
      "reference of A, exact = the exact variant on %s\n",
      gpu ? "CUDA" : "the CPU (whole lines: A's recursion; no GPU)");
  std::printf("%-12s %9s %6s %6s %14s %14s %14s\n", "image", "size", "sigma", "sigma_r", "exact-A",
              "A-ref", "exact-ref");
  for (const std::string& path : paths) {
    const Image in = rgb_of(io::read_image(path));
    for (const Pair& p : pairs) {
      FilterSpec spec;
      spec.kind = FilterKind::EdgeAware;
      spec.sigma = p.sigma;
      spec.sigma_r = p.sigma_r255 / 255.0;
      spec.iterations = iterations;
      spec.algo = Algorithm::EdgeA;
      const Image a = run_plan(spec, in);
      spec.algo = Algorithm::EdgeExact;
      const Image x = gpu ? filter_image(spec, in, Backend::Cuda) : run_plan(spec, in);
      const Image ref = edge_aware_reference(spec, in);
      auto max_diff = [](const Image& u, const Image& v) {
        double m = 0.0;
        for (std::size_t i = 0; i < u.pixels.size(); ++i)
          m = std::max(m, std::abs(double(u.pixels[i]) - double(v.pixels[i])));
        return m;
      };
      char size[32];
      std::snprintf(size, sizeof size, "%dx%d", in.width, in.height);
      std::printf("%-12s %9s %6g %6g %14.3g %14.3g %14.3g\n", base_name(path).c_str(), size,
                  p.sigma, p.sigma_r255, max_diff(x, a), max_diff(a, ref), max_diff(x, ref));
      std::fflush(stdout);
    }
  }
}

struct StudyArgs {
  std::vector<std::string> images;
  std::vector<std::string> pairs = {"20:25", "50:50", "50:150", "200:150"};
  double kappa_max = 3.0;
  double kappa_step = 0.25;
  int iterations = 2;
  std::string csv;
  int timing_size = 0;
  int repeats = 5;
  bool accuracy = false;
};

void add_study_options(CLI::App& cmd, StudyArgs& a) {
  cmd.add_option("images", a.images, "RGB images")->required();
  cmd.add_option("--pairs", a.pairs, "SIGMA:SIGMA_R pairs, sigma_r on the 8-bit scale")
      ->capture_default_str();
  cmd.add_option("--kappa-max", a.kappa_max, "largest kappa")->capture_default_str();
  cmd.add_option("--kappa-step", a.kappa_step, "kappa step")->capture_default_str();
  cmd.add_option("--iterations", a.iterations, "iterations N")->capture_default_str();
  cmd.add_option("--csv", a.csv, "also write the table as CSV to this file");
  cmd.add_option("--timing", a.timing_size,
                 "instead of the study, time every algorithm on a SIZE x SIZE RGB image tiled "
                 "from the first image");
  cmd.add_option("--repeats", a.repeats, "timed runs per algorithm (--timing)")
      ->capture_default_str();
  cmd.add_flag("--accuracy", a.accuracy,
               "instead of the study, compare exact, A and the double reference of A");
}

// The kappas of the study: 0 to --kappa-max in steps of --kappa-step.
std::vector<double> study_kappas(const StudyArgs& a) {
  if (!(a.kappa_step > 0.0) || !(a.kappa_max >= 0.0))
    throw UsageError("--kappa-step and --kappa-max: must be positive");
  // Each kappa is a row of the study: a step that makes millions of them is a mistake.
  constexpr double kMaxKappas = 10000;
  if (!(a.kappa_max / a.kappa_step < kMaxKappas))
    throw UsageError("--kappa-max / --kappa-step: more than " + std::to_string(int(kMaxKappas)) +
                     " kappa values");
  std::vector<double> kappas;
  for (int i = 0; i * a.kappa_step <= a.kappa_max + 1e-9; ++i) kappas.push_back(i * a.kappa_step);
  return kappas;
}

// The CSV of --csv, with its header written; null without --csv.
std::FILE* open_csv(const std::string& path) {
  if (path.empty()) return nullptr;
  std::FILE* csv = std::fopen(path.c_str(), "w");
  if (!csv) throw UsageError("--csv: cannot write '" + path + "'");
  std::fprintf(csv, "image,width,height,sigma,sigma_r_8bit,iterations,kappa,mse_c,mse_d\n");
  return csv;
}

// The rows of one image and (sigma, sigma_r): MSE of C and D against A at every kappa.
void study_pair(const Image& in, const std::string& name, const Pair& p, int iterations,
                const std::vector<double>& kappas, std::FILE* csv) {
  FilterSpec spec;
  spec.kind = FilterKind::EdgeAware;
  spec.sigma = p.sigma;
  spec.sigma_r = p.sigma_r255 / 255.0;
  spec.iterations = iterations;
  spec.algo = Algorithm::EdgeA;
  const Image truth = run_plan(spec, in);
  for (double kappa : kappas) {
    spec.kappa = kappa;
    spec.algo = Algorithm::EdgeC;
    const double mc = mse255(run_plan(spec, in), truth);
    spec.algo = Algorithm::EdgeD;
    const double md = mse255(run_plan(spec, in), truth);
    char size[32];
    std::snprintf(size, sizeof size, "%dx%d", in.width, in.height);
    std::printf("%-12s %9s %6g %6g %6.2f %12.5g %12.5g\n", name.c_str(), size, p.sigma,
                p.sigma_r255, kappa, mc, md);
    if (csv)
      std::fprintf(csv, "%s,%d,%d,%g,%g,%d,%.2f,%.6g,%.6g\n", name.c_str(), in.width, in.height,
                   p.sigma, p.sigma_r255, iterations, kappa, mc, md);
  }
  std::fflush(stdout);
}

void run_study(const StudyArgs& a, const std::vector<Pair>& pairs,
               const std::vector<double>& kappas) {
  // Every image is read before anything is printed, so that a bad file fails cleanly.
  std::vector<Image> images;
  for (const std::string& path : a.images) images.push_back(rgb_of(io::read_image(path)));
  std::FILE* csv = open_csv(a.csv);
  std::printf("%-12s %9s %6s %6s %6s %12s %12s\n", "image", "size", "sigma", "sigma_r", "kappa",
              "mse_C", "mse_D");
  for (std::size_t i = 0; i < images.size(); ++i)
    for (const Pair& p : pairs)
      study_pair(images[i], base_name(a.images[i]), p, a.iterations, kappas, csv);
  if (csv) std::fclose(csv);
}

void run_command(const StudyArgs& a) {
  if (a.timing_size < 0) throw UsageError("--timing: must be a positive size");
  if (a.timing_size > 0) {
    if (a.repeats < 1) throw UsageError("--repeats: must be >= 1");
    if (check_only()) return;
    run_timing(io::read_image(a.images.front()), a.timing_size, a.repeats);
    return;
  }
  const std::vector<double> kappas = study_kappas(a);
  std::vector<Pair> pairs;
  for (const std::string& s : a.pairs) pairs.push_back(parse_pair(s));
  if (check_only()) return;
  if (a.accuracy)
    run_accuracy(a.images, pairs, a.iterations);
  else
    run_study(a, pairs, kappas);
}

}  // namespace

void add_edge_study_command(CLI::App& app) {
  auto args = std::make_shared<StudyArgs>();
  CLI::App* cmd = app.add_subcommand(
      "edge-study",
      "Fig. 6 of the edge-aware paper: MSE (8-bit scale) of algorithms C and D against A vs kappa, "
      "on the CPU backend; with --timing, the CPU and CUDA times of A, C, D and exact");
  add_study_options(*cmd, *args);
  cmd->callback([args] { run_command(*args); });
}

}  // namespace rf::cli
