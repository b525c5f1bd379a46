#include "filters/core/spec.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/filter_table.h"

namespace rf {
namespace {

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// The value a table row names, by its name or one of its aliases.
template <class Row, class Value>
std::optional<Value> parse_from(const std::vector<Row>& table, Value Row::*field,
                                std::string_view s) {
  for (const Row& row : table) {
    if (same_name(s, row.name)) return row.*field;
    for (const char* alias : row.aliases)
      if (same_name(s, alias)) return row.*field;
  }
  return std::nullopt;
}

template <class Row, class Value>
const char* name_from(const std::vector<Row>& table, Value Row::*field, Value v) {
  for (const Row& row : table)
    if (row.*field == v) return row.name;
  return "?";
}

FilterSpec parse(const FilterArgs& a, bool check_extension) {
  const auto kind = parse_filter_kind(a.filter);
  if (!kind)
    throw InvalidParameter("--filter: unknown filter '" + a.filter + "' (" + kind_names() + ")");
  const KindInfo& k = info(*kind);
  const std::string ext_name = a.ext.value_or(to_string(k.default_ext));
  const auto ext = parse_extension(ext_name);
  if (!ext)
    throw InvalidParameter("--ext: unknown extension '" + ext_name + "' (" + extension_names() +
                           ")");
  const auto algo = parse_algorithm(a.algo);
  if (!algo)
    throw InvalidParameter("--algo: unknown algorithm '" + a.algo + "' (" + algorithm_names() +
                           ")");
  const auto backend = parse_backend(a.backend);
  if (!backend)
    throw InvalidParameter("--backend: unknown backend '" + a.backend + "' (" + backend_names() +
                           ")");
  // A kind without an extension parameter is refused a typed extension it is not built on even
  // unvalidated: it has no other to run with, and would ignore the name silently.
  if ((check_extension || !k.params.has(Param::Ext)) && !k.accepts(*ext)) {
    std::string taken;
    for (Extension e : k.extensions)
      if (e != Extension::Ignore) taken += std::string(taken.empty() ? "" : " or ") + to_string(e);
    throw InvalidParameter("--ext " + ext_name + ": the " + k.title + " (--filter " + k.name +
                           ") takes only --ext " + taken + " (" + k.why_these_extensions + ")");
  }
  if (a.cval && *ext != Extension::Constant)
    throw InvalidParameter("--cval " + number_text(*a.cval) +
                           ": only --ext constant takes a value (the extension is " + ext_name +
                           ")");
  const auto method = parse_gaussian_method(a.gaussian_method);
  if (!method)
    throw InvalidParameter("--gaussian-method: unknown method '" + a.gaussian_method + "' (" +
                           method_names() + ")");
  const auto derivative = parse_derivative(a.derivative);
  if (!derivative)
    throw InvalidParameter("--derivative: '" + a.derivative +
                           "' is not none, DX,DY (0, 1 or 2 each), gradient or laplacian");
  FilterSpec s;
  s.kind = *kind;
  s.ext = *ext;
  s.derivative = *derivative;
  s.derivative.normalized = a.normalized && s.derivative.any();
  s.cval = a.cval.value_or(0.0);
  s.algo = *algo;
  s.backend = *backend;
  s.gaussian_method = *method;
  s.sigma = a.sigma;
  // One sigma given twice is one sigma: specs compare equal however a person typed them.
  if (a.sigma_y && !(*a.sigma_y == a.sigma)) s.sigma_y = a.sigma_y;
  s.order = k.params.has(Param::Order) ? a.order.value_or(k.default_order) : k.default_order;
  s.pole = a.pole;
  s.sigma_r = a.sigma_r;
  s.kappa = a.kappa;
  s.iterations = a.iterations;
  return s;
}

}  // namespace

const char* to_string(FilterKind e) {
  return name_from(kind_table(), &KindInfo::kind, e);
}
const char* to_string(Algorithm e) {
  return name_from(algorithm_table(), &AlgorithmInfo::algo, e);
}
const char* to_string(Backend e) {
  return name_from(backend_table(), &BackendInfo::backend, e);
}
const char* to_string(Extension e) {
  return name_from(extension_table(), &ExtensionInfo::ext, e);
}
const char* to_string(GaussianMethod e) {
  return name_from(method_table(), &MethodInfo::method, e);
}
std::optional<FilterKind> parse_filter_kind(std::string_view s) {
  return parse_from(kind_table(), &KindInfo::kind, s);
}
std::optional<Algorithm> parse_algorithm(std::string_view s) {
  return parse_from(algorithm_table(), &AlgorithmInfo::algo, s);
}
std::optional<Backend> parse_backend(std::string_view s) {
  return parse_from(backend_table(), &BackendInfo::backend, s);
}
std::optional<Extension> parse_extension(std::string_view s) {
  return parse_from(extension_table(), &ExtensionInfo::ext, s);
}
std::optional<GaussianMethod> parse_gaussian_method(std::string_view s) {
  return parse_from(method_table(), &MethodInfo::method, s);
}

std::string to_string(const Derivative& d) {
  switch (d.measure) {
    case Derivative::Measure::GradientMagnitude:
      return "gradient";
    case Derivative::Measure::Laplacian:
      return "laplacian";
    case Derivative::Measure::Partial:
      break;
  }
  if (!d.any()) return "none";
  return std::to_string(d.x) + "," + std::to_string(d.y);
}

std::vector<Partial> partials(const Derivative& d) {
  switch (d.measure) {
    case Derivative::Measure::GradientMagnitude:
      return {{1, 0}, {0, 1}};
    case Derivative::Measure::Laplacian:
      return {{2, 0}, {0, 2}};
    case Derivative::Measure::Partial:
      break;
  }
  return {{d.x, d.y}};
}

std::optional<Derivative> parse_derivative(std::string_view s) {
  Derivative d;
  if (same_name(s, "none") || same_name(s, "0,0")) return d;
  if (same_name(s, "gradient")) {
    d.measure = Derivative::Measure::GradientMagnitude;
    return d;
  }
  if (same_name(s, "laplacian")) {
    d.measure = Derivative::Measure::Laplacian;
    return d;
  }
  const struct {
    const char* name;
    int x, y;
  } named[] = {{"dx", 1, 0}, {"dy", 0, 1}, {"dxx", 2, 0}, {"dyy", 0, 2}, {"dxy", 1, 1}};
  for (const auto& n : named)
    if (same_name(s, n.name)) {
      d.x = n.x;
      d.y = n.y;
      return d;
    }
  // "DX,DY": two digits; the orders themselves are checked by rf::validate.
  if (s.size() == 3 && s[1] == ',' && std::isdigit(static_cast<unsigned char>(s[0])) &&
      std::isdigit(static_cast<unsigned char>(s[2]))) {
    d.x = s[0] - '0';
    d.y = s[2] - '0';
    return d;
  }
  return std::nullopt;
}

// The parameters the kind reads, in one order: "gaussian order 3 sigma 4, mirror",
// "exp pole 0.5, clamp", "edge-aware sigma 20 sigma_r 0.3 kappa 2, 3 iterations".
std::string describe(const FilterSpec& s) {
  char buf[64];
  const ParamSet p = info(s.kind).params;
  std::string out = to_string(s.kind);
  auto add = [&](const char* format, auto value) {
    std::snprintf(buf, sizeof buf, format, value);
    out += buf;
  };
  if (p.has(Param::Order)) add(" order %d", s.order);
  if (p.has(Param::Sigma)) add(" sigma %g", s.sigma);
  if (p.has(Param::Sigma) && s.sigma_y) add(",%g", *s.sigma_y);
  if (p.has(Param::Pole)) add(" pole %g", s.pole);
  if (p.has(Param::SigmaR)) add(" sigma_r %g", s.sigma_r);
  if (p.has(Param::Kappa)) add(" kappa %g", s.kappa);
  if (p.has(Param::Ext)) out += std::string(", ") + to_string(s.ext);
  if (p.has(Param::Ext) && s.ext == Extension::Constant) add(" %g", s.cval);
  if (p.has(Param::Iterations)) add(", %d iterations", s.iterations);
  if (p.has(Param::Derivative) && s.derivative.any())
    out +=
        ", derivative " + to_string(s.derivative) + (s.derivative.normalized ? " normalized" : "");
  if (s.axes != Axes::Both) out += s.axes == Axes::X ? ", along x only" : ", along y only";
  if (s.algo != Algorithm::Auto) out += std::string(", ") + to_string(s.algo);
  if (p.has(Param::GaussianMethod) && s.gaussian_method != GaussianMethod::Recursive)
    out += std::string(", method ") + to_string(s.gaussian_method);
  return out;
}

bool filters_along(const FilterSpec& spec, Axis axis) {
  return spec.axes == Axes::Both || (spec.axes == Axes::X) == (axis == Axis::X);
}

double sigma_along(const FilterSpec& spec, Axis axis) {
  return axis == Axis::Y ? spec.sigma_y.value_or(spec.sigma) : spec.sigma;
}

LineSpec line_spec(const FilterSpec& spec, Axis axis) {
  LineSpec line;
  line.kind = spec.kind;
  line.sigma = sigma_along(spec, axis);
  line.order = spec.order;
  line.pole = spec.pole;
  line.ext = spec.ext;
  if (spec.derivative.measure == Derivative::Measure::Partial)
    line.derivative = axis == Axis::X ? spec.derivative.x : spec.derivative.y;
  return line;
}

FilterSpec parse_spec(const FilterArgs& a) {
  const FilterSpec s = parse(a, true);
  validate(s);
  // An algorithm no backend offers for the kind is a mistake whichever backend runs.
  check_algorithm(Backend::Auto, s);
  return s;
}

FilterSpec parse_spec_unvalidated(const FilterArgs& a) {
  return parse(a, false);
}

void set_sigmas(FilterArgs& args, const std::string& text) {
  std::vector<double> values;
  for (std::size_t start = 0; start <= text.size() && values.size() < 3;) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || std::isspace(unsigned(item[0])) || end != item.c_str() + item.size())
      values.assign(3, 0.0);  // not a number: refused below
    else
      values.push_back(v);
    start = comma + 1;
  }
  if (values.empty() || values.size() > 2)
    throw InvalidParameter("--sigma: '" + text +
                           "' is not SIGMA or SX,SY (one sigma, or one along x and one along y)");
  args.sigma = values[0];
  if (values.size() == 2)
    args.sigma_y = values[1];
  else
    args.sigma_y.reset();
}

FilterArgs to_args(const FilterSpec& s) {
  FilterArgs a;
  a.filter = to_string(s.kind);
  a.sigma = s.sigma;
  a.sigma_y = s.sigma_y;
  a.order = s.order;
  a.pole = s.pole;
  if (info(s.kind).params.has(Param::Ext)) a.ext = to_string(s.ext);
  if (s.ext == Extension::Constant) a.cval = s.cval;
  a.derivative = to_string(s.derivative);
  a.normalized = s.derivative.normalized;
  a.sigma_r = s.sigma_r;
  a.kappa = s.kappa;
  a.iterations = s.iterations;
  a.algo = to_string(s.algo);
  a.backend = to_string(s.backend);
  a.gaussian_method = to_string(s.gaussian_method);
  return a;
}

void change_filter(FilterArgs& a, const std::string& name) {
  const auto from = parse_filter_kind(a.filter);
  a.filter = name;
  const auto kind = parse_filter_kind(name);
  if (!kind) return;
  const KindInfo& k = info(*kind);
  // An order is carried over only where the person chose it (a kind that takes an order).
  const bool chosen = from && info(*from).params.has(Param::Order);
  if (a.order && (!chosen || !k.offers_order(*a.order))) a.order.reset();
  if (!k.params.has(Param::SigmaY)) a.sigma_y.reset();
  if (!k.params.has(Param::GaussianMethod))
    a.gaussian_method = to_string(GaussianMethod::Recursive);
  if (!k.params.has(Param::Derivative)) {
    a.derivative = "none";
    a.normalized = false;
  }
  if (a.ext) {
    const auto ext = parse_extension(*a.ext);
    if (ext && !k.accepts(*ext)) a.ext.reset();
  }
  // The value goes with the constant extension: another extension takes none.
  if (!a.ext || parse_extension(*a.ext) != Extension::Constant) a.cval.reset();
  const auto algo = parse_algorithm(a.algo);
  const std::vector<Algorithm> offered = algorithms_for(Backend::Auto, *kind);
  if (algo && std::find(offered.begin(), offered.end(), *algo) == offered.end())
    a.algo = to_string(Algorithm::Auto);
}

}  // namespace rf
