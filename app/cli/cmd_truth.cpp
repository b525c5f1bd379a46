// rfcli truth IN OUT <filter options>: the double-precision ground truth of a filter.
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

#include "app/cli/cli.h"
#include "app/io/image_io.h"
#include "filters/recursive/reference.h"
#include "filters/truth/truth.h"

namespace rf::cli {

void add_truth_command(CLI::App& app) {
  struct Args {
    std::string in, out;
    std::optional<int> bits;
    FilterArgs filter;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "truth",
      "Ground truth in double: FIR Gaussian (>= 6 sigma) for the Gaussian kinds, sequential "
      "recursion over a long padding otherwise");
  cmd->add_option("IN", args->in, "input image")->required();
  cmd->add_option("OUT", args->out, "output image (.pfm or .tif --bits 32 keep full precision)")
      ->required();
  add_bits_option(*cmd, args->bits);
  add_filter_options(*cmd, args->filter, false);
  cmd->callback([args] {
    const FilterSpec spec = parse_spec(args->filter);
    output_depth(spec, args->out, args->bits, 32);  // a bad --bits before any work
    if (check_only()) return;
    int in_bits = 8;
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
