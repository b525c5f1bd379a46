#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/extension.h"
#include "filters/core/filter_table.h"
#include "filters/core/response.h"
#include "filters/core/spec.h"

using namespace rf;

TEST_CASE("extension names round-trip") {
  for (Extension e : kAllExtensions) CHECK(parse_extension(to_string(e)) == e);
  CHECK_FALSE(parse_extension("spiral").has_value());
}

TEST_CASE("extend_index follows the GL wrap modes") {
  // n = 3, samples a b c at 0 1 2.
  CHECK(extend_index(-1, 3, Extension::Clamp) == 0);
  CHECK(extend_index(5, 3, Extension::Clamp) == 2);
  CHECK(extend_index(-1, 3, Extension::Repeat) == 2);
  CHECK(extend_index(4, 3, Extension::Repeat) == 1);
  // mirror: c b a | a b c | c b a
  CHECK(extend_index(-1, 3, Extension::Mirror) == 0);
  CHECK(extend_index(-3, 3, Extension::Mirror) == 2);
  CHECK(extend_index(-4, 3, Extension::Mirror) == 2);
  CHECK(extend_index(3, 3, Extension::Mirror) == 2);
  CHECK(extend_index(5, 3, Extension::Mirror) == 0);
  CHECK(extend_index(6, 3, Extension::Mirror) == 0);
  CHECK(extend_index(-1, 3, Extension::Zero) == -1);
  CHECK(extend_index(-7, 1, Extension::Mirror) == 0);
}

namespace {

// The message parse_spec throws for `args`, or "" when it accepts them.
std::string message_of(const FilterArgs& args) {
  try {
    parse_spec(args);
  } catch (const InvalidParameter& e) {
    return e.what();
  }
  return "";
}

FilterArgs args_with(std::string filter) {
  FilterArgs a;
  a.filter = std::move(filter);
  return a;
}

template <class Row>
std::string joined(const std::vector<Row>& table) {
  std::string out;
  for (const Row& row : table) out += std::string(out.empty() ? "" : ", ") + row.name;
  return out;
}

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

TEST_CASE("filter table: every kind's default order and extension are offered by its design") {
  CHECK(kind_table().size() == 9);
  for (const KindInfo& k : kind_table()) {
    const std::string name = k.name;
    CAPTURE(name);
    REQUIRE_FALSE(k.orders.empty());
    CHECK(k.offers_order(k.default_order));
    CHECK(k.accepts(k.default_ext));
    // The defaults parse_spec gives a kind named alone pass validation.
    const FilterSpec s = parse_spec(args_with(k.name));
    CHECK(s.kind == k.kind);
    CHECK(s.order == k.default_order);
    CHECK(s.ext == k.default_ext);
    CHECK_NOTHROW(validate(s));
    // Every order offered is designed with that many poles, at a sigma inside its range.
    for (const OrderInfo& o : k.orders) {
      CAPTURE(o.order);
      FilterSpec at = s;
      at.order = o.order;
      at.sigma = std::max(o.min_sigma, 1.0);
      CHECK_NOTHROW(validate(at));
      if (k.kind != FilterKind::EdgeAware) CHECK(design(at).order() == o.order);
      CHECK(sigma_range(k.kind, o.order).contains(at.sigma));
    }
    for (Extension e : kAllExtensions) {
      FilterSpec with = s;
      with.ext = e;
      // A kind without an extension parameter ignores the field; the others refuse what their
      // row does not list.
      if (k.accepts(e) || !k.params.has(Param::Ext))
        CHECK_NOTHROW(validate(with));
      else
        CHECK_THROWS_AS(validate(with), InvalidParameter);
    }
    // Typed by a user, an extension such a kind is not built on is refused.
    if (!k.params.has(Param::Ext)) {
      FilterArgs a = args_with(k.name);
      a.ext = "repeat";
      CHECK_THROWS_AS(parse_spec(a), InvalidParameter);
      CHECK_THROWS_AS(parse_spec_unvalidated(a), InvalidParameter);
    }
  }
  // FilterSpec's own defaults are the gaussian's row.
  CHECK(parse_spec(FilterArgs{}) == FilterSpec{});
}

TEST_CASE("filter table: what each kind offers") {
  auto orders = [](FilterKind k) {
    std::vector<int> out;
    for (const OrderInfo& o : info(k).orders) out.push_back(o.order);
    return out;
  };
  CHECK(orders(FilterKind::Gaussian) == std::vector<int>{1, 2, 3, 4, 5});
  CHECK(orders(FilterKind::Deriche) == std::vector<int>{2, 4});
  CHECK(orders(FilterKind::Yvrg) == std::vector<int>{3});
  CHECK(orders(FilterKind::BSpline3) == std::vector<int>{1});
  CHECK(orders(FilterKind::BSpline5) == std::vector<int>{2});
  CHECK(orders(FilterKind::BSpline7) == std::vector<int>{3});
  CHECK(orders(FilterKind::Exponential) == std::vector<int>{1});
  CHECK(orders(FilterKind::Sat) == std::vector<int>{1});
  CHECK(info(FilterKind::Deriche).default_order == 2);
  CHECK(info(FilterKind::Gaussian).default_order == 3);
  CHECK(info(FilterKind::Sat).default_ext == Extension::Zero);
  CHECK(info(FilterKind::Sat).extensions ==
        std::vector<Extension>{Extension::Ignore, Extension::Zero});
  CHECK(orders_text(info(FilterKind::Gaussian)) == "1..5");
  CHECK(orders_text(info(FilterKind::Deriche)) == "2 or 4");
  CHECK(orders_text(info(FilterKind::Yvrg)) == "3");

  for (const KindInfo& k : kind_table()) {
    const std::string name = k.name;
    CAPTURE(name);
    const bool gaussian = k.kind == FilterKind::Gaussian || k.kind == FilterKind::Deriche ||
                          k.kind == FilterKind::Yvrg;
    CHECK(approximates_gaussian(k.kind) == gaussian);
    CHECK(k.params.has(Param::Order) == (k.orders.size() > 1));
  }

  const Range g5 = sigma_range(FilterKind::Gaussian, 5);
  CHECK(g5.lo == 0.5);
  CHECK(g5.hi == 200.0);
  CHECK_FALSE(g5.contains(200.5));
  const Range g1 = sigma_range(FilterKind::Gaussian, 1);
  CHECK_FALSE(g1.contains(0.0));
  CHECK(g1.contains(0.1));
  CHECK(g1.hi == 2000.0);
  CHECK(sigma_range(FilterKind::Deriche, 4).hi == 1000.0);
  // A fixed-order kind's range is its order's, whatever the order field says.
  CHECK(sigma_range(FilterKind::Yvrg, 5).lo == 0.5);
}

TEST_CASE("filter table: the algorithms each backend offers") {
  using A = Algorithm;
  const std::vector<A> cpu = {A::Auto, A::RT, A::Alg5, A::Alg6};
  const std::vector<A> cuda = {A::Auto, A::RT, A::Alg4, A::Alg5, A::Alg6};
  const std::vector<A> edge = {A::Auto, A::EdgeA, A::EdgeC, A::EdgeD, A::EdgeExact};
  for (const KindInfo& k : kind_table()) {
    const std::string name = k.name;
    CAPTURE(name);
    if (k.kind == FilterKind::EdgeAware) {
      CHECK(algorithms_for(Backend::Cpu, k.kind) == edge);
      CHECK(algorithms_for(Backend::Cuda, k.kind) == edge);
      continue;
    }
    std::vector<A> want_cpu = cpu, want_cuda = cuda;
    if (k.kind == FilterKind::Yvrg)
      for (auto* v : {&want_cpu, &want_cuda}) v->insert(v->end(), {A::OneWay, A::TwoWay});
    CHECK(algorithms_for(Backend::Cpu, k.kind) == want_cpu);
    CHECK(algorithms_for(Backend::Cuda, k.kind) == want_cuda);
    CHECK(algorithms_for(Backend::Auto, k.kind) == want_cuda);
  }
  FilterSpec s;
  s.algo = Algorithm::Alg4;
  CHECK_NOTHROW(check_algorithm(Backend::Cuda, s));
  CHECK_THROWS_WITH_AS(check_algorithm(Backend::Cpu, s),
                       "algorithm 'alg4' is not offered by the CPU backend for gaussian (auto, rt, "
                       "alg5, alg6)",
                       InvalidParameter);
  s.algo = Algorithm::TwoWay;
  CHECK_THROWS_WITH_AS(check_algorithm(Backend::Cuda, s), doctest::Contains("needs filter yvrg"),
                       InvalidParameter);
}

TEST_CASE("extensions: OpenCV's and scipy's names for the same continuation") {
  // scipy's 'reflect' and OpenCV's BORDER_REFLECT repeat the edge sample (our mirror); OpenCV's
  // BORDER_REFLECT_101 (scipy's 'mirror') does not.
  CHECK(parse_extension("reflect") == Extension::Mirror);
  CHECK(parse_extension("reflect101") == Extension::Reflect101);
  CHECK(parse_extension("REFLECT_101") == Extension::Reflect101);
  CHECK(parse_extension("nearest") == Extension::Clamp);
  CHECK(parse_extension("wrap") == Extension::Repeat);
  CHECK(std::string(info(Extension::Reflect101).picture) == "d c b | a b c d | c b a");
  // The picture, sample by sample: a line of four continued two samples each way.
  const int n = 4;
  std::string line;
  for (int i = -3; i < n + 3; ++i) line += char('a' + extend_index(i, n, Extension::Reflect101));
  CHECK(line == "dcbabcdcba");
  CHECK(extend_index(-7, 1, Extension::Reflect101) == 0);
  CHECK(extend_index(5, 2, Extension::Reflect101) == 1);  // a b a b ...: period 2
}

TEST_CASE("filter table: every name parses back to its value, aliases too, whatever the case") {
  std::set<std::string> seen;
  auto unique = [&](const char* table, const char* name) {
    const std::string key = std::string(table) + ":" + name;
    CAPTURE(key);
    CHECK(seen.insert(key).second);
  };
  for (const KindInfo& k : kind_table()) {
    CHECK(std::string(to_string(k.kind)) == k.name);
    CHECK(parse_filter_kind(k.name) == k.kind);
    CHECK(parse_filter_kind(upper(k.name)) == k.kind);
    unique("kind", k.name);
    for (const char* alias : k.aliases) {
      CHECK(parse_filter_kind(alias) == k.kind);
      unique("kind", alias);
    }
  }
  for (const ExtensionInfo& e : extension_table()) {
    CHECK(std::string(to_string(e.ext)) == e.name);
    CHECK(parse_extension(e.name) == e.ext);
    CHECK(parse_extension(upper(e.name)) == e.ext);
    unique("ext", e.name);
    for (const char* alias : e.aliases) {
      CHECK(parse_extension(alias) == e.ext);
      unique("ext", alias);
    }
  }
  for (const AlgorithmInfo& a : algorithm_table()) {
    CHECK(std::string(to_string(a.algo)) == a.name);
    CHECK(parse_algorithm(a.name) == a.algo);
    CHECK(parse_algorithm(upper(a.name)) == a.algo);
    unique("algo", a.name);
    for (const char* alias : a.aliases) {
      CHECK(parse_algorithm(alias) == a.algo);
      unique("algo", alias);
    }
  }
  for (const BackendInfo& b : backend_table()) {
    CHECK(std::string(to_string(b.backend)) == b.name);
    CHECK(parse_backend(b.name) == b.backend);
    unique("backend", b.name);
    for (const char* alias : b.aliases) {
      CHECK(parse_backend(alias) == b.backend);
      unique("backend", alias);
    }
  }
  CHECK(parse_algorithm("overlapped") == Algorithm::Alg6);
  CHECK(parse_filter_kind("exponential") == FilterKind::Exponential);
  CHECK_FALSE(parse_filter_kind("box").has_value());
  CHECK_FALSE(parse_algorithm("alg9").has_value());
  CHECK_FALSE(parse_backend("gpu").has_value());
  // Every enum value has a row: the tables' sizes are the enums' counts.
  CHECK(extension_table().size() == std::size(kAllExtensions));
  CHECK(algorithm_table().size() == std::size_t(Algorithm::EdgeExact) + 1);
  CHECK(backend_table().size() == std::size_t(Backend::Cuda) + 1);
  CHECK(kind_table().size() == std::size_t(FilterKind::EdgeAware) + 1);
}

TEST_CASE("filter table: every message and help text lists exactly the table's names") {
  // The lists, written out once here so that a row lost from a table shows.
  CHECK(joined(kind_table()) ==
        "gaussian, deriche, yvrg, bspline3, bspline5, bspline7, exp, sat, edge-aware");
  CHECK(joined(extension_table()) == "ignore, zero, clamp, repeat, mirror, reflect101, constant");
  CHECK(joined(algorithm_table()) ==
        "auto, rt, alg4, alg5, alg6, one-way, two-way, a, c, d, exact");
  CHECK(joined(backend_table()) == "auto, cpu, cuda");

  CHECK(message_of(args_with("box")) ==
        "--filter: unknown filter 'box' (" + joined(kind_table()) + ")");
  FilterArgs a;
  a.ext = "mirorr";
  CHECK(message_of(a) == "--ext: unknown extension 'mirorr' (" + joined(extension_table()) + ")");
  a = {};
  a.algo = "alg9";
  CHECK(message_of(a) == "--algo: unknown algorithm 'alg9' (" + joined(algorithm_table()) + ")");
  a = {};
  a.backend = "gpu";
  CHECK(message_of(a) == "--backend: unknown backend 'gpu' (" + joined(backend_table()) + ")");

  const OptionHelp& help = option_help();
  CHECK(help.filter == joined(kind_table()));
  for (const KindInfo& k : kind_table()) {
    const std::string name = k.name;
    CAPTURE(name);
    CHECK(help.order.find(std::string(k.name) + " " + orders_text(k)) != std::string::npos);
  }
  CHECK(help.order.find("deriche 2 or 4 (default 2)") != std::string::npos);
  for (const ExtensionInfo& e : extension_table())
    CHECK(help.ext.find(e.name) != std::string::npos);
  CHECK(help.ext.find("sat takes ignore or zero, default zero") != std::string::npos);
  std::size_t at = 0;
  for (const AlgorithmInfo& al : algorithm_table()) {
    const std::string name = al.name;
    CAPTURE(name);
    // In the table's order.
    const std::size_t found = help.algo.find(al.name, at);
    CHECK(found != std::string::npos);
    at = found;
  }
  CHECK(help.algo.find("rt, alg4, alg5, alg6 (all but edge-aware; alg4 on cuda only)") !=
        std::string::npos);
  CHECK(help.backend.find("auto, cpu, cuda") == 0);
  CHECK(help.pole.find("|pole| < 1") != std::string::npos);
}

TEST_CASE("parse_spec: defaults, fixed orders and algorithms from the table") {
  CHECK(parse_spec(args_with("deriche")).order == 2);
  CHECK(parse_spec(args_with("sat")).ext == Extension::Zero);
  CHECK(parse_spec(args_with("edge-aware")).order == 4);
  // A fixed-order kind reads no order: it gets its own whatever the arguments say.
  FilterArgs yvrg = args_with("yvrg");
  yvrg.order = 5;
  CHECK(parse_spec(yvrg).order == 3);
  FilterArgs deriche = args_with("deriche");
  deriche.order = 3;
  CHECK(message_of(deriche) == "order must be 2 or 4 for deriche (got 3)");
  FilterArgs sat = args_with("sat");
  sat.ext = "mirror";
  CHECK(message_of(sat).find("--ext mirror: the summed-area table (--filter sat) takes only --ext "
                             "zero (a running sum") == 0);
  // An algorithm no backend offers for the kind.
  FilterArgs two_way;
  two_way.algo = "two-way";
  CHECK(message_of(two_way).find("needs filter yvrg, not gaussian") != std::string::npos);
  two_way.filter = "yvrg";
  CHECK(parse_spec(two_way).algo == Algorithm::TwoWay);
  // Unvalidated: names and defaults, the values as given.
  FilterArgs pole = args_with("exp");
  pole.pole = 1.5;
  CHECK_THROWS_AS(parse_spec(pole), InvalidParameter);
  CHECK(parse_spec_unvalidated(pole).pole == 1.5);
  CHECK_THROWS_AS(parse_spec_unvalidated(args_with("box")), InvalidParameter);
}

TEST_CASE("changing the kind keeps what the new kind offers and takes its defaults otherwise") {
  FilterSpec s;  // gaussian order 3, mirror
  CHECK(with_kind(s, FilterKind::Deriche).order == 2);
  s.order = 4;
  CHECK(with_kind(s, FilterKind::Deriche).order == 4);
  CHECK(with_kind(s, FilterKind::Sat).ext == Extension::Zero);
  CHECK(with_kind(s, FilterKind::Yvrg).order == 3);
  s.ext = Extension::Ignore;
  CHECK(with_kind(s, FilterKind::Sat).ext == Extension::Ignore);
  // A fixed order is not carried to a kind with a choice: bspline3's 1 is no gaussian choice.
  s = with_kind(FilterSpec{}, FilterKind::BSpline3);
  CHECK(s.order == 1);
  CHECK(with_kind(s, FilterKind::Gaussian).order == 3);
  // An algorithm the new kind is not offered gives way to auto.
  s = with_kind(FilterSpec{}, FilterKind::Yvrg);
  s.algo = Algorithm::TwoWay;
  CHECK(with_kind(s, FilterKind::Gaussian).algo == Algorithm::Auto);
  s.algo = Algorithm::Alg5;
  CHECK(with_kind(s, FilterKind::Gaussian).algo == Algorithm::Alg5);

  FilterArgs a = to_args(FilterSpec{});
  CHECK(parse_spec(a) == FilterSpec{});
  change_filter(a, "deriche");
  CHECK(parse_spec(a).order == 2);
  change_filter(a, "box");
  CHECK(a.filter == "box");
  CHECK(message_of(a).find("--filter: unknown filter 'box'") == 0);
}

TEST_CASE("line_spec: both axes read the spec; design(LineSpec) is design(FilterSpec)") {
  FilterSpec s;
  s.kind = FilterKind::Gaussian;
  s.order = 5;
  s.sigma = 7.5;
  s.ext = Extension::Clamp;
  for (Axis axis : {Axis::X, Axis::Y}) {
    const LineSpec line = line_spec(s, axis);
    CHECK(line.kind == s.kind);
    CHECK(line.sigma == s.sigma);
    CHECK(line.order == s.order);
    CHECK(line.pole == s.pole);
    CHECK(line.ext == s.ext);
    CHECK(line.derivative == 0);
    const Recursive a = design(line), b = design(s);
    CHECK(a.b0 == b.b0);
    CHECK(a.a == b.a);
  }
  LineSpec line = line_spec(s, Axis::Y);
  line.derivative = 3;
  CHECK_THROWS_WITH_AS(design(line), doctest::Contains("derivative order must be 0, 1 or 2"),
                       InvalidParameter);
  line.derivative = 0;
  line.order = 6;
  CHECK_THROWS_WITH_AS(design(line), doctest::Contains("order must be in 1..5"), InvalidParameter);
}

TEST_CASE("describe: the parameters each kind reads") {
  FilterSpec s;
  CHECK(describe(s) == "gaussian order 3 sigma 4, mirror");
  s.kind = FilterKind::Yvrg;
  s.algo = Algorithm::TwoWay;
  CHECK(describe(s) == "yvrg sigma 4, mirror, two-way");
  s = {};
  s.kind = FilterKind::Exponential;
  s.ext = Extension::Clamp;
  CHECK(describe(s) == "exp pole 0.5, clamp");
  s.kind = FilterKind::BSpline5;
  CHECK(describe(s) == "bspline5, clamp");
  s = {};
  s.kind = FilterKind::EdgeAware;
  CHECK(describe(s) == "edge-aware sigma 4 sigma_r 0.2 kappa 2, 2 iterations");
}

TEST_CASE("sigma per axis: parsed, described, designed per axis, refused where one sigma holds") {
  FilterArgs a;
  a.sigma = 2.0;
  a.sigma_y = 9.0;
  FilterSpec s = parse_spec(a);
  REQUIRE(s.sigma_y.has_value());
  CHECK(*s.sigma_y == 9.0);
  CHECK(sigma_along(s, Axis::X) == 2.0);
  CHECK(sigma_along(s, Axis::Y) == 9.0);
  CHECK(line_spec(s, Axis::X).sigma == 2.0);
  CHECK(line_spec(s, Axis::Y).sigma == 9.0);
  CHECK(describe(s) == "gaussian order 3 sigma 2,9, mirror");
  const AxisDesigns d = design_axes(s);
  const Recursive x = design(line_spec(s, Axis::X)), y = design(line_spec(s, Axis::Y));
  CHECK(d.x.a == x.a);
  CHECK(d.y.a == y.a);
  CHECK(d.x.a != d.y.a);
  CHECK(to_args(s).sigma_y == a.sigma_y);
  CHECK(parse_spec(to_args(s)) == s);

  // One sigma typed twice is the spec of one sigma.
  a.sigma_y = 2.0;
  FilterArgs one;
  one.sigma = 2.0;
  CHECK(parse_spec(a) == parse_spec(one));
  CHECK(!parse_spec(a).sigma_y);

  // Each axis is held to its order's range, named.
  a.sigma_y = 5000.0;
  CHECK(message_of(a).find("sigma along y must be <= 2000") == 0);
  a.sigma_y = -1.0;
  CHECK(message_of(a).find("sigma along y must be > 0") == 0);
  a.sigma_y = 3.0;
  a.sigma = 0.0;
  CHECK(message_of(a).find("sigma along x must be > 0") == 0);

  // The edge-aware filter and Lee et al.'s partitions take one sigma for both axes.
  FilterArgs e;
  e.filter = "edge-aware";
  e.sigma_y = 3.0;
  CHECK(message_of(e).find("sigma: the ") == 0);
  CHECK(message_of(e).find("takes one sigma for both axes") != std::string::npos);
  FilterArgs lee;
  lee.filter = "yvrg";
  lee.algo = "one-way";
  lee.sigma_y = 3.0;
  CHECK(
      message_of(lee) ==
      "algorithm one-way takes one sigma for both axes; alg5, alg6, alg4 or rt take one per axis");
  lee.sigma_y.reset();
  CHECK_NOTHROW(parse_spec(lee));
}

TEST_CASE("spec: derivatives by name, in the lines, and refused where they mean nothing") {
  for (const char* text :
       {"none", "1,0", "0,1", "2,0", "0,2", "1,1", "2,2", "gradient", "laplacian"}) {
    CAPTURE(text);
    const auto d = parse_derivative(text);
    REQUIRE(d);
    CHECK(to_string(*d) == text);
  }
  CHECK(to_string(*parse_derivative("dxy")) == "1,1");
  CHECK(to_string(*parse_derivative("DYY")) == "0,2");
  CHECK(to_string(*parse_derivative("0,0")) == "none");
  for (const char* bad : {"", "1", "1,", "x,1", "1,0,0", "grad", "12,0"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_derivative(bad));
  }
  FilterArgs a;
  a.derivative = "1,2";
  a.normalized = true;
  FilterSpec s = parse_spec(a);
  CHECK(s.derivative.x == 1);
  CHECK(s.derivative.y == 2);
  CHECK(s.derivative.normalized);
  CHECK(line_spec(s, Axis::X).derivative == 1);
  CHECK(line_spec(s, Axis::Y).derivative == 2);
  CHECK(describe(s).find("derivative 1,2 normalized") != std::string::npos);
  CHECK(parse_spec(to_args(s)) == s);
  // A measure's lines carry no partial of their own: the engines make its terms.
  a.derivative = "gradient";
  CHECK(line_spec(parse_spec(a), Axis::X).derivative == 0);
  auto refused = [](FilterArgs args, const char* words) {
    CAPTURE(words);
    CHECK_THROWS_WITH_AS(parse_spec(args), doctest::Contains(words), InvalidParameter);
  };
  FilterArgs b;
  b.derivative = "sideways";
  refused(b, "--derivative: 'sideways' is not");
  b.derivative = "3,0";
  refused(b, "derivative order must be 0, 1 or 2");
  b.derivative = "1,0";
  b.filter = "bspline3";
  refused(b, "has none (the Gaussian kinds have)");
  b.filter = "gaussian";
  b.ext = "ignore";
  refused(b, "extension ignore continues the image by nothing");
  b.ext.reset();
  b.filter = "yvrg";
  b.algo = "two-way";
  refused(b, "Lee et al.'s partitions");
  b.algo = "auto";
  b.sigma = 0.6;
  refused(b, "for a derivative of order 1");
  // A kind without derivatives drops the one the kind before had.
  FilterArgs c;
  c.derivative = "laplacian";
  change_filter(c, "sat");
  CHECK(c.derivative == "none");
}
