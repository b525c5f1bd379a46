// rfcli truth IN OUT <filter options>: the double-precision ground truth of a filter, of an image
// or of a volume (a multi-page TIFF) along the axes asked.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "app/cli/cli.h"
#include "app/io/image_io.h"
#include "app/io/volume.h"
#include "filters/recursive/reference.h"
#include "filters/truth/truth.h"

namespace rf::cli {

void add_truth_command(CLI::App& app) {
  struct Args {
    std::string in, out;
    std::optional<int> bits;
    FilterArgs filter;
    std::string axes;
    std::optional<double> sigma_z;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "truth",
      "Ground truth in double: FIR Gaussian (>= 6 sigma) for the Gaussian kinds, sequential "
      "recursion over a long padding otherwise");
  cmd->add_option("IN", args->in, "input image, or a multi-page TIFF (a 3-D volume: see --axes)")
      ->required();
  cmd->add_option("OUT", args->out, "output image (.pfm or .tif --bits 32 keep full precision)")
      ->required();
  add_bits_option(*cmd, args->bits);
  add_filter_options(*cmd, args->filter, false);
  add_volume_options(*cmd, args->axes, args->sigma_z);
  cmd->callback([args] {
    const FilterSpec spec = parse_spec(args->filter);
    output_depth(spec, args->out, args->bits, 32);  // a bad --bits before any work
    volume_axes(args->axes);
    if (check_only()) return;
    int in_bits = 8;
    if (!args->axes.empty() || args->sigma_z || is_tiff_name(args->in)) {
      io::Volume v = io::read_volume(args->in, &in_bits);
      if (v.depth > 1 || !args->axes.empty() || args->sigma_z) {
        std::string named;
        const ArraySpec array =
            volume_spec(spec, volume_axes(args->axes, v.depth), args->sigma_z, &named);
        const auto t0 = std::chrono::steady_clock::now();
        const std::vector<double> truth =
            ground_truth_array(array, {v.depth, v.height, v.width, v.channels},
                               std::vector<double>(v.voxels.begin(), v.voxels.end()));
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        v.voxels.assign(truth.begin(), truth.end());
        io::write_volume(args->out, v, output_depth(spec, args->out, args->bits, in_bits));
        std::printf("%s: ground truth of %s along %s in %.0f ms -> %s\n", args->in.c_str(),
                    describe(spec).c_str(), named.c_str(), ms, args->out.c_str());
        return;
      }
    }
    const Image in = io::read_image(args->in, &in_bits);
    const auto t0 = std::chrono::steady_clock::now();
    const Image out = ground_truth(spec, in);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    io::write_image(args->out, out, output_depth(spec, args->out, args->bits, in_bits));
    std::printf("%s: ground truth of %s in %.0f ms -> %s\n", args->in.c_str(),
                describe(spec).c_str(), ms, args->out.c_str());
  });
}

}  // namespace rf::cli
