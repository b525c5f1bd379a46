// rfcli coeffs <filter options> [--json] [--response N]: the recursive coefficients of a design
// and, on request, its frequency response on [0, pi].
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "filters/core/design.h"
#include "filters/core/response.h"

namespace rf::cli {
namespace {

// The most points --response prints; a person asking for more has mistyped.
constexpr int kMaxResponsePoints = 1 << 20;

struct CoeffsArgs {
  FilterArgs filter;
  bool json = false;
  std::optional<int> response;
};

void print_json(const Recursive& f, const std::optional<int>& points,
                const std::vector<ResponsePoint>& response) {
  nlohmann::json j;
  j["b0"] = f.b0;
  j["a"] = f.a;
  j["causal_only"] = f.causal_only;
  if (points) {
    // JSON has no infinity: the summed-area table's gain at omega = 0 is written as null.
    nlohmann::json list = nlohmann::json::array();
    for (const ResponsePoint& p : response) {
      nlohmann::json point = {{"omega", p.omega}};
      point["gain"] = std::isfinite(p.gain) ? nlohmann::json(p.gain) : nlohmann::json();
      if (p.ideal) point["ideal"] = *p.ideal;
      list.push_back(point);
    }
    j["response"] = list;
  }
  std::printf("%s\n", j.dump().c_str());
}

void print_text(const FilterSpec& spec, const Recursive& f, const std::optional<int>& points,
                const std::vector<ResponsePoint>& response) {
  std::printf("%s: order %d%s\n", describe(spec).c_str(), f.order(),
              f.causal_only ? ", causal only" : "");
  std::printf("  b0 = %.17g\n", f.b0);
  for (int k = 0; k < f.order(); ++k) std::printf("  a%d = %.17g\n", k + 1, f.a[k]);
  const bool gaussian = approximates_gaussian(spec.kind);
  if (gaussian) {
    const DesignError e = gaussian_design_error(spec);
    std::printf("  impulse response vs sampled Gaussian: L2 relative %.3g, max relative %.3g\n",
                e.l2_relative, e.max_relative);
  }
  if (!points) return;
  std::printf("  %-22s %-24s%s\n", "omega", f.causal_only ? "gain |b0/A|" : "gain |b0/A|^2",
              gaussian ? "Gaussian" : "");
  for (const ResponsePoint& p : response) {
    std::printf("  %-22.17g %-24.17g", p.omega, p.gain);
    if (p.ideal) std::printf("%.17g", *p.ideal);
    std::printf("\n");
  }
}

void run_coeffs(const CoeffsArgs& a) {
  const FilterSpec spec = parse_spec(a.filter);
  if (a.response && (*a.response < 2 || *a.response > kMaxResponsePoints))
    throw UsageError("--response: the number of points on [0, pi] must be in 2.." +
                     std::to_string(kMaxResponsePoints) + " (got " + std::to_string(*a.response) +
                     ")");
  const Recursive f = design(spec);
  std::vector<ResponsePoint> response;
  if (a.response) response = frequency_response(spec, *a.response);
  if (a.json)
    print_json(f, a.response, response);
  else
    print_text(spec, f, a.response, response);
}

}  // namespace

void add_coeffs_command(CLI::App& app) {
  auto args = std::make_shared<CoeffsArgs>();
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
  cmd->callback([args] { run_coeffs(*args); });
}

}  // namespace rf::cli
