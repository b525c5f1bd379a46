// libFuzzer target: rfstudio's command line (rf::gui::parse_options): options, sources, view and
// the preset named by --preset (read before the other options). It returns an exit status (0
// for help, 2 after one line naming the problem) or nothing, with the options filled in.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "app/gui/options.h"
#include "fuzz/args.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rf::fuzz::CommandLine c = rf::fuzz::command_line("rfstudio", data, size);
  rf::gui::StudioOptions options;
  const std::optional<int> status = rf::gui::parse_options(c.argc(), c.argv.data(), &options);
  if (status && *status != 0 && *status != 2) std::abort();
  return 0;
}
