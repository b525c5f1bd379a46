// rfcli filter IN OUT <filter options>: filter an image with the chosen backend.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "app/cli/cli.h"
#include "app/io/image_io.h"

namespace rf::cli {
namespace {

struct Args {
  std::string in, out;
  std::optional<int> bits;
  FilterArgs filter;
};

// Reads `in`, filters it with `engine` and writes `out`; returns the line rfcli prints for it.
std::string filter_file(Engine& engine, const FilterSpec& spec, const std::string& in,
                        const std::string& out, std::optional<int> bits) {
  int in_bits = 8;
  Image img = io::read_image(in, &in_bits);
  const int width = img.width, height = img.height, channels = img.channels;
  const int out_bits = output_bits(out, bits, in_bits);
  double ms = 0.0;
  // In place: the peak memory is the float image once, plus the output file's encoding.
  img = run_engine(engine, spec, std::move(img), &ms);
  io::write_image(out, img, out_bits);
  char line[64];
  std::snprintf(line, sizeof line, " in %.2f ms -> ", ms);
  return in + ": " + std::to_string(width) + "x" + std::to_string(height) + ", " +
         std::to_string(channels) + " channel" + (channels == 1 ? "" : "s") + ", " +
         describe(spec) + " on " + engine.description() + line + out + ", " +
         std::to_string(out_bits) + (out_bits == 32 ? "-bit float" : "-bit");
}

void filter_one(const Args& a, const FilterSpec& spec) {
  std::string note;
  auto engine = make_engine(spec.backend, &note);
  std::printf("%s\n", filter_file(*engine, spec, a.in, a.out, a.bits).c_str());
  // Said after the work, so that an error stays the only line on stderr.
  if (!note.empty()) std::printf("note: %s\n", note.c_str());
}

}  // namespace

void add_filter_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd =
      app.add_subcommand("filter", "Filter an image (PNG, JPEG, BMP, TGA, HDR, TIFF, PFM)");
  cmd->add_option("IN", args->in, "input image")->required();
  cmd->add_option("OUT", args->out, "output image; the format follows the extension")->required();
  add_bits_option(*cmd, args->bits);
  add_filter_options(*cmd, args->filter, true);
  cmd->callback([args] {
    const FilterSpec spec = parse_spec(args->filter);
    output_bits(args->out, args->bits, 32);  // a bad --bits before any work
    if (check_only()) return;
    filter_one(*args, spec);
  });
}

}  // namespace rf::cli
