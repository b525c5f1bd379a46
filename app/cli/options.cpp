#include "app/cli/cli.h"
#include "filters/core/design.h"

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

FilterSpec to_spec(const FilterArgs& a) {
  FilterSpec s;
  const auto kind = parse_filter_kind(a.filter);
  if (!kind)
    throw UsageError("--filter: unknown filter '" + a.filter +
                     "' (gaussian, deriche, yvrg, bspline3, bspline5, bspline7, exp, sat, "
                     "edge-aware)");
  const std::string ext_name = a.ext.value_or(kind == FilterKind::Sat ? "zero" : "mirror");
  const auto ext = parse_extension(ext_name);
  if (!ext)
    throw UsageError("--ext: unknown extension '" + ext_name +
                     "' (ignore, zero, clamp, repeat, mirror)");
  const auto algo = parse_algorithm(a.algo);
  if (!algo)
    throw UsageError("--algo: unknown algorithm '" + a.algo +
                     "' (auto, rt, alg4, alg5, alg6, one-way, two-way, a, c, d, exact)");
  const auto backend = parse_backend(a.backend);
  if (!backend)
    throw UsageError("--backend: unknown backend '" + a.backend + "' (auto, cpu, cuda)");
  s.kind = *kind;
  s.ext = *ext;
  s.algo = *algo;
  s.backend = *backend;
  s.sigma = a.sigma;
  s.order = a.order.value_or(s.kind == FilterKind::Deriche ? 2 : 3);
  s.pole = a.pole;
  s.sigma_r = a.sigma_r;
  s.kappa = a.kappa;
  s.iterations = a.iterations;
  if (s.kind == FilterKind::Sat && s.ext != Extension::Zero && s.ext != Extension::Ignore)
    throw UsageError("--ext " + ext_name +
                     ": the summed-area table (--filter sat) takes only --ext zero (a running sum "
                     "over endless copies of the image would not be finite)");
  validate(s);
  return s;
}

Image run_engine(Engine& engine, const FilterSpec& spec, const Image& in, double* filter_ms) {
  const int C = in.channels;
  Image work;
  if (C == 1 || C == 4) {
    work = in;
  } else {
    work = Image(in.width, in.height, 4);
    const std::size_t n = std::size_t(in.width) * in.height;
    for (std::size_t i = 0; i < n; ++i)
      for (int c = 0; c < C; ++c) work.pixels[i * 4 + c] = in.pixels[i * C + c];
  }
  FrameView v = work.view();
  engine.plan(spec, work.width, work.height, v.format);
  engine.set_timing(true);
  engine.run(v, v);
  if (filter_ms) {
    *filter_ms = 0.0;
    for (const StageTime& t : engine.timings()) *filter_ms += t.ms;
  }
  if (C == 1 || C == 4) return work;
  Image out(in.width, in.height, C);
  const std::size_t n = std::size_t(in.width) * in.height;
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < C; ++c) out.pixels[i * C + c] = work.pixels[i * 4 + c];
  return out;
}

}  // namespace rf::cli
