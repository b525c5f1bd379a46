// The protocol's helpers and its CPU driver (built with and without CUDA; bench_cuda.cu has the
// CUDA driver). Which cases a kind takes (sigma, orders, extensions, algorithms) is read from the
// filter table.
#include "bench/bench.h"

#include <algorithm>
#include <cstdint>

#include "bench/copy.h"
#include "bench/random.h"
#include "filters/core/engine.h"
#include "filters/core/filter_table.h"

namespace rf::bench {

const char* bench_format_name(PixelFormat f) {
  switch (f) {
    case PixelFormat::R32F:
      return "f32";
    case PixelFormat::RGBA32F:
      return "f32x4";
    case PixelFormat::RGBA8:
      return "rgba8";
    case PixelFormat::R16U:
      return "u16";
    case PixelFormat::R16F:
      return "f16";
    case PixelFormat::R64F:
      return "f64";
  }
  return "?";
}

std::optional<PixelFormat> parse_bench_format(const std::string& name) {
  for (PixelFormat f : kBenchFormats)
    if (name == bench_format_name(f)) return f;
  return std::nullopt;
}

std::string bench_format_names() {
  std::string out;
  for (PixelFormat f : kBenchFormats)
    out += std::string(out.empty() ? "" : ", ") + bench_format_name(f);
  return out;
}

double gips(int width, int height, double ms) {
  return double(width) * height / (ms * 1e-3) / double(1ull << 30);
}

BenchOptions with_defaults(BenchOptions o) {
  if (o.sizes.empty()) o.sizes = {512, 1024, 2048, 4096, 8192};
  if (o.orders.empty()) o.orders = {1, 2, 3, 4, 5};
  if (o.exts.empty()) o.exts.assign(std::begin(kAllExtensions), std::end(kAllExtensions));
  if (o.channels.empty()) o.channels = {1, 4};
  if (o.sigmas.empty()) o.sigmas = {4.0};
  if (o.kinds.empty()) o.kinds = {FilterKind::Gaussian, FilterKind::Sat};
  return o;
}

std::vector<Shape> bench_shapes(const BenchOptions& o) {
  std::vector<Shape> shapes;
  for (int s : o.sizes) shapes.push_back({s, s, false});
  if (o.include_hd) {
    shapes.push_back({1920, 1080, true});
    shapes.push_back({3840, 2160, true});
  }
  return shapes;
}

bool uses_sigma(FilterKind kind) {
  return info(kind).params.has(Param::Sigma);
}

bool sweeps_extensions(FilterKind kind) {
  const KindInfo& k = info(kind);
  return k.params.has(Param::Ext) && k.extensions.size() == extension_table().size();
}

std::vector<Algorithm> bench_algorithms(const BenchOptions& options, FilterKind kind,
                                        Backend backend) {
  const std::vector<Algorithm> offered = algorithms_for(backend, kind);
  std::vector<Algorithm> out;
  if (options.algos.empty()) {
    // CUDA: every algorithm by name; the CPU: its default (auto) alone.
    if (backend != Backend::Cuda) return {Algorithm::Auto};
    for (Algorithm a : offered)
      if (a != Algorithm::Auto) out.push_back(a);
    return out;
  }
  for (Algorithm a : options.algos)
    if (std::find(offered.begin(), offered.end(), a) != offered.end()) out.push_back(a);
  return out;
}

namespace {

std::vector<double> case_sigmas(const BenchOptions& o, FilterKind kind) {
  return uses_sigma(kind) ? o.sigmas : std::vector<double>{FilterSpec().sigma};
}

std::vector<int> case_orders(const BenchOptions& o, FilterKind kind) {
  const KindInfo& k = info(kind);
  if (!k.params.has(Param::Order)) return {k.default_order};
  std::vector<int> orders;
  for (int order : o.orders)
    if (k.offers_order(order)) orders.push_back(order);
  return orders;
}

std::vector<Extension> case_extensions(const BenchOptions& o, FilterKind kind) {
  if (!sweeps_extensions(kind)) return {info(kind).default_ext};
  return o.exts;
}

}  // namespace

std::vector<FilterSpec> bench_cases(const BenchOptions& o, FilterKind kind, Backend backend) {
  const std::vector<Algorithm> algos = bench_algorithms(o, kind, backend);
  std::vector<GaussianMethod> methods = {GaussianMethod::Recursive};
  if (info(kind).params.has(Param::GaussianMethod) && !o.methods.empty()) methods = o.methods;
  const std::vector<int> orders = case_orders(o, kind);
  std::vector<FilterSpec> cases;
  for (double sigma : case_sigmas(o, kind))
    for (GaussianMethod method : methods)
      for (int order : orders)
        for (Extension ext : case_extensions(o, kind))
          for (Algorithm algo : algos) {
            // The FIR has neither an order nor an algorithm: one case at the first order.
            const bool fir = method == GaussianMethod::Fir;
            if (fir && (order != orders.front() || algo != algos.front())) continue;
            FilterSpec spec;
            spec.kind = kind;
            spec.sigma = sigma;
            if (info(kind).params.has(Param::SigmaY)) spec.sigma_y = o.sigma_y;
            spec.order = order;
            spec.ext = ext;
            spec.algo = fir ? Algorithm::Auto : algo;
            spec.gaussian_method = method;
            if (info(kind).params.has(Param::Derivative)) spec.derivative = o.derivative;
            cases.push_back(spec);
          }
  return cases;
}

BenchResult case_row(const FilterSpec& spec, int width, int height, int channels,
                     const std::string& format) {
  BenchResult r;
  r.algo = to_string(spec.algo);
  r.filter = to_string(spec.kind);
  r.sigma = uses_sigma(spec.kind) ? spec.sigma : 0.0;
  r.sigma_y = spec.sigma_y.value_or(0.0);
  r.order = spec.order;
  r.ext = sweeps_extensions(spec.kind) ? to_string(spec.ext) : "-";
  if (info(spec.kind).params.has(Param::GaussianMethod))
    r.gaussian_method = to_string(spec.gaussian_method);
  if (spec.derivative.any())
    r.derivative = to_string(spec.derivative) + (spec.derivative.normalized ? " normalized" : "");
  r.width = width;
  r.height = height;
  r.channels = channels;
  r.format = format;
  return r;
}

void Rows::add(const BenchResult& row) {
  if (progress_) progress_(row);
  rows_.push_back(row);
}

void Rows::add(BenchResult row, const Timing& t) {
  row.ms = t.median_ms;
  row.runs = t.runs;
  if (row.clock.empty()) row.clock = t.clock;
  row.gips = gips(row.width, row.height * std::max(row.depth, 1), row.ms);
  add(row);
}

namespace {

const char* cpu_format(int channels) {
  return bench_format_name(channels == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F);
}

// Read + write bandwidth of a copy of the frame: the floor no filter that reads and writes the
// image once can go below.
void cpu_copy_floor(const Shape& shape, int channels, int iterations, Rows& rows) {
  const std::size_t floats = std::size_t(shape.width) * shape.height * channels;
  std::vector<float> a(floats, 1.0f), b(floats, 0.0f);
  const std::size_t bytes = floats * sizeof(float);
  const int threads = host_copy_threads(bytes);
  Timer timer(Clock::Host);
  const Timing t =
      timer.measure([&] { host_copy(a.data(), b.data(), bytes, threads); }, Repeats{2, iterations});
  BenchResult r;
  r.impl = "copy";
  r.filter = "copy";
  r.ext = "-";
  r.width = shape.width;
  r.height = shape.height;
  r.channels = channels;
  r.format = cpu_format(channels);
  r.gbps = 2.0 * double(bytes) / (t.median_ms * 1e-3) / 1e9;
  rows.add(r, t);
}

// The engine's own stage times of the filter (the column and row passes, or the fully overlapped
// stages), without the staging copies a host frame may need: the warm-up runs first, then the
// median of the timed runs.
Timing time_cpu_case(Engine& engine, Image& in, Image& out, int warmup, int iterations) {
  engine.set_timing(true);
  std::vector<double> ms;
  for (int it = -warmup; it < iterations; ++it) {
    engine.run(in.view(), out.view());
    if (it < 0) continue;
    double filter_ms = 0.0;
    for (const StageTime& t : engine.timings())
      if (t.stage != "convert in" && t.stage != "convert out") filter_ms += t.ms;
    ms.push_back(filter_ms);
  }
  return summarise(ms);
}

// Every case of every kind on one frame of random data.
void bench_cpu_frame(Engine& engine, const BenchOptions& o, const Shape& shape, int channels,
                     Rows& rows) {
  Image in = random_image(shape.width, shape.height, channels,
                          std::uint32_t(shape.width * 7 + shape.height + channels));
  Image out(shape.width, shape.height, channels);
  for (FilterKind kind : o.kinds)
    for (const FilterSpec& spec : bench_cases(o, kind, Backend::Cpu)) {
      engine.plan(spec, shape.width, shape.height,
                  channels == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F);
      BenchResult r = case_row(spec, shape.width, shape.height, channels, cpu_format(channels));
      r.impl = "cpu";
      r.method = engine.method();
      r.ran = engine.algorithm();
      rows.add(r, time_cpu_case(engine, in, out, o.warmup, o.iterations));
    }
}

}  // namespace

std::vector<BenchResult> bench_cpu(const BenchOptions& options,
                                   void (*progress)(const BenchResult&)) {
  const BenchOptions o = with_defaults(options);
  Rows rows(progress);
  auto engine = make_cpu_engine();
  // The copy floor is measured on the largest frame (the first of that many floats).
  std::size_t largest = 0;
  Shape largest_shape;
  int largest_channels = 1;
  for (const Shape& shape : bench_shapes(o))
    for (int channels : o.channels) {
      const std::size_t floats = std::size_t(shape.width) * shape.height * channels;
      if (floats > largest) {
        largest = floats;
        largest_shape = shape;
        largest_channels = channels;
      }
      bench_cpu_frame(*engine, o, shape, channels, rows);
    }
  if (largest) cpu_copy_floor(largest_shape, largest_channels, std::max(o.iterations, 5), rows);
  return rows.take();
}

}  // namespace rf::bench
