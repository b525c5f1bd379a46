// rfcli coeffs <filter options> [--json] [--response N]: the recursive coefficients of a design
// and, on request, its frequency response on [0, pi].
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "filters/core/design.h"
#include "filters/core/response.h"

namespace rf::cli {
namespace {

// The most points --response prints; a person asking for more has mistyped.
constexpr int kMaxResponsePoints = 1 << 20;

}  // namespace

void add_coeffs_command(CLI::App& app) {
  struct Args {
    FilterArgs filter;
    bool json = false;
    std::optional<int> response;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "coeffs",
      "Print the coefficients: causal y_i = b0 x_i - sum a_k y_{i-k}, anticausal z_i = b0 y_i - "
      "sum a_k z_{i+k}");
  add_filter_options(*cmd, args->filter, false);
  cmd->add_flag("--json", args->json, "print {\"b0\": .., \"a\": [..], \"causal_only\": ..}");
  cmd->add_option("--response", args->response,
                  "also the gain at N points on [0, pi]: |b0/A(e^iw)|^2 for a causal + "
                  "anticausal pair, |b0/A(e^iw)| causal only, and the Gaussian exp(-sigma^2 "
                  "w^2/2) for the Gaussian kinds");
  cmd->callback([args] {
    const FilterSpec spec = parse_spec(args->filter);
    if (args->response && (*args->response < 2 || *args->response > kMaxResponsePoints))
      throw UsageError("--response: the number of points on [0, pi] must be in 2.." +
                       std::to_string(kMaxResponsePoints) + " (got " +
                       std::to_string(*args->response) + ")");
    const Recursive f = design(spec);
    std::vector<ResponsePoint> response;
    if (args->response) response = frequency_response(spec, *args->response);
    if (args->json) {
      nlohmann::json j;
      j["b0"] = f.b0;
      j["a"] = f.a;
      j["causal_only"] = f.causal_only;
      if (args->response) {
        // JSON has no infinity: the summed-area table's gain at omega = 0 is written as null.
        nlohmann::json points = nlohmann::json::array();
        for (const ResponsePoint& p : response) {
          nlohmann::json point = {{"omega", p.omega}};
          point["gain"] = std::isfinite(p.gain) ? nlohmann::json(p.gain) : nlohmann::json();
          if (p.ideal) point["ideal"] = *p.ideal;
          points.push_back(point);
        }
        j["response"] = points;
      }
      std::printf("%s\n", j.dump().c_str());
      return;
    }
    std::printf("%s: order %d%s\n", describe(spec).c_str(), f.order(),
                f.causal_only ? ", causal only" : "");
    std::printf("  b0 = %.17g\n", f.b0);
    for (int k = 0; k < f.order(); ++k) std::printf("  a%d = %.17g\n", k + 1, f.a[k]);
    if (approximates_gaussian(spec.kind)) {
      const DesignError e = gaussian_design_error(spec);
      std::printf("  impulse response vs sampled Gaussian: L2 relative %.3g, max relative %.3g\n",
                  e.l2_relative, e.max_relative);
    }
    if (!args->response) return;
    const bool ideal = approximates_gaussian(spec.kind);
    std::printf("  %-22s %-24s%s\n", "omega", f.causal_only ? "gain |b0/A|" : "gain |b0/A|^2",
                ideal ? "Gaussian" : "");
    for (const ResponsePoint& p : response) {
      std::printf("  %-22.17g %-24.17g", p.omega, p.gain);
      if (p.ideal) std::printf("%.17g", *p.ideal);
      std::printf("\n");
    }
  });
}

}  // namespace rf::cli
