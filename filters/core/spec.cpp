#include "filters/core/spec.h"

#include <cctype>
#include <cstdio>

#include "filters/core/design.h"
#include "filters/core/errors.h"

namespace rf {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

template <class E, std::size_t N>
std::optional<E> parse_from(const std::pair<E, const char*> (&table)[N], std::string_view s) {
  for (const auto& [value, name] : table)
    if (same_name(s, name)) return value;
  return std::nullopt;
}

template <class E, std::size_t N>
const char* name_from(const std::pair<E, const char*> (&table)[N], E e) {
  for (const auto& [value, name] : table)
    if (value == e) return name;
  return "?";
}

const std::pair<FilterKind, const char*> kKinds[] = {
    {FilterKind::Gaussian, "gaussian"},
    {FilterKind::Deriche, "deriche"},
    {FilterKind::Yvrg, "yvrg"},
    {FilterKind::BSpline3, "bspline3"},
    {FilterKind::BSpline5, "bspline5"},
    {FilterKind::BSpline7, "bspline7"},
    {FilterKind::Exponential, "exp"},
    {FilterKind::Sat, "sat"},
    {FilterKind::EdgeAware, "edge-aware"},
};
const std::pair<Algorithm, const char*> kAlgorithms[] = {
    {Algorithm::Auto, "auto"},       {Algorithm::RT, "rt"},
    {Algorithm::Alg4, "alg4"},       {Algorithm::Alg5, "alg5"},
    {Algorithm::Alg6, "alg6"},       {Algorithm::OneWay, "one-way"},
    {Algorithm::TwoWay, "two-way"},  {Algorithm::EdgeA, "a"},
    {Algorithm::EdgeC, "c"},         {Algorithm::EdgeD, "d"},
    {Algorithm::EdgeExact, "exact"}, {Algorithm::Alg6, "overlapped"},
};
const std::pair<Backend, const char*> kBackends[] = {
    {Backend::Auto, "auto"}, {Backend::Cpu, "cpu"}, {Backend::Cuda, "cuda"}};
const std::pair<Extension, const char*> kExtensions[] = {
    {Extension::Ignore, "ignore"}, {Extension::Zero, "zero"},     {Extension::Clamp, "clamp"},
    {Extension::Repeat, "repeat"}, {Extension::Mirror, "mirror"},
};

}  // namespace

const char* to_string(FilterKind e) {
  return name_from(kKinds, e);
}
const char* to_string(Algorithm e) {
  return name_from(kAlgorithms, e);
}
const char* to_string(Backend e) {
  return name_from(kBackends, e);
}
const char* to_string(Extension e) {
  return name_from(kExtensions, e);
}
std::optional<FilterKind> parse_filter_kind(std::string_view s) {
  return parse_from(kKinds, s);
}
std::optional<Algorithm> parse_algorithm(std::string_view s) {
  return parse_from(kAlgorithms, s);
}
std::optional<Backend> parse_backend(std::string_view s) {
  return parse_from(kBackends, s);
}
std::optional<Extension> parse_extension(std::string_view s) {
  return parse_from(kExtensions, s);
}

std::string describe(const FilterSpec& s) {
  char buf[256];
  switch (s.kind) {
    case FilterKind::Gaussian:
    case FilterKind::Deriche:
      std::snprintf(buf, sizeof buf, "%s order %d sigma %g, %s", to_string(s.kind), s.order,
                    s.sigma, to_string(s.ext));
      break;
    case FilterKind::Yvrg:
      std::snprintf(buf, sizeof buf, "yvrg sigma %g, %s", s.sigma, to_string(s.ext));
      break;
    case FilterKind::Exponential:
      std::snprintf(buf, sizeof buf, "exp pole %g, %s", s.pole, to_string(s.ext));
      break;
    case FilterKind::EdgeAware:
      std::snprintf(buf, sizeof buf, "edge-aware sigma %g sigma_r %g kappa %g, %d iterations",
                    s.sigma, s.sigma_r, s.kappa, s.iterations);
      break;
    default:
      std::snprintf(buf, sizeof buf, "%s, %s", to_string(s.kind), to_string(s.ext));
  }
  std::string out = buf;
  if (s.algo != Algorithm::Auto) out += std::string(", ") + to_string(s.algo);
  return out;
}

FilterSpec parse_spec(const FilterArgs& a) {
  FilterSpec s;
  const auto kind = parse_filter_kind(a.filter);
  if (!kind)
    throw InvalidParameter("--filter: unknown filter '" + a.filter +
                           "' (gaussian, deriche, yvrg, bspline3, bspline5, bspline7, exp, sat, "
                           "edge-aware)");
  const std::string ext_name = a.ext.value_or(kind == FilterKind::Sat ? "zero" : "mirror");
  const auto ext = parse_extension(ext_name);
  if (!ext)
    throw InvalidParameter("--ext: unknown extension '" + ext_name +
                           "' (ignore, zero, clamp, repeat, mirror)");
  const auto algo = parse_algorithm(a.algo);
  if (!algo)
    throw InvalidParameter("--algo: unknown algorithm '" + a.algo +
                           "' (auto, rt, alg4, alg5, alg6, one-way, two-way, a, c, d, exact)");
  const auto backend = parse_backend(a.backend);
  if (!backend)
    throw InvalidParameter("--backend: unknown backend '" + a.backend + "' (auto, cpu, cuda)");
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
    throw InvalidParameter(
        "--ext " + ext_name +
        ": the summed-area table (--filter sat) takes only --ext zero (a running "
        "sum over endless copies of the image would not be finite)");
  validate(s);
  return s;
}

}  // namespace rf
