#include "app/cli/cli.h"

#include <cstdio>
#include <string>

#include "filters/core/filter_table.h"

namespace rf::cli {
namespace {

std::string sigma_text(double sigma) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", sigma);
  return buf;
}

}  // namespace

void add_filter_options(CLI::App& cmd, FilterArgs& a, bool with_backend) {
  const OptionHelp& help = option_help();
  cmd.add_option("--filter", a.filter, help.filter)->capture_default_str();
  cmd.add_option_function<std::string>(
         "--sigma", [&a](const std::string& text) { set_sigmas(a, text); }, help.sigma)
      ->type_name("SIGMA|SX,SY")
      ->default_str(sigma_text(a.sigma));
  cmd.add_option("--order", a.order, help.order);
  cmd.add_option("--pole", a.pole, help.pole)->capture_default_str();
  cmd.add_option("--ext", a.ext, help.ext);
  cmd.add_option("--sigma-r", a.sigma_r, help.sigma_r)->capture_default_str();
  cmd.add_option("--kappa", a.kappa, help.kappa)->capture_default_str();
  cmd.add_option("--iterations", a.iterations, help.iterations)->capture_default_str();
  cmd.add_option("--algo", a.algo, help.algo)->capture_default_str();
  if (with_backend) cmd.add_option("--backend", a.backend, help.backend)->capture_default_str();
}

Image run_engine(Engine& engine, const FilterSpec& spec, Image in, double* filter_ms) {
  engine.set_timing(true);
  Image out = filter_image(engine, spec, std::move(in));
  if (filter_ms) {
    *filter_ms = 0.0;
    for (const StageTime& t : engine.timings()) *filter_ms += t.ms;
  }
  return out;
}

}  // namespace rf::cli
