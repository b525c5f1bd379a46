// libFuzzer target: rfcli's command line, parsed and checked by every subcommand (rf::cli::run
// in check-only mode: no file is read or written and no measurement starts). Exit status 0 or
// 2 with one line is the contract; a crash, a sanitizer report or another status is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "app/cli/cli.h"
#include "fuzz/args.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rf::cli::set_check_only(true);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const rf::fuzz::CommandLine c = rf::fuzz::command_line("rfcli", data, size);
  const int status = rf::cli::run(c.argc(), c.argv.data());
  if (status != 0 && status != 2) std::abort();
  return 0;
}
