// rfcli coeffs <filter options> [--json]: the recursive coefficients of a design.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "filters/core/design.h"

namespace rf::cli {

void add_coeffs_command(CLI::App& app) {
  struct Args {
    FilterArgs filter;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "coeffs",
      "Print the coefficients: causal y_i = b0 x_i - sum a_k y_{i-k}, anticausal z_i = b0 y_i - "
      "sum a_k z_{i+k}");
  add_filter_options(*cmd, args->filter, false);
  cmd->add_flag("--json", args->json, "print {\"b0\": .., \"a\": [..], \"causal_only\": ..}");
  cmd->callback([args] {
    const FilterSpec spec = to_spec(args->filter);
    if (spec.kind == FilterKind::EdgeAware)
      throw UsageError("--filter: edge-aware has no fixed coefficients (they vary per pixel)");
    const Recursive f = design(spec);
    if (args->json) {
      nlohmann::json j;
      j["b0"] = f.b0;
      j["a"] = f.a;
      j["causal_only"] = f.causal_only;
      std::printf("%s\n", j.dump().c_str());
      return;
    }
    std::printf("%s: order %d%s\n", describe(spec).c_str(), f.order(),
                f.causal_only ? ", causal only" : "");
    std::printf("  b0 = %.17g\n", f.b0);
    for (int k = 0; k < f.order(); ++k) std::printf("  a%d = %.17g\n", k + 1, f.a[k]);
    if (spec.kind == FilterKind::Gaussian || spec.kind == FilterKind::Deriche ||
        spec.kind == FilterKind::Yvrg) {
      const DesignError e = gaussian_design_error(spec);
      std::printf("  impulse response vs sampled Gaussian: L2 relative %.3g, max relative %.3g\n",
                  e.l2_relative, e.max_relative);
    }
  });
}

}  // namespace rf::cli
