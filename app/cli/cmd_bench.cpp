// rfcli bench: the protocol of docs/bench/README.md, run by the drivers of bench/. Every case runs
// at every sigma of --sigmas and with every algorithm of --algos the backend offers (by default:
// on CUDA every one, on the CPU its auto). The CPU backend is timed with a steady clock around the
// filter's stages (no copies or conversions), the CUDA backend and its baselines with CUDA events
// (bench::bench_cpu, bench::bench_cuda). The edge-aware filter (the paper's case: RGB, sigma 50,
// sigma_r 50/255, kappa 2, 2 iterations) is timed per algorithm, A, C, D and exact side by side, on
// both backends (bench::bench_edge). This file parses the options and prints and records the rows;
// --append adds them to an existing record, so that one JSON file holds a protocol of several runs.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
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
#include "filters/core/filter_table.h"

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

std::string sigma_or_dash(double sigma) {
  if (sigma <= 0.0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", sigma);
  return buf;
}

void print_header() {
  std::printf("%-10s %-8s %-10s %6s %5s %-7s %11s %3s %-6s %10s %9s %5s\n", "impl", "algo",
              "filter", "sigma", "order", "ext", "size", "ch", "format", "ms", "GiP/s", "runs");
}

void print_bench_row(const BenchResult& r) {
  char size[48];
  if (r.depth > 0)
    std::snprintf(size, sizeof size, "%dx%dx%d", r.width, r.height, r.depth);
  else
    std::snprintf(size, sizeof size, "%dx%d", r.width, r.height);
  std::printf(
      "%-10s %-8s %-10s %6s %5d %-7s %11s %3d %-6s %10.3f %9.3f %5d", r.impl.c_str(),
      r.algo.c_str(), r.filter.c_str(),
      (sigma_or_dash(r.sigma) + (r.sigma_y > 0.0 ? "," + sigma_or_dash(r.sigma_y) : "")).c_str(),
      r.order, r.ext.c_str(), size, r.channels, r.format.c_str(), r.ms, r.gips, r.runs);
  if (r.gbps > 0.0) std::printf("  %.1f GB/s", r.gbps);
  if (r.radius > 0) std::printf("  radius %d", r.radius);
  if (r.max_error >= 0.0) std::printf("  max err %.2e", r.max_error);
  if (!r.derivative.empty()) std::printf("  derivative %s", r.derivative.c_str());
  if (!r.axes.empty()) std::printf("  along %s", r.axes.c_str());
  if (!r.gaussian_method.empty() && r.gaussian_method != to_string(GaussianMethod::Recursive))
    std::printf("  method %s: %s", r.gaussian_method.c_str(), r.method.c_str());
  if (r.algo == to_string(Algorithm::Auto) && !r.ran.empty() && r.ran != "fir")
    std::printf("  ran %s", r.ran.c_str());
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

nlohmann::json row_json(const BenchResult& r) {
  nlohmann::json row = {{"impl", r.impl},     {"algo", r.algo},     {"filter", r.filter},
                        {"sigma", r.sigma},   {"order", r.order},   {"ext", r.ext},
                        {"width", r.width},   {"height", r.height}, {"channels", r.channels},
                        {"format", r.format}, {"gips", r.gips},     {"ms", r.ms},
                        {"gbps", r.gbps},     {"runs", r.runs}};
  if (r.sigma_y > 0.0) row["sigma_y"] = r.sigma_y;
  if (r.radius > 0) row["radius"] = r.radius;
  if (r.max_error >= 0.0) row["max_error"] = r.max_error;
  if (!r.derivative.empty()) row["derivative"] = r.derivative;
  if (r.depth > 0) row["depth"] = r.depth;
  if (!r.axes.empty()) row["axes"] = r.axes;
  if (!r.gaussian_method.empty()) row["gaussian_method"] = r.gaussian_method;
  if (!r.method.empty()) row["method"] = r.method;
  if (!r.ran.empty()) row["ran"] = r.ran;
  if (!r.clock.empty()) row["clock"] = r.clock;
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

// ---- The options ------------------------------------------------------------------------------

// The options as typed; parse() checks them into a Plan.
struct BenchArgs {
  std::vector<int> sizes{512, 1024, 2048, 4096};
  bool no_hd = false;
  std::vector<int> orders{1, 2, 3, 4, 5};
  std::vector<std::string> exts = default_extensions();
  std::vector<int> channels;         // --channels; none given: 1 and 4
  std::vector<std::string> formats;  // --formats (CUDA), in place of --channels
  std::vector<std::string> filters{FilterArgs().filter};
  std::vector<std::string> algos;
  std::vector<std::string> methods;  // --gaussian-methods
  std::optional<int> iterations, warmup;
  std::vector<double> sigmas;
  std::optional<double> sigma, sigma_y;
  std::string derivative = "none";
  double case_ms = 500.0;
  std::string clock = "call";  // --clock: call, held
  std::string json;
  bool append = false;
  std::string backend = to_string(Backend::Cpu);
  bool no_baselines = false;
  int volume = 0;
  bench::EdgeCase edge;
  std::string edge_image;  // mirror-tiled to each size; empty: seeded random rectangles

  // Every extension of the table but ignore, which is no extension (its naive start is shown).
  static std::vector<std::string> default_extensions() {
    std::vector<std::string> names;
    for (const ExtensionInfo& e : extension_table())
      if (e.ext != Extension::Ignore) names.push_back(e.name);
    return names;
  }
};

// Which frames and cases: sizes, orders, extensions, channels, filters and algorithms.
void add_case_options(CLI::App& cmd, BenchArgs& a) {
  cmd.add_option("--sizes", a.sizes, "square sizes")->delimiter(',')->capture_default_str();
  cmd.add_flag("--no-hd", a.no_hd, "skip 1920x1080 and 3840x2160");
  cmd.add_option("--orders", a.orders, "orders")->delimiter(',')->capture_default_str();
  cmd.add_option("--ext", a.exts, "extensions")->delimiter(',')->capture_default_str();
  cmd.add_option("--channels", a.channels, "1 and/or 4")->delimiter(',')->default_str("[1,4]");
  cmd.add_option("--formats", a.formats,
                 "CUDA frame formats in place of --channels (given with it, each of its "
                 "channel counts): f32, f32x4, rgba8, u16 (uint16 on [0, 1]), f16 (float16)")
      ->delimiter(',');
  cmd.add_option("--filters", a.filters, option_help().filter)
      ->delimiter(',')
      ->capture_default_str();
  cmd.add_option(
         "--algos", a.algos,
         "CUDA algorithms: " + option_help().algo + "; default: every one the backend offers")
      ->delimiter(',');
  cmd.add_option("--gaussian-methods", a.methods,
                 "the Gaussian's methods, each case with each (" + method_names() +
                     "; fir: one case per sigma and extension); default: recursive")
      ->delimiter(',');
}

// How often each case runs.
void add_repeat_options(CLI::App& cmd, BenchArgs& a) {
  cmd.add_option("--iterations", a.iterations,
                 "timed runs per case (default: 20 on the CPU, 100 on CUDA)");
  cmd.add_option("--warmup", a.warmup, "untimed runs first (default: 3 CPU, 10 CUDA)");
  cmd.add_option("--case-ms", a.case_ms,
                 "CUDA: a case whose timed runs would take longer than this many GPU ms gets "
                 "fewer (at least 10); 0: always --iterations")
      ->capture_default_str();
  cmd.add_option("--clock", a.clock,
                 "CUDA: call (events from the call on, the host's launch included) or held (the "
                 "stream held while each run queues its work: the GPU's time alone)")
      ->check(CLI::IsMember({"call", "held"}))
      ->capture_default_str();
}

// The filters' parameters: the sigmas of every case, and the edge-aware filter's.
void add_parameter_options(CLI::App& cmd, BenchArgs& a) {
  cmd.add_option("--sigmas", a.sigmas,
                 "Gaussian sigmas, every case at each (default 4; edge-aware: 50)")
      ->delimiter(',');
  cmd.add_option("--sigma", a.sigma, "one sigma: the same as --sigmas with one value");
  cmd.add_option("--derivative", a.derivative,
                 "every case of a Gaussian kind as this derivative (" +
                     std::string(info(Param::Derivative).help) + "); the baselines smooth")
      ->capture_default_str();
  cmd.add_option("--sigma-y", a.sigma_y,
                 "every Gaussian case at this sigma along y, --sigmas then along x (the "
                 "baselines keep one sigma)");
  cmd.add_option("--sigma-r", a.edge.sigma_r255, "edge-aware: sigma_r on the 8-bit scale")
      ->capture_default_str();
  cmd.add_option("--kappa", a.edge.kappa, "edge-aware: warm-up distance of C and D")
      ->capture_default_str();
  cmd.add_option("--edge-iterations", a.edge.passes, "edge-aware: the filter's iterations N")
      ->capture_default_str();
  cmd.add_option("--image", a.edge_image,
                 "edge-aware: mirror-tile this RGB image to each size (default: seeded random "
                 "rectangles)");
}

// Where the results go and what runs them.
void add_output_options(CLI::App& cmd, BenchArgs& a) {
  cmd.add_option("--json", a.json, "also write the results to this JSON file");
  cmd.add_flag("--append", a.append,
               "with --json: add the rows to the record already in that file");
  cmd.add_option("--backend", a.backend,
                 "cpu; cuda (CUDA only); auto (CPU, and CUDA when a device exists)")
      ->capture_default_str();
  cmd.add_flag("--no-baselines", a.no_baselines,
               "CUDA: skip the FIR, NPP, cuFFT, CUB and copy baselines");
  cmd.add_option("--volume", a.volume,
                 "CUDA: also an N^3 float32 volume filtered along x,y,z, x,y and z alone (at the "
                 "first sigma, every order and extension), beside a copy of its bytes")
      ->type_name("N")
      ->check(CLI::Range(1, 2048));
}

// ---- Checking them ---------------------------------------------------------------------------

// What a run measures, checked.
struct Plan {
  BenchOptions cases;  // the CPU and CUDA drivers' (the kinds but edge-aware)
  bool edge = false;   // edge-aware among --filters: bench::bench_edge
  bench::EdgeCase edge_case;
  std::vector<Algorithm> edge_algos;
  Backend backend = Backend::Cpu;
  nlohmann::json prior;  // the record --append adds to
};

// rf::parse_spec's message for a mistake in a list of names: it names the option of rfcli filter
// (--filter, --algo), which the benchmark spells in the plural.
UsageError list_error(const InvalidParameter& e) {
  const std::string message = e.what();
  for (const char* option : {"--filter", "--algo"}) {
    const std::size_t n = std::strlen(option);
    if (message.compare(0, n, option) == 0 && (message[n] == ':' || message[n] == ' '))
      return UsageError(std::string(option) + "s" + message.substr(n));
  }
  return UsageError(message);
}

// The names of `args` read as rfcli filter reads them, and the same message for a wrong one.
FilterSpec parse_names(const FilterArgs& args) {
  try {
    return parse_spec_unvalidated(args);
  } catch (const InvalidParameter& e) {
    throw list_error(e);
  }
}

// The case checked as rfcli filter checks a filter.
void check_case(const FilterArgs& args) {
  try {
    parse_spec(args);
  } catch (const InvalidParameter& e) {
    throw list_error(e);
  }
}

std::vector<Extension> parse_extensions(const std::vector<std::string>& names) {
  std::vector<Extension> exts;
  for (const std::string& name : names) {
    FilterArgs a;
    a.ext = name;
    exts.push_back(parse_names(a).ext);
  }
  return exts;
}

// The kinds of --filters but edge-aware, which `edge` says is among them.
std::vector<FilterKind> parse_kinds(const std::vector<std::string>& names, bool* edge) {
  std::vector<FilterKind> kinds;
  for (const std::string& name : names) {
    FilterArgs a;
    a.filter = name;
    const FilterKind kind = parse_names(a).kind;
    if (kind == FilterKind::EdgeAware)
      *edge = true;
    else
      kinds.push_back(kind);
  }
  return kinds;
}

// Each name of --algos must be an algorithm a backend offers for one of `kinds` (the CUDA backend
// offers every one the CPU does).
std::vector<Algorithm> parse_algorithms(const std::vector<std::string>& names,
                                        const std::vector<FilterKind>& kinds) {
  std::vector<Algorithm> algos;
  for (const std::string& name : names) {
    FilterArgs a;
    a.algo = name;
    const Algorithm algo = parse_names(a).algo;
    bool offered = false;
    std::string lists;
    for (FilterKind kind : kinds) {
      const std::vector<Algorithm> list = algorithms_for(Backend::Cuda, kind);
      offered = offered || std::find(list.begin(), list.end(), algo) != list.end();
      lists += std::string(lists.empty() ? "" : "; ") + to_string(kind) + ": " + names_of(list);
    }
    if (!offered)
      throw UsageError("--algos: '" + name + "' is not offered for these filters (" + lists + ")");
    algos.push_back(algo);
  }
  return algos;
}

std::vector<double> parse_sigmas(const BenchArgs& a) {
  if (a.sigma && !a.sigmas.empty()) throw UsageError("--sigma and --sigmas: give one of them");
  const std::vector<double> sigmas = a.sigma ? std::vector<double>{*a.sigma} : a.sigmas;
  for (double s : sigmas)
    if (!(s > 0.0) || !std::isfinite(s))
      throw UsageError("--sigmas: every sigma must be a positive number");
  return sigmas;
}

// Every case the drivers will time, checked by rf::parse_spec: a kind none of whose orders is
// among --orders, or a sigma outside what an order's design holds, is refused with the message
// of rfcli filter before anything is measured.
void check_cases(const BenchOptions& o, Backend backend) {
  for (FilterKind kind : o.kinds) {
    if (bench::bench_cases(o, kind, Backend::Cpu).empty()) {
      FilterArgs a;
      a.filter = to_string(kind);
      a.order = o.orders.front();
      check_case(a);
    }
    for (Backend b : {Backend::Cpu, Backend::Cuda})
      if (backend == Backend::Auto || backend == b)
        for (const FilterSpec& spec : bench::bench_cases(o, kind, b)) check_case(to_args(spec));
  }
}

// The edge-aware case's parameters, and its algorithms: those of --algos the CUDA backend offers
// for it (not auto), or all of them.
void check_edge(Plan& p) {
  const bench::EdgeCase& e = p.edge_case;
  if (!(e.sigma_r255 > 0.0)) throw UsageError("--sigma-r: must be a positive number");
  if (!(e.kappa >= 0.0)) throw UsageError("--kappa: must be >= 0");
  if (e.passes < 1 || e.passes > 16) throw UsageError("--edge-iterations: must be 1 to 16");
  for (Algorithm algo : bench::bench_algorithms(p.cases, FilterKind::EdgeAware))
    if (algo != Algorithm::Auto) p.edge_algos.push_back(algo);
  if (p.edge_algos.empty()) p.edge_algos = bench::bench_algorithms({}, FilterKind::EdgeAware);
  for (double sigma : e.sigmas)
    for (Algorithm algo : p.edge_algos) check_case(to_args(bench::edge_spec(e, sigma, algo)));
}

// The counts of runs, the backend and the record of --append.
void check_run(Plan& p, const BenchArgs& a) {
  FilterArgs names;
  names.backend = a.backend;
  p.backend = parse_names(names).backend;
  if (a.iterations && *a.iterations < 1) throw UsageError("--iterations: must be >= 1");
  if (a.warmup && *a.warmup < 0) throw UsageError("--warmup: must be >= 0");
  if (!(a.case_ms >= 0.0)) throw UsageError("--case-ms: must be >= 0");
  if (a.append && a.json.empty()) throw UsageError("--append: needs --json FILE");
  p.prior = a.append ? read_record(a.json) : nlohmann::json();
}

Plan parse(const BenchArgs& a) {
  Plan p;
  BenchOptions& o = p.cases;
  const Range orders = info(Param::Order).range;
  o.sizes = positive_list(a.sizes, "--sizes", 1, 32768);
  o.include_hd = !a.no_hd;
  o.orders = positive_list(a.orders, "--orders", int(orders.lo), int(orders.hi));
  o.channels = a.channels.empty() ? std::vector<int>{1, 4} : a.channels;
  for (int c : o.channels)
    if (c != 1 && c != 4) throw UsageError("--channels: " + std::to_string(c) + " is not 1 or 4");
  o.exts = parse_extensions(a.exts);
  o.kinds = parse_kinds(a.filters, &p.edge);
  if (o.orders.empty() || o.exts.empty() || o.channels.empty() || (o.kinds.empty() && !p.edge) ||
      (o.sizes.empty() && !o.include_hd))
    throw UsageError(
        "bench: nothing to measure (an empty list of sizes, orders, extensions, channels or "
        "filters)");
  const std::vector<double> sigmas = parse_sigmas(a);
  o.sigmas = sigmas.empty() ? std::vector<double>{4.0} : sigmas;
  if (a.sigma_y && !(*a.sigma_y > 0.0 && std::isfinite(*a.sigma_y)))
    throw UsageError("--sigma-y: must be a positive number");
  o.sigma_y = a.sigma_y;
  const auto derivative = parse_derivative(a.derivative);
  if (!derivative)
    throw UsageError("--derivative: '" + a.derivative +
                     "' is not none, DX,DY (0, 1 or 2 each), gradient or laplacian");
  o.derivative = *derivative;
  p.edge_case = a.edge;
  if (!sigmas.empty()) p.edge_case.sigmas = sigmas;
  std::vector<FilterKind> kinds = o.kinds;
  if (p.edge) kinds.push_back(FilterKind::EdgeAware);
  o.algos = parse_algorithms(a.algos, kinds);
  for (const std::string& name : a.methods) {
    const auto method = parse_gaussian_method(name);
    if (!method)
      throw UsageError("--gaussian-methods: unknown method '" + name + "' (" + method_names() +
                       ")");
    o.methods.push_back(*method);
  }
  if (p.edge) check_edge(p);
  o.baselines = !a.no_baselines;
  o.volume = a.volume;
  check_run(p, a);
  for (const std::string& name : a.formats) {
    const std::optional<PixelFormat> f = bench::parse_bench_format(name);
    if (!f)
      throw UsageError("--formats: unknown format '" + name + "' (" + bench::bench_format_names() +
                       ")");
    o.formats.push_back(*f);
  }
  if (!o.formats.empty() && p.backend == Backend::Cpu)
    throw UsageError(
        "--formats: the CUDA backend's frames (--backend cuda); the CPU bench takes "
        "--channels");
  // Both given: each format's channels among --channels (f32 is one float, f32x4 four).
  if (!a.channels.empty())
    for (std::size_t i = 0; i < o.formats.size(); ++i) {
      const int c = channel_count(o.formats[i]);
      if (std::find(a.channels.begin(), a.channels.end(), c) == a.channels.end())
        throw UsageError("--formats " + a.formats[i] + ": " + std::to_string(c) +
                         (c == 1 ? " channel" : " channels") +
                         ", not one of --channels (f32x4 is four floats, rgba8 four bytes)");
    }
  if (o.volume > 0 && p.backend == Backend::Cpu)
    throw UsageError("--volume: the volume cases are timed on the CUDA backend (--backend cuda)");
  o.case_ms = a.case_ms;
  o.cuda_clock = a.clock == "held" ? bench::Clock::CudaHeld : bench::Clock::CudaEvents;
  if (a.clock == "held" && p.backend == Backend::Cpu)
    throw UsageError(
        "--clock held: a CUDA clock (--backend cuda or auto); the CPU bench times with a steady "
        "clock");
  if (a.clock == "held" && p.edge)
    throw UsageError("--clock held: the edge-aware cases are timed from the call (--clock call)");
  check_cases(o, p.backend);
  return p;
}

// ---- Running them ----------------------------------------------------------------------------

// What the JSON record gets: the devices measured, the copy floor and the rows.
struct Record {
  std::string device;
  double copy_gbps = 0.0;
  std::vector<BenchResult> rows;

  void add_device(const std::string& name) {
    if (device.find(name) == std::string::npos)
      device = device.empty() ? name : device + "; " + name;
  }
  // The copy floor is the frames' (the largest frame copied); a volume's copy (--volume), a
  // smaller buffer that partly stays in L2, is a row of its own.
  void add(const std::vector<BenchResult>& more) {
    for (const BenchResult& r : more)
      if (r.impl == "copy" && r.gbps > 0.0 && r.depth == 0) copy_gbps = r.gbps;
    rows.insert(rows.end(), more.begin(), more.end());
  }
};

std::string cpu_name() {
  return cpu_model() + ", " + make_cpu_engine()->description();
}

void run_cpu(const BenchArgs& a, const BenchOptions& o, Record& record) {
  record.add_device(cpu_name());
  std::printf("# %s; steady clock around the filter's stages (no copies)\n", record.device.c_str());
  BenchOptions c = o;
  c.iterations = a.iterations.value_or(20);
  c.warmup = a.warmup.value_or(3);
  record.add(bench::bench_cpu(c, print_bench_row));
}

void run_cuda(const BenchArgs& a, const BenchOptions& o, Record& record) {
  const std::string gpu = make_engine(Backend::Cuda)->description();
  record.add_device(gpu);
  std::printf(
      "# %s; CUDA events around the filter only (no upload or readback)%s, median of up to %d "
      "runs (fewer past %g ms a case)\n",
      gpu.c_str(),
      o.cuda_clock == bench::Clock::CudaHeld ? ", the stream held while each run is queued" : "",
      a.iterations.value_or(100), o.case_ms);
  BenchOptions g = o;
  g.iterations = a.iterations.value_or(100);
  g.warmup = a.warmup.value_or(10);
  record.add(bench::bench_cuda(g, print_bench_row, print_note));
}

void run_edge(const BenchArgs& a, const Plan& p, bool on_cpu, bool cuda, Record& record) {
  if (on_cpu) record.add_device(cpu_name());
  if (cuda) record.add_device(make_engine(Backend::Cuda)->description());
  const bench::EdgeCase& e = p.edge_case;
  std::string sigma_list;
  for (double s : e.sigmas) sigma_list += (sigma_list.empty() ? "" : ",") + sigma_or_dash(s);
  std::printf(
      "# edge-aware: RGB, sigma %s, sigma_r %g/255, kappa %g, %d iterations, %s; constant "
      "extension; cpu: steady clock around run(), median of %d; rfstudio: CUDA events "
      "around the graph launch, RGBA float on the device, median of %d\n",
      sigma_list.c_str(), e.sigma_r255, e.kappa, e.passes,
      a.edge_image.empty() ? "seeded random rectangles" : a.edge_image.c_str(),
      a.iterations.value_or(5), a.iterations.value_or(100));
  std::optional<Image> photo;
  if (!a.edge_image.empty()) photo = io::read_image(a.edge_image);
  const bench::Repeats cpu_repeats{a.warmup.value_or(1), a.iterations.value_or(5)};
  const bench::Repeats cuda_repeats{5, a.iterations.value_or(100)};
  record.add(bench::bench_edge(p.cases, e, photo ? &*photo : nullptr, p.edge_algos, on_cpu, cuda,
                               cpu_repeats, cuda_repeats, print_bench_row));
}

void run_bench(const BenchArgs& a, const Plan& p) {
  std::string why;
  const bool cuda = p.backend != Backend::Cpu && cuda_available(&why);
  if (p.backend == Backend::Cuda && !cuda)
    throw BackendUnavailable("--backend cuda: CUDA backend unavailable: " + why);
  if (p.backend == Backend::Auto && !cuda)
    std::fprintf(stderr, "rfcli: CUDA unavailable (%s): benchmarking the CPU only\n", why.c_str());
  Record record;
  print_header();
  const bool recursive = !p.cases.kinds.empty();
  if (p.backend != Backend::Cuda && recursive) run_cpu(a, p.cases, record);
  if (cuda && recursive) run_cuda(a, p.cases, record);
  if (p.edge) run_edge(a, p, p.backend != Backend::Cuda, cuda, record);
  if (a.json.empty()) return;
  write_record(a.json, p.prior, record.device, record.copy_gbps, record.rows);
  std::printf("results -> %s%s\n", a.json.c_str(), a.append ? " (appended)" : "");
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Benchmark on random data: median time of the filter alone, GiP/s = 2^30 px/s");
  add_case_options(*cmd, *args);
  add_repeat_options(*cmd, *args);
  add_parameter_options(*cmd, *args);
  add_output_options(*cmd, *args);
  cmd->callback([args] {
    const Plan plan = parse(*args);
    if (check_only()) return;
    run_bench(*args, plan);
  });
}

}  // namespace rf::cli
