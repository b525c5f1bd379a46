// rfcli's command line, parsed and run: every error is one line on stderr and exit status 2.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "app/cli/cli.h"
#include "filters/core/errors.h"

namespace rf::cli {
namespace {

bool g_check_only = false;

int fail(const std::string& message) {
  std::string line = message;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "rfcli: %s\n", line.c_str());
  return 2;
}

}  // namespace

void set_check_only(bool enabled) {
  g_check_only = enabled;
}
bool check_only() {
  return g_check_only;
}

int run(int argc, const char* const* argv) {
  CLI::App app{
      "rfcli: exact recursive image filtering on the CPU or CUDA (Recursive Filter Studio)"};
  app.require_subcommand(1);
  add_filter_command(app);
  add_truth_command(app);
  add_coeffs_command(app);
  add_diff_command(app);
  add_bench_command(app);
  add_edge_study_command(app);
  add_lee_commands(app);
  try {
    // CLI11 reports a mistyped subcommand as a missing one; name it instead.
    if (argc > 1 && argv[1][0] != '-') {
      bool known = false;
      std::string names;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        known = known || sub->get_name() == argv[1];
        names += (names.empty() ? "" : ", ") + sub->get_name();
      }
      if (!known) return fail(std::string("unknown subcommand '") + argv[1] + "' (" + names + ")");
    }
    app.parse(argc, argv);
    return 0;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(e.what());
  } catch (const std::bad_alloc&) {
    return fail("out of memory");
  } catch (const DeviceError& e) {
    return fail(std::string(e.what()) + "; --backend cpu filters without the GPU");
  } catch (const std::exception& e) {
    return fail(e.what());
  } catch (...) {
    return fail("unexpected error");
  }
}

}  // namespace rf::cli
