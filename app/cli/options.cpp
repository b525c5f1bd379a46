#include "app/cli/cli.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "app/io/image_io.h"
#include "filters/core/filter_table.h"

namespace rf::cli {
namespace {

std::string sigma_text(double sigma) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", sigma);
  return buf;
}

}  // namespace

void add_filter_options(CLI::App& cmd, FilterArgs& a, bool with_backend) {
  const OptionHelp& help = option_help();
  cmd.add_option("--filter", a.filter, help.filter)->capture_default_str();
  cmd.add_option_function<std::string>(
         "--sigma", [&a](const std::string& text) { set_sigmas(a, text); }, help.sigma)
      ->type_name("SIGMA|SX,SY")
      ->default_str(sigma_text(a.sigma));
  cmd.add_option("--order", a.order, help.order);
  cmd.add_option("--pole", a.pole, help.pole)->capture_default_str();
  cmd.add_option("--ext", a.ext, help.ext);
  cmd.add_option("--cval", a.cval, help.cval);
  cmd.add_option("--derivative", a.derivative, help.derivative)
      ->type_name("DX,DY|gradient|laplacian")
      ->capture_default_str();
  cmd.add_flag("--normalized", a.normalized,
               "scale-normalised derivatives: each partial times sigma^order along its axis");
  cmd.add_option("--sigma-r", a.sigma_r, help.sigma_r)->capture_default_str();
  cmd.add_option("--kappa", a.kappa, help.kappa)->capture_default_str();
  cmd.add_option("--iterations", a.iterations, help.iterations)->capture_default_str();
  cmd.add_option("--algo", a.algo, help.algo)->capture_default_str();
  if (with_backend) cmd.add_option("--backend", a.backend, help.backend)->capture_default_str();
}

static const char* const kBitsHelp =
    "sample depth of the output: 8 or 16 (PNG, TIFF), 32 = float32 (TIFF; PFM and HDR are always "
    "float; JPEG, BMP, TGA 8). Default: the input's depth where the output format stores it, else "
    "the nearest below (float in -> 16-bit PNG), else the format's smallest";

void add_bits_option(CLI::App& cmd, std::optional<int>& bits) {
  cmd.add_option("--bits", bits, kBitsHelp)->check(CLI::IsMember({8, 16, 32}));
}

int output_bits(const std::string& out, std::optional<int> bits, int input_bits) {
  const std::vector<int> depths = io::output_depths(out);
  if (!bits) {
    int pick = depths.front();
    for (int d : depths)
      if (d <= input_bits) pick = d;
    return pick;
  }
  if (std::find(depths.begin(), depths.end(), *bits) != depths.end()) return *bits;
  std::string list;
  for (int d : depths) list += (list.empty() ? "" : " or ") + std::to_string(d);
  throw UsageError("--bits " + std::to_string(*bits) + ": " + out + " is written with " + list +
                   " bits (16: .png, .tif; 32: .tif, .pfm, .hdr)");
}

int output_depth(const FilterSpec& spec, const std::string& out, std::optional<int> bits,
                 int in_bits) {
  if (!spec.derivative.any()) return output_bits(out, bits, in_bits);
  const int depth = output_bits(out, bits, 32);
  if (depth != 32)
    throw UsageError("--derivative " + to_string(spec.derivative) + ": " + out +
                     " would be written with " + std::to_string(depth) +
                     " bits, but a derivative's values are signed: write a float image (.tif, "
                     ".pfm)");
  return depth;
}

Image run_engine(Engine& engine, const FilterSpec& spec, Image in, double* filter_ms) {
  engine.set_timing(true);
  Image out = filter_image(engine, spec, std::move(in));
  if (filter_ms) {
    *filter_ms = 0.0;
    for (const StageTime& t : engine.timings()) *filter_ms += t.ms;
  }
  return out;
}

}  // namespace rf::cli
