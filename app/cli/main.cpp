// rfcli: command-line filtering, ground truth, coefficients, image differences and benchmarks.
// Every error is one line on stderr and exit status 2.
#include <cstdio>
#include <string>

#include "app/cli/cli.h"

namespace {

int fail(const std::string& message) {
  std::string line = message;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "rfcli: %s\n", line.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "rfcli: exact recursive image filtering on the CPU or CUDA (Recursive Filter Studio)"};
  app.require_subcommand(1);
  rf::cli::add_filter_command(app);
  rf::cli::add_truth_command(app);
  rf::cli::add_coeffs_command(app);
  rf::cli::add_diff_command(app);
  rf::cli::add_bench_command(app);
  rf::cli::add_edge_study_command(app);
  rf::cli::add_lee_commands(app);
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
  } catch (const std::exception& e) {
    return fail(e.what());
  } catch (...) {
    return fail("unexpected error");
  }
}
