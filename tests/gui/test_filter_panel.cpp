// The filter panel's lists and limits: what its boxes and sliders offer comes from the library's
// filter table, so a kind, order, extension or algorithm the design refuses is never offered.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/gui/panels/filter_choices.h"
#include "filters/core/design.h"
#include "filters/core/filter_table.h"

using namespace rf;
using namespace rf::gui;

TEST_CASE("filter panel: the kind box lists the table's kinds in its order") {
  const auto kinds = kind_choices();
  REQUIRE(kinds.size() == kind_table().size());
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    const KindInfo& k = kind_table()[i];
    const std::string name = k.name;
    CAPTURE(name);
    CHECK(kinds[i].first == k.kind);
    CHECK(kinds[i].second.find(k.title) == 0);
    CHECK(kinds[i].second.find(std::string("(") + k.name) != std::string::npos);
  }
  CHECK(kinds[1].second == "Deriche Gaussian (deriche, order 2 or 4)");
}

TEST_CASE("filter panel: orders, extensions, algorithms and backends from the table") {
  CHECK(order_choices(FilterKind::Gaussian) == std::vector<int>{1, 2, 3, 4, 5});
  CHECK(order_choices(FilterKind::Deriche) == std::vector<int>{2, 4});
  for (FilterKind fixed :
       {FilterKind::Yvrg, FilterKind::BSpline3, FilterKind::BSpline5, FilterKind::BSpline7,
        FilterKind::Exponential, FilterKind::Sat, FilterKind::EdgeAware})
    CHECK(order_choices(fixed).empty());
  // Every order the box offers is one the design takes.
  for (const KindInfo& k : kind_table())
    for (int order : order_choices(k.kind)) {
      FilterSpec s = with_kind(FilterSpec{}, k.kind);
      s.order = order;
      CHECK_NOTHROW(validate(s));
    }

  CHECK(extension_choices(FilterKind::Sat) ==
        std::vector<Extension>{Extension::Ignore, Extension::Zero});
  CHECK(extension_choices(FilterKind::Gaussian).size() == extension_table().size());
  const std::string mirror = extension_hint(Extension::Mirror);
  CHECK(mirror.find("mirror: c b a | a b c | c b a") == 0);
  CHECK(mirror.find("GL_MIRRORED_REPEAT") != std::string::npos);
  CHECK(extension_hint(Extension::Ignore).find("(GL") == std::string::npos);
  CHECK(truth_extension_choices() ==
        std::vector<Extension>{Extension::Zero, Extension::Clamp, Extension::Repeat,
                               Extension::Mirror, Extension::Reflect101, Extension::Constant});

  using A = Algorithm;
  CHECK(algorithm_choices(Backend::Cpu, FilterKind::Gaussian) ==
        std::vector<A>{A::Auto, A::RT, A::Alg5, A::Alg6});
  CHECK(algorithm_choices(Backend::Cuda, FilterKind::Yvrg) ==
        std::vector<A>{A::Auto, A::RT, A::Alg4, A::Alg5, A::Alg6, A::OneWay, A::TwoWay});
  CHECK(algorithm_choices(Backend::Cpu, FilterKind::EdgeAware) ==
        std::vector<A>{A::Auto, A::EdgeA, A::EdgeC, A::EdgeD, A::EdgeExact});
  CHECK(backend_choices() == std::vector<Backend>{Backend::Auto, Backend::Cpu, Backend::Cuda});
}

TEST_CASE("filter panel: the sigma slider stays inside what the order's design holds") {
  const SliderRange g3 = sigma_slider(FilterKind::Gaussian, 3);
  CHECK(g3.lo == 0.5f);
  CHECK(g3.hi == 256.0f);
  CHECK(sigma_slider(FilterKind::Gaussian, 5).hi == 200.0f);
  CHECK(sigma_slider(FilterKind::EdgeAware, 4).lo == 0.5f);
  for (const KindInfo& k : kind_table())
    for (const OrderInfo& o : k.orders) {
      const SliderRange r = sigma_slider(k.kind, o.order);
      CHECK(sigma_range(k.kind, o.order).contains(r.lo));
      CHECK(sigma_range(k.kind, o.order).contains(r.hi));
    }
  // Picking order 5 at sigma 256 brings sigma to the most order 5 holds.
  FilterSpec s;
  s.sigma = 256.0;
  s = with_order(s, 5);
  CHECK(s.order == 5);
  CHECK(s.sigma == 200.0);
  CHECK_NOTHROW(validate(s));
  s.sigma = 8.0;
  CHECK(with_order(s, 4).sigma == 8.0);
}
