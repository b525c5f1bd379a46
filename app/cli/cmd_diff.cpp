// rfcli diff A B [--border PX]: how far apart two images are, over the whole image, a band of PX
// pixels along the border (where extension errors live) and the interior.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "app/io/image_io.h"

namespace rf::cli {
namespace {

struct Stats {
  long long samples = 0;
  double max_abs = 0.0;
  double sum_sq = 0.0;

  void add(double d) {
    ++samples;
    max_abs = std::max(max_abs, std::abs(d));
    sum_sq += d * d;
  }
  double rmse() const { return samples ? std::sqrt(sum_sq / samples) : 0.0; }
  // Peak 1: 8-bit images are read on [0, 1], and float images are compared on that scale.
  double psnr() const { return 20.0 * std::log10(1.0 / rmse()); }
};

nlohmann::json to_json(const Stats& s) {
  if (!s.samples) return nullptr;
  nlohmann::json j;
  j["samples"] = s.samples;
  j["max_abs"] = s.max_abs;
  j["rmse"] = s.rmse();
  // JSON has no infinity: identical regions report a null PSNR.
  j["psnr"] = s.rmse() > 0.0 ? nlohmann::json(s.psnr()) : nlohmann::json(nullptr);
  return j;
}

void print_region(const char* name, const Stats& s) {
  if (!s.samples) {
    std::printf("%-10s %12s %12s %10s %12s\n", name, "-", "-", "-", "0");
    return;
  }
  char psnr[32];
  if (s.rmse() > 0.0)
    std::snprintf(psnr, sizeof psnr, "%.2f", s.psnr());
  else
    std::snprintf(psnr, sizeof psnr, "inf");
  std::printf("%-10s %12.4g %12.4g %10s %12lld\n", name, s.max_abs, s.rmse(), psnr, s.samples);
}

struct DiffArgs {
  std::string a, b;
  std::optional<int> border;
  std::optional<double> sigma;
  bool json = false;
};

// The band's width: --border, else 3 sigma with --sigma, else 8.
int border_width(const DiffArgs& a) {
  if (a.border) {
    if (*a.border < 0) throw UsageError("--border: must be >= 0");
    return *a.border;
  }
  if (a.sigma) {
    if (!(*a.sigma > 0.0) || *a.sigma > 1e6) throw UsageError("--sigma: must be a positive number");
    return int(std::ceil(3.0 * *a.sigma));
  }
  return 8;
}

// The differences of two images of one size, over the whole, the border band and the interior.
struct Regions {
  Stats whole, band, interior;
};

Regions compare(const Image& a, const Image& b, int border) {
  Regions r;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) {
      const bool in_band =
          x < border || y < border || x >= a.width - border || y >= a.height - border;
      for (int c = 0; c < a.channels; ++c) {
        const double d = double(a.at(x, y, c)) - double(b.at(x, y, c));
        r.whole.add(d);
        (in_band ? r.band : r.interior).add(d);
      }
    }
  return r;
}

void print_json(const DiffArgs& args, const Image& a, int border, const Regions& r) {
  nlohmann::json j;
  j["a"] = args.a;
  j["b"] = args.b;
  j["width"] = a.width;
  j["height"] = a.height;
  j["channels"] = a.channels;
  j["border"] = border;
  j["whole"] = to_json(r.whole);
  j["border_band"] = to_json(r.band);
  j["interior"] = to_json(r.interior);
  std::printf("%s\n", j.dump(2).c_str());
}

void print_table(const DiffArgs& args, const Image& a, int border, const Regions& r) {
  std::printf("%s vs %s: %dx%d, %d channel%s, border band %d px\n", args.a.c_str(), args.b.c_str(),
              a.width, a.height, a.channels, a.channels == 1 ? "" : "s", border);
  std::printf("%-10s %12s %12s %10s %12s\n", "region", "max abs", "rmse", "psnr dB", "samples");
  print_region("whole", r.whole);
  print_region("border", r.band);
  print_region("interior", r.interior);
}

void run_diff(const DiffArgs& args) {
  const int border = border_width(args);
  if (check_only()) return;
  const Image a = io::read_image(args.a);
  const Image b = io::read_image(args.b);
  if (a.width != b.width || a.height != b.height || a.channels != b.channels)
    throw UsageError(args.b + ": " + std::to_string(b.width) + "x" + std::to_string(b.height) +
                     "x" + std::to_string(b.channels) + " does not match " + args.a + " (" +
                     std::to_string(a.width) + "x" + std::to_string(a.height) + "x" +
                     std::to_string(a.channels) + ")");
  const Regions r = compare(a, b, border);
  if (args.json)
    print_json(args, a, border, r);
  else
    print_table(args, a, border, r);
}

}  // namespace

void add_diff_command(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Max abs, RMSE and PSNR (peak 1) over the whole image, its border band and interior");
  cmd->add_option("A", args->a, "first image")->required();
  cmd->add_option("B", args->b, "second image")->required();
  cmd->add_option("--border", args->border,
                  "width of the border band in pixels (default 3 sigma with --sigma, else 8)");
  cmd->add_option("--sigma", args->sigma, "the filter's sigma, to size the border band");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->callback([args] { run_diff(*args); });
}

}  // namespace rf::cli
