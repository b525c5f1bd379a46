// rfcli's subcommands and the filter options they share. Each subcommand lives in its own file
// and registers its options and its action with add_*_command().
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <stdexcept>
#include <string>

#include "filters/core/engine.h"
#include "filters/core/spec.h"

namespace rf::cli {

// A command-line mistake that is not a parse error: a bad value, mismatched inputs. main() prints
// it as one line and exits with status 2, like every other error.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The options every filtering subcommand shares, as typed on the command line.
struct FilterArgs {
  std::string filter = "gaussian";
  double sigma = 4.0;
  std::optional<int> order;  // default: 2 for deriche, 3 otherwise
  double pole = 0.5;
  std::optional<std::string> ext;  // default: zero for sat, mirror otherwise
  double sigma_r = 0.2;
  double kappa = 2.0;
  int iterations = 2;
  std::string algo = "auto";
  std::string backend = "auto";
};

void add_filter_options(CLI::App& cmd, FilterArgs& args, bool with_backend);

// Throws UsageError naming the option for unknown names; values are checked by rf::validate().
FilterSpec to_spec(const FilterArgs& args);

// Filters a host image of any channel count 1..4 with `engine` (2 or 3 channels are padded to 4).
Image run_engine(Engine& engine, const FilterSpec& spec, const Image& in, double* filter_ms);

void add_filter_command(CLI::App& app);
void add_truth_command(CLI::App& app);
void add_coeffs_command(CLI::App& app);
void add_diff_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_edge_study_command(CLI::App& app);
void add_lee_commands(CLI::App& app);  // lee-table and lee-bench

}  // namespace rf::cli
