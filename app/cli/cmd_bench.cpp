// rfcli bench: the protocol of docs/bench/README.md, run by the drivers of bench/. Every case runs
// at every sigma of --sigmas and, on CUDA, with every algorithm of --algos. The CPU backend is
// timed with a steady clock around its column and row passes (the filter only: no copies or
// conversions), the CUDA backend and its baselines with CUDA events (bench::bench_cpu,
// bench::bench_cuda). The edge-aware filter (the paper's case: RGB, sigma 50, sigma_r 50/255,
// kappa 2, 2 iterations) is timed per algorithm, A, C, D and exact side by side, on both backends
// (bench::bench_edge). This file parses the options and prints and records the rows; --append
// adds them to an existing record, so that one JSON file holds a protocol of several runs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "app/io/image_io.h"
#include "bench/bench.h"
#include "bench/edge_bench.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"

namespace rf::cli {
namespace {

using bench::BenchOptions;
using bench::BenchResult;

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown CPU";
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

std::string sigma_text(double sigma) {
  if (sigma <= 0.0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", sigma);
  return buf;
}

void print_header() {
  std::printf("%-10s %-8s %-10s %6s %5s %-7s %11s %3s %-6s %10s %9s %5s\n", "impl", "algo",
              "filter", "sigma", "order", "ext", "size", "ch", "format", "ms", "GiP/s", "runs");
}

void print_row(const BenchResult& r) {
  char size[32];
  std::snprintf(size, sizeof size, "%dx%d", r.width, r.height);
  std::printf("%-10s %-8s %-10s %6s %5d %-7s %11s %3d %-6s %10.3f %9.3f %5d", r.impl.c_str(),
              r.algo.c_str(), r.filter.c_str(), sigma_text(r.sigma).c_str(), r.order, r.ext.c_str(),
              size, r.channels, r.format.c_str(), r.ms, r.gips, r.runs);
  if (r.gbps > 0.0) std::printf("  %.1f GB/s", r.gbps);
  if (r.radius > 0) std::printf("  radius %d", r.radius);
  if (r.max_error >= 0.0) std::printf("  max err %.2e", r.max_error);
  std::printf("\n");
  std::fflush(stdout);
}

void print_note(const std::string& line) {
  std::printf("# %s\n", line.c_str());
  std::fflush(stdout);
}

std::vector<int> positive_list(const std::vector<int>& v, const char* option, int lo, int hi) {
  for (int x : v)
    if (x < lo || x > hi)
      throw UsageError(std::string(option) + ": " + std::to_string(x) + " is outside " +
                       std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

std::string algorithm_names(const std::vector<Algorithm>& algos) {
  std::string out;
  for (Algorithm a : algos) out += std::string(out.empty() ? "" : ", ") + to_string(a);
  return out;
}

nlohmann::json row_json(const BenchResult& r) {
  nlohmann::json row = {{"impl", r.impl},     {"algo", r.algo},     {"filter", r.filter},
                        {"sigma", r.sigma},   {"order", r.order},   {"ext", r.ext},
                        {"width", r.width},   {"height", r.height}, {"channels", r.channels},
                        {"format", r.format}, {"gips", r.gips},     {"ms", r.ms},
                        {"gbps", r.gbps},     {"runs", r.runs}};
  if (r.radius > 0) row["radius"] = r.radius;
  if (r.max_error >= 0.0) row["max_error"] = r.max_error;
  return row;
}

// The record already in `path` that --append adds to (null when there is none yet), read before
// anything is measured so that a wrong file fails at once.
nlohmann::json read_record(const std::string& path) {
  if (!std::filesystem::exists(path)) return nullptr;
  std::ifstream in(path);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw IoError(path + ": --append: not a JSON benchmark record");
  }
  if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array())
    throw IoError(path + ": --append: not a benchmark record (no \"results\" array)");
  return doc;
}

// Writes the record through a temporary file, so that an interrupted run leaves the old record
// (or none) rather than half a file. The rows follow those of `prior` when it is a record.
void write_record(const std::string& path, nlohmann::json prior, const std::string& device,
                  double copy_gbps, const std::vector<BenchResult>& rows) {
  nlohmann::json doc = std::move(prior);
  if (doc.is_object()) {
    const std::string old = doc.value("device", std::string());
    if (old.empty())
      doc["device"] = device;
    else if (old.find(device) == std::string::npos)
      doc["device"] = old + "; " + device;
    if (copy_gbps > 0.0) doc["copy_floor_gbps"] = copy_gbps;
  } else {
    doc = {
        {"device", device}, {"copy_floor_gbps", copy_gbps}, {"results", nlohmann::json::array()}};
  }
  doc["date"] = today();
  for (const BenchResult& r : rows) doc["results"].push_back(row_json(r));
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << doc.dump(2) << "\n";
    if (!f) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw IoError(path + ": cannot write");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw IoError(path + ": cannot write");
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  struct Args {
    std::vector<int> sizes{512, 1024, 2048, 4096};
    bool no_hd = false;
    std::vector<int> orders{1, 2, 3, 4, 5};
    std::vector<std::string> exts{"zero", "clamp", "repeat", "mirror"};
    std::vector<int> channels{1, 4};
    std::vector<std::string> filters{"gaussian"};
    std::vector<std::string> algos;
    std::optional<int> iterations, warmup;
    std::vector<double> sigmas;
    std::optional<double> sigma;
    double case_ms = 500.0;
    std::string json;
    bool append = false;
    std::string backend = "cpu";
    bool no_baselines = false;
    bench::EdgeCase edge;
    std::string edge_image;  // mirror-tiled to each size; empty: seeded random rectangles
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Benchmark on random data: median time of the filter alone, GiP/s = 2^30 px/s");
  cmd->add_option("--sizes", args->sizes, "square sizes")->delimiter(',')->capture_default_str();
  cmd->add_flag("--no-hd", args->no_hd, "skip 1920x1080 and 3840x2160");
  cmd->add_option("--orders", args->orders, "orders")->delimiter(',')->capture_default_str();
  cmd->add_option("--ext", args->exts, "extensions")->delimiter(',')->capture_default_str();
  cmd->add_option("--channels", args->channels, "1 and/or 4")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--filters", args->filters, "gaussian, deriche, sat, ..., edge-aware")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--algos", args->algos,
                  "CUDA algorithms: rt, alg4, alg5, alg6, auto (one-way, two-way for yvrg; a, c, "
                  "d, exact for edge-aware); default: every one the backend offers")
      ->delimiter(',');
  cmd->add_option("--iterations", args->iterations,
                  "timed runs per case (default: 20 on the CPU, 100 on CUDA)");
  cmd->add_option("--warmup", args->warmup, "untimed runs first (default: 3 CPU, 10 CUDA)");
  cmd->add_option("--case-ms", args->case_ms,
                  "CUDA: a case whose timed runs would take longer than this many GPU ms gets "
                  "fewer (at least 10); 0: always --iterations")
      ->capture_default_str();
  cmd->add_option("--sigmas", args->sigmas,
                  "Gaussian sigmas, every case at each (default 4; edge-aware: 50)")
      ->delimiter(',');
  cmd->add_option("--sigma", args->sigma, "one sigma: the same as --sigmas with one value");
  cmd->add_option("--sigma-r", args->edge.sigma_r255, "edge-aware: sigma_r on the 8-bit scale")
      ->capture_default_str();
  cmd->add_option("--kappa", args->edge.kappa, "edge-aware: warm-up distance of C and D")
      ->capture_default_str();
  cmd->add_option("--edge-iterations", args->edge.passes, "edge-aware: the filter's iterations N")
      ->capture_default_str();
  cmd->add_option("--image", args->edge_image,
                  "edge-aware: mirror-tile this RGB image to each size (default: seeded random "
                  "rectangles)");
  cmd->add_option("--json", args->json, "also write the results to this JSON file");
  cmd->add_flag("--append", args->append,
                "with --json: add the rows to the record already in that file");
  cmd->add_option("--backend", args->backend,
                  "cpu; cuda (CUDA only); auto (CPU, and CUDA when a device exists)")
      ->capture_default_str();
  cmd->add_flag("--no-baselines", args->no_baselines,
                "CUDA: skip the FIR, NPP, cuFFT, CUB and copy baselines");
  cmd->callback([args] {
    BenchOptions o;
    o.sizes = positive_list(args->sizes, "--sizes", 1, 32768);
    o.include_hd = !args->no_hd;
    o.orders = positive_list(args->orders, "--orders", 1, 5);
    o.channels = args->channels;
    for (int c : o.channels)
      if (c != 1 && c != 4) throw UsageError("--channels: " + std::to_string(c) + " is not 1 or 4");
    for (const std::string& e : args->exts) {
      const auto ext = parse_extension(e);
      if (!ext) throw UsageError("--ext: unknown extension '" + e + "'");
      o.exts.push_back(*ext);
    }
    bool edge = false;
    for (const std::string& f : args->filters) {
      const auto kind = parse_filter_kind(f);
      if (!kind) throw UsageError("--filters: '" + f + "' cannot be benchmarked here");
      if (*kind == FilterKind::EdgeAware)
        edge = true;
      else
        o.kinds.push_back(*kind);
    }
    if (o.orders.empty() || o.exts.empty() || o.channels.empty() || (o.kinds.empty() && !edge) ||
        (o.sizes.empty() && !o.include_hd))
      throw UsageError(
          "bench: nothing to measure (an empty list of sizes, orders, extensions, "
          "channels or filters)");
    if (args->sigma && !args->sigmas.empty())
      throw UsageError("--sigma and --sigmas: give one of them");
    std::vector<double> sigmas = args->sigmas;
    if (args->sigma) sigmas = {*args->sigma};
    for (double s : sigmas)
      if (!(s > 0.0) || !std::isfinite(s))
        throw UsageError("--sigmas: every sigma must be a positive number");
    o.sigmas = sigmas.empty() ? std::vector<double>{4.0} : sigmas;
    bench::EdgeCase eb = args->edge;
    if (!sigmas.empty()) eb.sigmas = sigmas;

    // --algos: each name must be an algorithm the CUDA backend offers for one of the filters.
    std::vector<Algorithm> edge_algos;
    for (const std::string& name : args->algos) {
      const auto algo = parse_algorithm(name);
      if (!algo)
        throw UsageError("--algos: unknown algorithm '" + name +
                         "' (rt, alg4, alg5, alg6, auto, one-way, two-way, a, c, d, exact)");
      bool offered = false;
      std::string names;
      std::vector<FilterKind> kinds = o.kinds;
      if (edge) kinds.push_back(FilterKind::EdgeAware);
      for (FilterKind kind : kinds) {
        const std::vector<Algorithm> list = algorithms_for(Backend::Cuda, kind);
        offered = offered || std::find(list.begin(), list.end(), *algo) != list.end();
        names +=
            std::string(names.empty() ? "" : "; ") + to_string(kind) + ": " + algorithm_names(list);
      }
      if (!offered)
        throw UsageError("--algos: '" + name + "' is not offered for these filters (" + names +
                         ")");
      if (*algo == Algorithm::EdgeA || *algo == Algorithm::EdgeC || *algo == Algorithm::EdgeD ||
          *algo == Algorithm::EdgeExact)
        edge_algos.push_back(*algo);
      o.algos.push_back(*algo);
    }
    if (edge_algos.empty())
      edge_algos = {Algorithm::EdgeA, Algorithm::EdgeC, Algorithm::EdgeD, Algorithm::EdgeExact};

    if (edge) {
      if (!(eb.sigma_r255 > 0.0)) throw UsageError("--sigma-r: must be a positive number");
      if (!(eb.kappa >= 0.0)) throw UsageError("--kappa: must be >= 0");
      if (eb.passes < 1 || eb.passes > 16) throw UsageError("--edge-iterations: must be 1 to 16");
    }
    o.baselines = !args->no_baselines;
    const auto backend = parse_backend(args->backend);
    if (!backend) throw UsageError("--backend: unknown backend '" + args->backend + "'");
    if (args->iterations && *args->iterations < 1) throw UsageError("--iterations: must be >= 1");
    if (args->warmup && *args->warmup < 0) throw UsageError("--warmup: must be >= 0");
    if (!(args->case_ms >= 0.0)) throw UsageError("--case-ms: must be >= 0");
    o.case_ms = args->case_ms;
    if (args->append && args->json.empty()) throw UsageError("--append: needs --json FILE");
    const nlohmann::json prior = args->append ? read_record(args->json) : nlohmann::json();

    if (check_only()) return;

    std::string why;
    const bool cuda = *backend != Backend::Cpu && cuda_available(&why);
    if (*backend == Backend::Cuda && !cuda)
      throw BackendUnavailable("--backend cuda: CUDA backend unavailable: " + why);
    if (*backend == Backend::Auto && !cuda)
      std::fprintf(stderr, "rfcli: CUDA unavailable (%s): benchmarking the CPU only\n",
                   why.c_str());

    std::string device;
    double copy_gbps = 0.0;
    std::vector<BenchResult> all;
    print_header();
    if (*backend != Backend::Cuda && !o.kinds.empty()) {
      device = cpu_model() + ", " + make_cpu_engine()->description();
      std::printf("# %s; steady clock around the column and row passes (no copies)\n",
                  device.c_str());
      BenchOptions c = o;
      c.iterations = args->iterations.value_or(20);
      c.warmup = args->warmup.value_or(3);
      all = bench::bench_cpu(c, print_row);
      for (const BenchResult& r : all)
        if (r.impl == "copy" && r.gbps > 0.0) copy_gbps = r.gbps;
    }
    if (cuda && !o.kinds.empty()) {
      const std::string gpu = make_engine(Backend::Cuda)->description();
      device = device.empty() ? gpu : device + "; " + gpu;
      std::printf(
          "# %s; CUDA events around the filter only (no upload or readback), median of up to "
          "%d runs (fewer past %g ms a case)\n",
          gpu.c_str(), args->iterations.value_or(100), o.case_ms);
      BenchOptions g = o;
      g.iterations = args->iterations.value_or(100);
      g.warmup = args->warmup.value_or(10);
      const std::vector<BenchResult> rows = bench::bench_cuda(g, print_row, print_note);
      for (const BenchResult& r : rows)
        if (r.impl == "copy" && r.gbps > 0.0) copy_gbps = r.gbps;
      all.insert(all.end(), rows.begin(), rows.end());
    }
    if (edge) {
      const bool on_cpu = *backend != Backend::Cuda;
      if (on_cpu) {
        const std::string cpu_name = cpu_model() + ", " + make_cpu_engine()->description();
        if (device.find(cpu_name) == std::string::npos)
          device = device.empty() ? cpu_name : device + "; " + cpu_name;
      }
      if (cuda) {
        const std::string gpu = make_engine(Backend::Cuda)->description();
        if (device.find(gpu) == std::string::npos)
          device = device.empty() ? gpu : device + "; " + gpu;
      }
      std::string sigma_list;
      for (double s : eb.sigmas) sigma_list += (sigma_list.empty() ? "" : ",") + sigma_text(s);
      std::printf(
          "# edge-aware: RGB, sigma %s, sigma_r %g/255, kappa %g, %d iterations, %s; constant "
          "extension; cpu: steady clock around run(), median of %d; rfstudio: CUDA events "
          "around the graph launch, RGBA float on the device, median of %d\n",
          sigma_list.c_str(), eb.sigma_r255, eb.kappa, eb.passes,
          args->edge_image.empty() ? "seeded random rectangles" : args->edge_image.c_str(),
          args->iterations.value_or(5), args->iterations.value_or(100));
      std::optional<Image> photo;
      if (!args->edge_image.empty()) photo = io::read_image(args->edge_image);
      const bench::Repeats cpu_repeats{args->warmup.value_or(1), args->iterations.value_or(5)};
      const bench::Repeats cuda_repeats{5, args->iterations.value_or(100)};
      const std::vector<BenchResult> rows =
          bench::bench_edge(o, eb, photo ? &*photo : nullptr, edge_algos, on_cpu, cuda, cpu_repeats,
                            cuda_repeats, print_row);
      all.insert(all.end(), rows.begin(), rows.end());
    }
    if (args->json.empty()) return;
    write_record(args->json, prior, device, copy_gbps, all);
    std::printf("results -> %s%s\n", args->json.c_str(), args->append ? " (appended)" : "");
  });
}

}  // namespace rf::cli
