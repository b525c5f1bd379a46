// rfcli lee-table and lee-bench: Table 2 and the speed comparison of Lee et al. 2014
// (one-way vs two-way partitioned YVRG), with our overlapped block-parallel filter alongside.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "app/io/image_io.h"
#include "bench/lee_bench.h"
#include "filters/core/errors.h"
#include "filters/lee2014/lee2014.h"
#include "filters/recursive/reference.h"
#include "filters/truth/truth.h"

namespace rf::cli {
namespace {

using lee2014::Partition;

struct Size {
  int width, height;
  const char* name;
};

// The paper's three image sizes (Sec. 5, Fig. 11).
constexpr Size kPaperSizes[] = {{512, 512, "SD"}, {1280, 720, "HD"}, {1920, 1080, "Full HD"}};

// Table 2 of the paper, for the side-by-side columns: one-way vs two-way, FIR vs one-way, FIR vs
// two-way, per size (SD, HD, Full HD) and window (3, 30, 90).
constexpr double kPaperTable2[3][3][3] = {
    {{29.4, 26.2, 29.7}, {31.1, 32.8, 31.4}, {29.5, 33.4, 29.4}},
    {{33.0, 30.9, 33.6}, {30.6, 39.7, 30.8}, {24.7, 33.0, 26.3}},
    {{30.5, 26.6, 29.2}, {32.9, 36.7, 33.2}, {30.1, 34.8, 31.4}},
};

Size parse_size(const std::string& text) {
  const auto x = text.find('x');
  try {
    if (x != std::string::npos) {
      std::size_t used = 0;
      const int w = std::stoi(text.substr(0, x), &used);
      const int h = std::stoi(text.substr(x + 1));
      if (used == x && w > 0 && h > 0) return {w, h, ""};
    }
  } catch (const std::exception&) {
  }
  throw UsageError("--sizes: '" + text + "' is not WIDTHxHEIGHT");
}

// Gray as the paper compares it: ITU-R BT.601 luma on the 0..255 scale (MAX_I = 255 in eq. 5).
Image gray_255(const Image& in) {
  Image g(in.width, in.height, 1);
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x) {
      const float v = in.channels >= 3 ? 0.299f * in.at(x, y, 0) + 0.587f * in.at(x, y, 1) +
                                             0.114f * in.at(x, y, 2)
                                       : in.at(x, y, 0);
      g.at(x, y) = 255.0f * v;
    }
  return g;
}

// The largest centred crop with the target's aspect ratio, resampled bilinearly (pixel centres
// aligned) to the target size.
Image crop_resize(const Image& in, int width, int height) {
  double cw = in.width, ch = double(in.width) * height / width;
  if (ch > in.height) {
    ch = in.height;
    cw = double(in.height) * width / height;
  }
  const double x0 = 0.5 * (in.width - cw), y0 = 0.5 * (in.height - ch);
  Image out(width, height, in.channels);
  for (int y = 0; y < height; ++y) {
    const double sy = std::clamp(y0 + (y + 0.5) * ch / height - 0.5, 0.0, in.height - 1.0);
    const int iy = std::min(int(sy), in.height - 2 < 0 ? 0 : in.height - 2);
    const double fy = in.height > 1 ? sy - iy : 0.0;
    for (int x = 0; x < width; ++x) {
      const double sx = std::clamp(x0 + (x + 0.5) * cw / width - 0.5, 0.0, in.width - 1.0);
      const int ix = std::min(int(sx), in.width - 2 < 0 ? 0 : in.width - 2);
      const double fx = in.width > 1 ? sx - ix : 0.0;
      const int ix1 = std::min(ix + 1, in.width - 1), iy1 = std::min(iy + 1, in.height - 1);
      for (int c = 0; c < in.channels; ++c) {
        const double top = (1 - fx) * in.at(ix, iy, c) + fx * in.at(ix1, iy, c);
        const double bottom = (1 - fx) * in.at(ix, iy1, c) + fx * in.at(ix1, iy1, c);
        out.at(x, y, c) = float((1 - fy) * top + fy * bottom);
      }
    }
  }
  return out;
}

// The paper's "basic Gaussian filter" read literally (eq. 2): the sampled Gaussian of eq. (1)
// with sigma = N / 2 over the window x - N/2 .. x + N/2 only, normalised to unit sum, rows then
// columns, the edge pixel repeated beyond the image.
std::vector<double> fir_window_literal(const Image& gray, double window) {
  const double sigma = lee2014::sigma_from_window(window);
  const int radius = std::max(1, int(window / 2));
  std::vector<double> g(2 * radius + 1);
  double sum = 0.0;
  for (int j = -radius; j <= radius; ++j)
    sum += g[j + radius] = std::exp(-0.5 * j * j / (sigma * sigma));
  for (double& v : g) v /= sum;
  const int w = gray.width, h = gray.height;
  std::vector<double> a(gray.pixels.begin(), gray.pixels.end()), b(a.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double acc = 0.0;
      for (int j = -radius; j <= radius; ++j)
        acc += g[j + radius] * a[std::size_t(y) * w + std::clamp(x + j, 0, w - 1)];
      b[std::size_t(y) * w + x] = acc;
    }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double acc = 0.0;
      for (int j = -radius; j <= radius; ++j)
        acc += g[j + radius] * b[std::size_t(std::clamp(y + j, 0, h - 1)) * w + x];
      a[std::size_t(y) * w + x] = acc;
    }
  return a;
}

std::vector<double> as_double(const Image& img) {
  return std::vector<double>(img.pixels.begin(), img.pixels.end());
}

void write_json(const std::string& path, const nlohmann::json& rows) {
  if (path.empty()) return;
  std::ofstream f(path);
  if (!f) throw IoError(path + ": cannot write");
  f << rows.dump(2) << "\n";
}

// ---- lee-table -------------------------------------------------------------------------------

struct TableArgs {
  std::vector<std::string> images;
  std::vector<double> windows{3, 30, 90};
  std::string backend = to_string(Backend::Cpu);
  std::string fir = "gaussian";
  std::string json;
};

void add_table_options(CLI::App& cmd, TableArgs& a) {
  cmd.add_option("--images", a.images,
                 "three images for SD, HD and Full HD (centre-cropped to the aspect ratio and "
                 "resampled), or one for all three")
      ->delimiter(',')
      ->required();
  cmd.add_option("--windows", a.windows, "filter windows N (sigma = N / 2)")
      ->delimiter(',')
      ->capture_default_str();
  cmd.add_option("--backend", a.backend,
                 "cpu: the double reference; cuda: the CUDA kernels in float")
      ->capture_default_str();
  cmd.add_option("--fir", a.fir,
                 "gaussian: the FIR ground truth (sigma = N / 2, >= 6 sigma); window: eq. (2) "
                 "read literally, the same Gaussian cut to the window N")
      ->capture_default_str();
  cmd.add_option("--json", a.json, "also write the table as JSON to this file");
}

// The backend that filters: the CPU's double reference or the CUDA kernels.
Backend table_backend(const TableArgs& a) {
  if (a.fir != "gaussian" && a.fir != "window")
    throw UsageError("--fir: gaussian or window (got '" + a.fir + "')");
  if (a.images.size() != 1 && a.images.size() != 3)
    throw UsageError("--images: give one image or three (SD, HD, Full HD)");
  const auto backend = parse_backend(a.backend);
  if (!backend || *backend == Backend::Auto)
    throw UsageError(std::string("--backend: ") + to_string(Backend::Cpu) + " or " +
                     to_string(Backend::Cuda) + " (got '" + a.backend + "')");
  return *backend;
}

// One line of the table: the PSNRs of one image size and window, beside the paper's.
nlohmann::json table_row(const TableArgs& a, Backend backend, int s, const Image& gray,
                         const std::string& source, double window) {
  const Size size = kPaperSizes[s];
  const double sigma = lee2014::sigma_from_window(window);
  FilterSpec spec;
  spec.kind = FilterKind::Yvrg;
  spec.sigma = sigma;
  spec.ext = Extension::Clamp;  // the FIR counterpart of duplicating the edge pixel
  const auto fir =
      a.fir == "window" ? fir_window_literal(gray, window) : as_double(ground_truth(spec, gray));
  std::vector<double> one, two;
  if (backend == Backend::Cuda) {
    one = as_double(bench::lee_cuda(Partition::OneWay, sigma, gray));
    two = as_double(bench::lee_cuda(Partition::TwoWay, sigma, gray));
  } else {
    one = lee2014::reference(Partition::OneWay, sigma, gray);
    two = lee2014::reference(Partition::TwoWay, sigma, gray);
  }
  const double p12 = lee2014::psnr(one, two, 255.0);
  const double pf1 = lee2014::psnr(fir, one, 255.0);
  const double pf2 = lee2014::psnr(fir, two, 255.0);
  const int w = window == 3 ? 0 : window == 30 ? 1 : window == 90 ? 2 : -1;
  char paper[64] = "| - | - | -";
  if (w >= 0)
    std::snprintf(paper, sizeof(paper), "| %.1f | %.1f | %.1f", kPaperTable2[s][w][0],
                  kPaperTable2[s][w][1], kPaperTable2[s][w][2]);
  std::printf("| %s | %dx%d | %s | %g | %g | %.1f | %.1f | %.1f %s |\n", size.name, size.width,
              size.height, source.c_str(), window, sigma, p12, pf1, pf2, paper);
  std::fflush(stdout);
  return {{"image", size.name},
          {"width", size.width},
          {"height", size.height},
          {"source", source},
          {"window", window},
          {"sigma", sigma},
          {"backend", to_string(backend)},
          {"fir", a.fir},
          {"psnr_one_two", p12},
          {"psnr_fir_one", pf1},
          {"psnr_fir_two", pf2}};
}

void run_table(const TableArgs& a, Backend backend) {
  std::printf(
      "| image | size | source | window N | sigma | one-way vs two-way | FIR vs one-way | FIR "
      "vs two-way | paper: 1w vs 2w | FIR vs 1w | FIR vs 2w |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n");
  nlohmann::json rows = nlohmann::json::array();
  for (int s = 0; s < 3; ++s) {
    const Size size = kPaperSizes[s];
    const std::string& path = a.images[a.images.size() == 1 ? 0 : s];
    const Image gray = crop_resize(gray_255(io::read_image(path)), size.width, size.height);
    const std::string source = path.substr(path.find_last_of('/') + 1);
    for (double window : a.windows) rows.push_back(table_row(a, backend, s, gray, source, window));
  }
  write_json(a.json, rows);
}

void add_table_command(CLI::App& app) {
  auto args = std::make_shared<TableArgs>();
  CLI::App* cmd = app.add_subcommand(
      "lee-table",
      "Table 2 of Lee et al. 2014: PSNR between one-way, two-way and the FIR Gaussian on gray "
      "SD 512x512, HD 1280x720 and Full HD 1920x1080 images (window N = 2 sigma)");
  add_table_options(*cmd, *args);
  cmd->callback([args] {
    const Backend backend = table_backend(*args);
    if (check_only()) return;
    run_table(*args, backend);
  });
}

// ---- lee-bench -------------------------------------------------------------------------------

struct LeeBenchArgs {
  std::vector<std::string> sizes{"256x256",   "512x512",   "1280x720",
                                 "1920x1080", "3840x2160", "8192x8192"};
  double window = 30;
  int channels = 1;
  int runs = 100;
  std::vector<int> lines_per_block{bench::kLeeLinesPerBlock};
  bool no_overlapped = false;
  std::string json;
};

void add_lee_bench_options(CLI::App& cmd, LeeBenchArgs& a) {
  cmd.add_option("--sizes", a.sizes, "WIDTHxHEIGHT list")->delimiter(',')->capture_default_str();
  cmd.add_option("--window", a.window, "filter window N (sigma = N / 2)")->capture_default_str();
  cmd.add_option("--channels", a.channels, "1 or 4")->capture_default_str();
  cmd.add_option("--runs", a.runs, "timed runs per case (>= 100 for reported figures)")
      ->capture_default_str();
  cmd.add_option("--lines-per-block", a.lines_per_block,
                 "lines per CUDA block (the paper's Fig. 9 and 11 sweep it)")
      ->delimiter(',')
      ->capture_default_str();
  cmd.add_flag("--no-overlapped", a.no_overlapped, "skip the overlapped engine");
  cmd.add_option("--json", a.json, "also write the results as JSON to this file");
}

// The median ms of our overlapped engine for the same yvrg, or 0 with `error` set: a failure of
// the engine is reported in its column, and the Lee timings still run.
double overlapped_ms(const LeeBenchArgs& a, const Size& s, double sigma, std::string& error) {
  FilterSpec spec;
  spec.kind = FilterKind::Yvrg;
  spec.sigma = sigma;
  spec.ext = Extension::Clamp;
  spec.algo = Algorithm::Auto;
  spec.backend = Backend::Cuda;
  try {
    return bench::time_cuda_engine(spec, s.width, s.height, a.channels, a.runs).median_ms;
  } catch (const std::exception& e) {
    error = e.what();
    std::fprintf(stderr, "rfcli: overlapped engine at %dx%d: %s\n", s.width, s.height, e.what());
    return 0.0;
  }
}

// One line per lines-per-block value: one-way and two-way beside the overlapped engine.
void lee_bench_size(const LeeBenchArgs& a, const Size& s, double sigma, const std::string& device,
                    int sms, nlohmann::json& rows) {
  std::string overlapped_error;
  const double overlapped = a.no_overlapped ? 0.0 : overlapped_ms(a, s, sigma, overlapped_error);
  for (int lpb : a.lines_per_block) {
    const auto one =
        bench::time_lee(Partition::OneWay, sigma, s.width, s.height, a.channels, a.runs, lpb);
    const auto two =
        bench::time_lee(Partition::TwoWay, sigma, s.width, s.height, a.channels, a.runs, lpb);
    const long lines = long(s.height) * a.channels;
    const double gips = double(s.width) * s.height / (two.median_ms * 1e-3) / double(1 << 30);
    char over[64] = "| - | -";
    if (!a.no_overlapped && overlapped_error.empty())
      std::snprintf(over, sizeof(over), "| %.3f | %.1fx", overlapped, two.median_ms / overlapped);
    std::printf("| %dx%d | %d | %ld | %ld / %ld | %.3f | %.3f | %.2fx %s | %.2f |\n", s.width,
                s.height, lpb, lines, lines, 3 * lines, one.median_ms, two.median_ms,
                one.median_ms / two.median_ms, over, gips);
    std::fflush(stdout);
    rows.push_back({{"device", device},
                    {"sms", sms},
                    {"width", s.width},
                    {"height", s.height},
                    {"channels", a.channels},
                    {"sigma", sigma},
                    {"lines_per_block", lpb},
                    {"runs", a.runs},
                    {"one_way_ms", one.median_ms},
                    {"two_way_ms", two.median_ms},
                    {"overlapped_ms", overlapped}});
  }
}

void run_lee_bench(const LeeBenchArgs& a, const std::vector<Size>& sizes) {
  int sms = 0;
  const std::string device = bench::device_summary(&sms);
  const double sigma = lee2014::sigma_from_window(a.window);
  std::printf(
      "# %s; yvrg sigma %g (window %g), %d channel(s); median of %d runs, CUDA events around "
      "the filter only\n",
      device.c_str(), sigma, a.window, a.channels, a.runs);
  std::printf(
      "| size | lines/block | row lines | threads 1-way / 2-way (rows) | one-way ms | two-way ms "
      "| 2-way speedup | overlapped ms | overlapped vs 2-way | 2-way GiP/s |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  nlohmann::json rows = nlohmann::json::array();
  for (const Size& s : sizes) lee_bench_size(a, s, sigma, device, sms, rows);
  write_json(a.json, rows);
}

void add_bench_lee_command(CLI::App& app) {
  auto args = std::make_shared<LeeBenchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "lee-bench",
      "CUDA speed of Lee et al. 2014 one-way vs two-way, and of our overlapped filter for the same "
      "yvrg: CUDA events around the filter only (no upload or readback), median of the runs after "
      "10 warm-up runs, random data");
  add_lee_bench_options(*cmd, *args);
  cmd->callback([args] {
    if (args->channels != 1 && args->channels != 4) throw UsageError("--channels: 1 or 4");
    std::vector<Size> sizes;
    for (const auto& s : args->sizes) sizes.push_back(parse_size(s));
    if (check_only()) return;
    run_lee_bench(*args, sizes);
  });
}

}  // namespace

void add_lee_commands(CLI::App& app) {
  add_table_command(app);
  add_bench_lee_command(app);
}

}  // namespace rf::cli
