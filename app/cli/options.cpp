#include "app/cli/cli.h"

namespace rf::cli {

void add_filter_options(CLI::App& cmd, FilterArgs& a, bool with_backend) {
  cmd.add_option("--filter", a.filter,
                 "gaussian, deriche, yvrg, bspline3, bspline5, bspline7, exp, sat, edge-aware")
      ->capture_default_str();
  cmd.add_option("--sigma", a.sigma, "Gaussian standard deviation in pixels")
      ->capture_default_str();
  cmd.add_option("--order", a.order, "recursion order 1..5 (gaussian: 3, deriche: 2 or 4)");
  cmd.add_option("--pole", a.pole, "pole of the exponential smoother, |pole| < 1")
      ->capture_default_str();
  cmd.add_option("--ext", a.ext,
                 "boundary extension: ignore, zero, clamp, repeat, mirror (default: mirror; zero "
                 "for sat)");
  cmd.add_option("--sigma-r", a.sigma_r, "edge-aware range sigma on [0, 1]")->capture_default_str();
  cmd.add_option("--kappa", a.kappa, "edge-aware warm-up distance in sigmas (algorithms c, d)")
      ->capture_default_str();
  cmd.add_option("--iterations", a.iterations, "edge-aware iterations")->capture_default_str();
  cmd.add_option("--algo", a.algo,
                 "auto, rt, alg4, alg5, alg6 (block-parallel algorithms of Nehab et al.), one-way, "
                 "two-way (yvrg); edge-aware: a, c, d, exact")
      ->capture_default_str();
  if (with_backend)
    cmd.add_option("--backend", a.backend, "auto, cpu or cuda")->capture_default_str();
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
