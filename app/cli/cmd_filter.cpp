// rfcli filter IN OUT <filter options>: filter an image with the chosen backend.
#include <cstdio>
#include <memory>

#include "app/cli/cli.h"
#include "app/io/image_io.h"

namespace rf::cli {

void add_filter_command(CLI::App& app) {
  struct Args {
    std::string in, out;
    FilterArgs filter;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("filter", "Filter an image (PNG, JPEG, BMP, TGA, HDR, PFM)");
  cmd->add_option("IN", args->in, "input image")->required();
  cmd->add_option("OUT", args->out, "output image; the format follows the extension")->required();
  add_filter_options(*cmd, args->filter, true);
  cmd->callback([args] {
    const FilterSpec spec = parse_spec(args->filter);
    if (check_only()) return;
    Image img = io::read_image(args->in);
    const int width = img.width, height = img.height, channels = img.channels;
    std::string note;
    auto engine = make_engine(spec.backend, &note);
    double ms = 0.0;
    // In place: the peak memory is the float image once, plus the output file's encoding.
    img = run_engine(*engine, spec, std::move(img), &ms);
    io::write_image(args->out, img);
    std::printf("%s: %dx%d, %d channel%s, %s on %s in %.2f ms -> %s\n", args->in.c_str(), width,
                height, channels, channels == 1 ? "" : "s", describe(spec).c_str(),
                engine->description().c_str(), ms, args->out.c_str());
    // Said after the work, so that an error stays the only line on stderr.
    if (!note.empty()) std::printf("note: %s\n", note.c_str());
  });
}

}  // namespace rf::cli
