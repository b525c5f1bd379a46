// rfcli filter IN OUT <filter options>: filter an image with the chosen backend, every image of a
// folder into another folder, or a volume (a multi-page TIFF) along the axes asked.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "app/io/image_io.h"
#include "app/io/volume.h"
#include "filters/core/array.h"
#include "filters/core/errors.h"

namespace rf::cli {
namespace {

namespace fs = std::filesystem;

struct FilterCommandArgs {
  std::string in, out;
  std::optional<int> bits;
  FilterArgs filter;
  std::string axes;               // --axes: "x,y", "x,y,z", ... (empty: the input's own)
  std::optional<double> sigma_z;  // --sigma-z: through the pages (default: the sigma along x)
};

// The line rfcli prints for a file filtered:
//   IN: SIZE, C channels, FILTER on ENGINE in T ms -> OUT, B-bit
std::string summary(const std::string& in, const std::string& size, int channels,
                    const std::string& filter, const std::string& engine, double ms,
                    const std::string& out, int out_bits) {
  char time[48];
  std::snprintf(time, sizeof time, " in %.2f ms -> ", ms);
  return in + ": " + size + ", " + std::to_string(channels) + " channel" +
         (channels == 1 ? "" : "s") + ", " + filter + " on " + engine + time + out + ", " +
         std::to_string(out_bits) + (out_bits == 32 ? "-bit float" : "-bit");
}

// A volume (depth pages of width x height) filtered along `axes` (z 0, y 1, x 2) with `spec`:
// its sigma along x and y, sigma_z through the pages, its derivative's orders along x and y (a
// measure over the axes filtered).
std::string filter_volume(const FilterCommandArgs& a, const FilterSpec& spec, io::Volume v,
                          int in_bits, const std::vector<int>& axes) {
  std::string named;
  const ArraySpec array = volume_spec(spec, axes, a.sigma_z, &named);
  const int out_bits = output_depth(spec, a.out, a.bits, in_bits);
  ArrayFilter filter(array, {v.depth, v.height, v.width, v.channels}, spec.backend);
  const auto t0 = std::chrono::steady_clock::now();
  filter.run(v.voxels.data(), v.voxels.data());
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  io::write_volume(a.out, v, out_bits);
  char z[48] = "";
  if (a.sigma_z) std::snprintf(z, sizeof z, ", sigma_z %g", *a.sigma_z);
  return summary(a.in,
                 std::to_string(v.width) + "x" + std::to_string(v.height) + "x" +
                     std::to_string(v.depth) + " volume",
                 v.channels, describe(spec) + z + ", along " + named, filter.description(), ms,
                 a.out, out_bits);
}

// Reads `in`, filters it with `engine` and writes `out`; returns the line rfcli prints for it.
// The engine plans only when the size or channel count changes, so a folder of same-sized images
// is filtered with one plan.
std::string filter_file(Engine& engine, const FilterSpec& spec, const std::string& in,
                        const std::string& out, std::optional<int> bits) {
  int in_bits = 8;
  Image img = io::read_image(in, &in_bits);
  const int width = img.width, height = img.height, channels = img.channels;
  const int out_bits = output_depth(spec, out, bits, in_bits);
  double ms = 0.0;
  // In place: the peak memory is the float image once, plus the output file's encoding.
  img = run_engine(engine, spec, std::move(img), &ms);
  io::write_image(out, img, out_bits);
  // What auto (--algo or --gaussian-method) ran, resolved: "..., method auto: FIR radius 4",
  // "gaussian order 3 sigma 4, mirror: recursive order 3 by lines in shared memory".
  const bool resolved =
      spec.algo == Algorithm::Auto || spec.gaussian_method != GaussianMethod::Recursive;
  const std::string what = describe(spec) + (resolved ? ": " + method_line(engine) : std::string());
  return summary(in, std::to_string(width) + "x" + std::to_string(height), channels, what,
                 engine.description(), ms, out, out_bits);
}

// The images of a folder, by name: regular files with an extension read_image() reads; hidden
// files, subfolders and other files are left alone.
std::vector<std::string> list_images(const std::string& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name[0] != '.' && e.is_regular_file() && io::has_image_extension(name))
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  if (names.empty())
    throw UsageError(dir + ": no images in this folder (" + io::kImageExtensions + ")");
  return names;
}

// The output folder, created if missing; never the input folder, whose images it would replace.
void prepare_output_folder(const std::string& in, const std::string& out) {
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    throw UsageError(out + ": not a folder (IN is a folder, so OUT must be one too)");
  fs::create_directories(out, ec);
  if (ec) throw UsageError(out + ": cannot create the folder (" + ec.message() + ")");
  if (fs::equivalent(in, out, ec))
    throw UsageError(out + ": is the input folder; the outputs would replace the inputs");
}

// One line on stderr for a file that failed, naming it; the batch goes on.
void report_failure(const std::string& in, const std::string& out, const std::string& what) {
  const bool named = what.rfind(in + ":", 0) == 0 || what.rfind(out + ":", 0) == 0;
  std::string line = named ? what : in + ": " + what;
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::fprintf(stderr, "rfcli: %s\n", line.c_str());
}

void filter_folder(const FilterCommandArgs& a, const FilterSpec& spec) {
  const std::vector<std::string> names = list_images(a.in);
  // A --bits the output format cannot store is refused before anything is written.
  for (const std::string& name : names) output_depth(spec, name, a.bits, 32);
  prepare_output_folder(a.in, a.out);
  std::string note;
  auto engine = make_engine(spec.backend, &note);
  std::size_t failed = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string in = (fs::path(a.in) / names[i]).string();
    const std::string out = (fs::path(a.out) / names[i]).string();
    std::fprintf(stderr, "[%zu/%zu] %s\n", i + 1, names.size(), names[i].c_str());
    try {
      std::printf("%s\n", filter_file(*engine, spec, in, out, a.bits).c_str());
    } catch (const DeviceError&) {
      throw;  // the device, not the file: the files after it would fail the same way
    } catch (const std::bad_alloc&) {
      report_failure(in, out, "out of memory");
      ++failed;
    } catch (const std::exception& e) {
      report_failure(in, out, e.what());
      ++failed;
    }
  }
  if (!note.empty()) std::printf("note: %s\n", note.c_str());
  if (failed)
    throw UsageError(std::to_string(failed) + " of " + std::to_string(names.size()) +
                     " images failed; the others are in " + a.out);
  std::printf("%zu images -> %s\n", names.size(), a.out.c_str());
}

void filter_one(const FilterCommandArgs& a, const FilterSpec& spec) {
  // A TIFF may be a stack of pages; --axes filters any image as a volume.
  if (!a.axes.empty() || a.sigma_z || is_tiff_name(a.in)) {
    int bits = 8;
    io::Volume v = io::read_volume(a.in, &bits);
    if (v.depth > 1 || !a.axes.empty() || a.sigma_z) {
      const std::vector<int> axes = volume_axes(a.axes, v.depth);
      std::printf("%s\n", filter_volume(a, spec, std::move(v), bits, axes).c_str());
      return;
    }
  }
  std::string note;
  auto engine = make_engine(spec.backend, &note);
  std::printf("%s\n", filter_file(*engine, spec, a.in, a.out, a.bits).c_str());
  // Said after the work, so that an error stays the only line on stderr.
  if (!note.empty()) std::printf("note: %s\n", note.c_str());
}

}  // namespace

void add_filter_command(CLI::App& app) {
  auto args = std::make_shared<FilterCommandArgs>();
  CLI::App* cmd = app.add_subcommand(
      "filter",
      "Filter an image (PNG, JPEG, BMP, TGA, HDR, TIFF, PFM), or every image of a folder");
  cmd->add_option(
         "IN", args->in,
         "input image, a multi-page TIFF (a 3-D volume: see --axes), or a folder of images")
      ->required();
  cmd->add_option("OUT", args->out,
                  "output image, its format following the extension; for a folder IN, the output "
                  "folder (created if missing): each image is written under its own name, in its "
                  "own format, a progress line on stderr; a file that fails is one line there, "
                  "the others go on, and the exit status is 2")
      ->required();
  add_bits_option(*cmd, args->bits);
  add_filter_options(*cmd, args->filter, true);
  add_volume_options(*cmd, args->axes, args->sigma_z);
  cmd->callback([args] {
    const FilterSpec spec = parse_spec(args->filter);
    std::error_code ec;
    const bool folder = fs::is_directory(args->in, ec);
    volume_axes(args->axes);  // a mistake before any work
    if (folder && (!args->axes.empty() || args->sigma_z))
      throw UsageError("--axes, --sigma-z: for one image or volume, not a folder");
    if (!folder) output_bits(args->out, args->bits, 32);  // a bad --bits before any work
    if (check_only()) return;
    if (folder)
      filter_folder(*args, spec);
    else
      filter_one(*args, spec);
  });
}

}  // namespace rf::cli
