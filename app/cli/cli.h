// rfcli's subcommands and the filter options they share. Each subcommand lives in its own file
// and registers its options and its action with add_*_command().
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "filters/core/array.h"
#include "filters/core/engine.h"
#include "filters/core/spec.h"

namespace CLI {
class App;  // <CLI/CLI.hpp>, included where options are added: it costs seconds a file to compile
}  // namespace CLI

namespace rf::cli {

// A command-line mistake that is not a parse error: a bad value, mismatched inputs. main() prints
// it as one line and exits with status 2, like every other error.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The options every filtering subcommand shares, into rf::FilterArgs; rf::parse_spec turns them
// into a FilterSpec with the messages the Python module raises too.
void add_filter_options(CLI::App& cmd, FilterArgs& args, bool with_backend);

// --bits of filter and truth: the output's sample depth (8, 16, or 32 for float). Unset, the output
// keeps the input's depth where its format stores it (see output_bits()).
void add_bits_option(CLI::App& cmd, std::optional<int>& bits);

// The depth to write `out` at: `bits` when given (UsageError, one line, when the format of `out`
// does not store it), else `input_bits` if the format stores it, else the deepest it stores below
// that, else its shallowest. So 16-bit PNG or TIFF in, 16 bits out; float in, float TIFF or
// 16-bit PNG out; anything to JPEG, BMP or TGA 8 bits; PFM and HDR always float.
int output_bits(const std::string& out, std::optional<int> bits, int input_bits);

// The depth `out` is written with for `spec`: output_bits's choice, but float for a derivative,
// whose values are signed and small (refused in one line where the format has no float).
int output_depth(const FilterSpec& spec, const std::string& out, std::optional<int> bits,
                 int input_bits);

// --axes and --sigma-z of filter and truth: the axes of a volume (a multi-page TIFF) to filter,
// and the sigma through its pages.
void add_volume_options(CLI::App& cmd, std::string& axes, std::optional<double>& sigma_z);
// --axes as the array axes of a volume (z 0, y 1, x 2), in the order given; UsageError, one line,
// for a name other than x, y, z or one given twice. Empty text: x,y,z for a volume of more than
// one page, x,y for one.
std::vector<int> volume_axes(const std::string& text, int depth = 1);
bool is_tiff_name(const std::string& path);
// The passes of `spec` along `axes` of a volume: its sigma along x and y, sigma_z (default: the
// sigma along x) through the pages, its derivative's orders along x and y (UsageError for one
// along an axis not filtered), a measure over the axes filtered. `named` gets "x,y,z".
ArraySpec volume_spec(const FilterSpec& spec, const std::vector<int>& axes,
                      std::optional<double> sigma_z, std::string* named);

// Filters a host image of any channel count 1..4 with `engine`; `filter_ms` gets the filter's
// time as the engine measures it. Pass the image with std::move and it is filtered in place.
Image run_engine(Engine& engine, const FilterSpec& spec, Image in, double* filter_ms);

// Parses the command line and runs the subcommand; returns the exit status (0, or 2 after one
// line on stderr naming the problem).
int run(int argc, const char* const* argv);

// Checking command lines without running them: when set, each subcommand returns once its options
// are checked, before it reads or writes a file or starts a measurement. The option-parsing fuzz
// target sets it; rfcli itself never does.
void set_check_only(bool enabled);
bool check_only();

void add_filter_command(CLI::App& app);
void add_truth_command(CLI::App& app);
void add_coeffs_command(CLI::App& app);
void add_diff_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_edge_study_command(CLI::App& app);
void add_lee_commands(CLI::App& app);  // lee-table and lee-bench

}  // namespace rf::cli
