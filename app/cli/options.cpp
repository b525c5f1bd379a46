#include "app/cli/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
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
  cmd.add_option("--gaussian-method", a.gaussian_method, help.gaussian_method)
      ->capture_default_str();
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

void add_volume_options(CLI::App& cmd, std::string& axes, std::optional<double>& sigma_z) {
  cmd.add_option("--axes", axes,
                 "the axes to filter, of x (along rows), y (down columns) and z (through the "
                 "pages of a multi-page TIFF, a 3-D volume): x,y for an image, x,y,z for a "
                 "volume by default; z alone filters through the pages, x,y each page apart. "
                 "The volume is written as a multi-page TIFF (.tif)")
      ->type_name("x,y,z");
  cmd.add_option("--sigma-z", sigma_z,
                 "sigma through the pages of a volume (default: the sigma along x)");
}

std::vector<int> volume_axes(const std::string& text, int depth) {
  if (text.empty()) return depth > 1 ? std::vector<int>{2, 1, 0} : std::vector<int>{2, 1};
  std::vector<int> axes;
  std::string names = text;
  std::replace(names.begin(), names.end(), ',', ' ');
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == ' ') continue;
    const char name = char(std::tolower(static_cast<unsigned char>(names[i])));
    const bool alone = i + 1 == names.size() || names[i + 1] == ' ';
    const int axis = name == 'z' ? 0 : name == 'y' ? 1 : name == 'x' ? 2 : -1;
    if (axis < 0 || !alone)
      throw UsageError("--axes '" + text + "': name the axes x, y and z, e.g. x,y or x,y,z");
    if (std::find(axes.begin(), axes.end(), axis) != axes.end())
      throw UsageError("--axes '" + text + "': " + name + " is given twice");
    axes.push_back(axis);
  }
  if (axes.empty()) throw UsageError("--axes '" + text + "': no axis (x, y, z)");
  return axes;
}

bool is_tiff_name(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".tif" || ext == ".tiff";
}

ArraySpec volume_spec(const FilterSpec& spec, const std::vector<int>& axes,
                      std::optional<double> sigma_z, std::string* named) {
  ArraySpec array;
  array.filter = spec;
  const bool partial = spec.derivative.measure == Derivative::Measure::Partial;
  named->clear();
  for (int axis : axes) {
    AxisPass p;
    p.axis = axis;
    p.ext = spec.ext;
    p.sigma = axis == 0   ? sigma_z.value_or(spec.sigma)
              : axis == 1 ? sigma_along(spec, Axis::Y)
                          : sigma_along(spec, Axis::X);
    p.derivative = !partial || axis == 0 ? 0 : axis == 1 ? spec.derivative.y : spec.derivative.x;
    array.passes.push_back(p);
    *named += std::string(named->empty() ? "" : ",") + (axis == 0 ? "z" : axis == 1 ? "y" : "x");
  }
  const auto missing = [&](int axis) {
    return std::find(axes.begin(), axes.end(), axis) == axes.end();
  };
  if (partial && ((spec.derivative.x && missing(2)) || (spec.derivative.y && missing(1))))
    throw UsageError("--derivative " + to_string(spec.derivative) + ": along an axis not among " +
                     "--axes " + *named);
  return array;
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
