#include "filters/core/filter_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace rf {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

constexpr double kMaxSigma = 2000.0;
// The FIR method's largest sigma: 257 taps, 45 ms for a 512^2 RGBA float frame on two cores.
constexpr double kMaxFirSigma = 32.0;
// Beyond these the poles crowd so close to z = 1 that the direct-form coefficients, rounded to
// double, no longer hold them: the variance of the designed pair drifts from sigma^2 by more than
// ~6e-4 (order 4) or ~2e-4 (order 5), and order 5 turns unstable near sigma = 800.
constexpr double kMaxSigmaOrder4 = 1000.0;
constexpr double kMaxSigmaOrder5 = 200.0;
// Below this the sampled Gaussian is nearly a single tap and the higher-order designs wrap their
// poles around the unit circle; Young and van Vliet's closed form starts its q(sigma) branches
// here.
constexpr double kMinSigmaHigherOrder = 0.5;

constexpr ParamSet kGaussianParams =
    Param::Sigma | Param::SigmaY | Param::Order | Param::Ext | Param::Derivative;

std::vector<Extension> every_extension() {
  return {std::begin(kAllExtensions), std::end(kAllExtensions)};
}

std::vector<FilterKind> every_kind() {
  std::vector<FilterKind> out;
  for (const KindInfo& k : kind_table()) out.push_back(k.kind);
  return out;
}

std::vector<FilterKind> every_kind_but(FilterKind excluded) {
  std::vector<FilterKind> out = every_kind();
  out.erase(std::find(out.begin(), out.end(), excluded));
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

template <class Row>
std::string names_in(const std::vector<Row>& table) {
  std::string out;
  for (const Row& row : table) out += std::string(out.empty() ? "" : ", ") + row.name;
  return out;
}

template <class Row, class Value>
const Row& row_of(const std::vector<Row>& table, Value value, Value Row::*field, const char* what) {
  for (const Row& row : table)
    if (row.*field == value) return row;
  throw std::invalid_argument(std::string("no ") + what + " " + std::to_string(int(value)));
}

// "a" ; "a or b" ; "a, b or c".
std::string or_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " or " : ", ";
    out += items[i];
  }
  return out;
}

// "edge-aware" ; "all but edge-aware" ; "" for every kind.
std::string kinds_text(const std::vector<FilterKind>& kinds) {
  const std::vector<KindInfo>& all = kind_table();
  if (kinds.size() == all.size()) return "";
  if (kinds.size() + 1 == all.size())
    for (const KindInfo& k : all)
      if (std::find(kinds.begin(), kinds.end(), k.kind) == kinds.end())
        return std::string("all but ") + k.name;
  std::vector<std::string> names;
  for (FilterKind k : kinds) names.push_back(info(k).name);
  return or_list(names);
}

std::string algo_help() {
  // Consecutive algorithms that filter the same kinds share one note, which also names those
  // that run on one backend only.
  std::string out;
  const std::vector<AlgorithmInfo>& table = algorithm_table();
  for (std::size_t i = 0; i < table.size();) {
    std::string group, note = kinds_text(table[i].kinds);
    std::size_t j = i;
    for (; j < table.size() && table[j].kinds == table[i].kinds; ++j) {
      group += std::string(group.empty() ? "" : ", ") + table[j].name;
      if (table[j].backends.size() == 1)
        note += std::string(note.empty() ? "" : "; ") + table[j].name + " on " +
                info(table[j].backends[0]).name + " only";
    }
    out += std::string(i == 0 ? "" : "; ") + group + (note.empty() ? "" : " (" + note + ")");
    i = j;
  }
  return out;
}

std::string ext_help() {
  const KindInfo& first = kind_table().front();
  std::string out = std::string("boundary extension: ") + extension_names() + " (default " +
                    to_string(first.default_ext);
  for (const KindInfo& k : kind_table()) {
    if (k.extensions == every_extension() && k.default_ext == first.default_ext) continue;
    std::vector<std::string> names;
    for (Extension e : k.extensions) names.push_back(to_string(e));
    out += std::string("; ") + k.name + " takes " + or_list(names) + ", default " +
           to_string(k.default_ext);
  }
  out += "). A line a b c (d) continues as";
  for (const ExtensionInfo& e : extension_table()) {
    std::string also;
    for (const char* alias : e.aliases) also += std::string(also.empty() ? " = " : ", ") + alias;
    out += std::string(e.ext == extension_table().front().ext ? " " : "; ") + e.name + also + ": " +
           e.picture;
  }
  return out;
}

std::string order_help() {
  std::string chosen, fixed;
  for (const KindInfo& k : kind_table()) {
    if (k.params.has(Param::Order))
      chosen += std::string(chosen.empty() ? "" : ", ") + k.name + " " + orders_text(k) +
                " (default " + std::to_string(k.default_order) + ")";
    else
      fixed += std::string(fixed.empty() ? "" : ", ") + k.name + " " + orders_text(k);
  }
  return "recursion order: " + chosen + "; fixed for the others (" + fixed + ")";
}

std::string range_help(const char* name, const Range& r) {
  if (r.lo_open && r.hi_open && r.lo == -r.hi)
    return std::string("|") + name + "| < " + number(r.hi);
  const std::string lo = std::string(r.lo_open ? "> " : ">= ") + number(r.lo);
  if (r.hi == kInfinity) return lo;
  return number(r.lo) + (r.lo_open ? " < " : " <= ") + name + (r.hi_open ? " < " : " <= ") +
         number(r.hi);
}

std::string param_help(Param p) {
  const ParamInfo& i = info(p);
  return std::string(i.help) + ", " + range_help(i.key, i.range);
}

}  // namespace

bool Range::contains(double v) const {
  if (std::isnan(v)) return false;
  const bool above_lo = lo_open ? v > lo : v >= lo;
  const bool below_hi = hi_open ? v < hi : v <= hi;
  return above_lo && below_hi;
}

const OrderInfo* KindInfo::order_info(int order) const {
  for (const OrderInfo& o : orders)
    if (o.order == order) return &o;
  return nullptr;
}

bool KindInfo::accepts(Extension e) const {
  return std::find(extensions.begin(), extensions.end(), e) != extensions.end();
}

const std::vector<KindInfo>& kind_table() {
  static const std::vector<KindInfo> table = {
      {FilterKind::Gaussian,
       "gaussian",
       {},
       "Gaussian",
       "Gaussian of order 1 (matched first order), 2 (Deriche's poles) or 3..5 (van Vliet, Young "
       "and Verbeek 1998)",
       kGaussianParams | Param::GaussianMethod,
       {{1, 0.0, kMaxSigma},
        {2, kMinSigmaHigherOrder, kMaxSigma},
        {3, kMinSigmaHigherOrder, kMaxSigma},
        {4, kMinSigmaHigherOrder, kMaxSigmaOrder4},
        {5, kMinSigmaHigherOrder, kMaxSigmaOrder5}},
       3,
       every_extension(),
       Extension::Mirror,
       "",
       true},
      {FilterKind::Deriche,
       "deriche",
       {},
       "Deriche Gaussian",
       "Deriche's Gaussian of order 2 or 4 (Deriche 1993)",
       kGaussianParams,
       {{2, kMinSigmaHigherOrder, kMaxSigma}, {4, kMinSigmaHigherOrder, kMaxSigmaOrder4}},
       2,
       every_extension(),
       Extension::Mirror,
       "",
       true},
      {FilterKind::Yvrg,
       "yvrg",
       {},
       "Young-van Vliet Gaussian",
       "Young and van Vliet's closed-form Gaussian of order 3 (q, b0..b3, B), as Lee et al. 2014 "
       "quote it",
       Param::Sigma | Param::SigmaY | Param::Ext | Param::Derivative,
       {{3, kMinSigmaHigherOrder, kMaxSigma}},
       3,
       every_extension(),
       Extension::Mirror,
       "",
       true},
      {FilterKind::BSpline3,
       "bspline3",
       {},
       "cubic B-spline prefilter",
       "cubic B-spline prefilter (the inverse of the sampled kernel), order 1, pole sqrt(3) - 2",
       Param::Ext,
       {{1}},
       1,
       every_extension(),
       Extension::Mirror,
       "",
       false},
      {FilterKind::BSpline5,
       "bspline5",
       {},
       "quintic B-spline prefilter",
       "quintic B-spline prefilter, order 2",
       Param::Ext,
       {{2}},
       2,
       every_extension(),
       Extension::Mirror,
       "",
       false},
      {FilterKind::BSpline7,
       "bspline7",
       {},
       "septic B-spline prefilter",
       "septic B-spline prefilter, order 3",
       Param::Ext,
       {{3}},
       3,
       every_extension(),
       Extension::Mirror,
       "",
       false},
      {FilterKind::Exponential,
       "exp",
       {"exponential"},
       "exponential smoother",
       "first-order exponential smoother with the pole --pole",
       Param::Pole | Param::Ext,
       {{1}},
       1,
       every_extension(),
       Extension::Mirror,
       "",
       false},
      {FilterKind::Sat,
       "sat",
       {},
       "summed-area table",
       "summed-area table: a running sum, causal only, order 1",
       Param::Ext,
       {{1}},
       1,
       // The running sum's pole sits on the unit circle: it never forgets. Ignore starts from
       // zero as well, the same thing for a causal-only filter.
       {Extension::Ignore, Extension::Zero},
       Extension::Zero,
       "a running sum over anything but zeros beyond the image would not be finite",
       false},
      {FilterKind::EdgeAware,
       "edge-aware",
       {"domain-transform"},
       "edge-aware Gaussian",
       "edge-aware Gaussian (domain transform): Deriche's order-4 recursion over distances that "
       "grow across edges",
       Param::Sigma | Param::SigmaR | Param::Kappa | Param::Iterations,
       {{4, 0.0, kMaxSigma}},
       4,
       // Each line's recursion starts in the steady state of its end sample (edge_aware.cpp):
       // the constant extension, which is clamp.
       {Extension::Clamp},
       Extension::Clamp,
       "the domain transform extends each line by its end sample",
       false},
  };
  return table;
}

const std::vector<ExtensionInfo>& extension_table() {
  static const std::vector<ExtensionInfo> table = {
      {Extension::Ignore,
       "ignore",
       {},
       ". . . | a b c | . . .",
       "",
       "zero initial feedback, the naive start: not an extension, it shows boundary artifacts"},
      {Extension::Zero,
       "zero",
       {},
       "0 0 0 | a b c | 0 0 0",
       "GL_CLAMP_TO_BORDER",
       "black outside the image"},
      {Extension::Clamp,
       "clamp",
       {"nearest"},
       "a a a | a b c | c c c",
       "GL_CLAMP_TO_EDGE",
       "the edge pixel repeated"},
      {Extension::Repeat,
       "repeat",
       {"wrap"},
       "a b c | a b c | a b c",
       "GL_REPEAT",
       "the image tiled periodically"},
      {Extension::Mirror,
       "mirror",
       {"reflect"},
       "c b a | a b c | c b a",
       "GL_MIRRORED_REPEAT",
       "half-sample symmetric, even-periodic (OpenCV's BORDER_REFLECT, scipy's 'reflect')"},
      {Extension::Reflect101,
       "reflect101",
       {"reflect-101", "reflect_101"},
       "d c b | a b c d | c b a",
       "",
       "whole-sample symmetric: the edge pixel is not repeated (OpenCV's BORDER_REFLECT_101, "
       "scipy's 'mirror')"},
      {Extension::Constant,
       "constant",
       {},
       "k k k | a b c | k k k",
       "GL_CLAMP_TO_BORDER",
       "the value --cval outside the image, on the [0, 1] scale of 8- and 16-bit images "
       "(OpenCV's BORDER_CONSTANT, scipy's 'constant'); zero is constant 0"},
  };
  return table;
}

const std::vector<AlgorithmInfo>& algorithm_table() {
  static const std::vector<FilterKind> recursive = every_kind_but(FilterKind::EdgeAware);
  static const std::vector<AlgorithmInfo> table = {
      {Algorithm::Auto,
       "auto",
       {},
       "the fastest exact algorithm of the backend",
       {Backend::Cpu, Backend::Cuda},
       every_kind()},
      {Algorithm::RT,
       "rt",
       {},
       "one thread per column, then per row (Ruijters-Thevenaz)",
       {Backend::Cpu, Backend::Cuda},
       recursive},
      {Algorithm::Alg4,
       "alg4",
       {},
       "Nehab et al. 2011 algorithm 4 per dimension: causal-anticausal overlapped",
       {Backend::Cuda},
       recursive},
      {Algorithm::Alg5,
       "alg5",
       {},
       "Nehab et al. 2011 algorithm 5: rows and columns fully overlapped, row fix-ups inside the "
       "row scan",
       {Backend::Cpu, Backend::Cuda},
       recursive},
      {Algorithm::Alg6,
       "alg6",
       {"overlapped"},
       "Nehab & Maximo 2016 algorithm 6: algorithm 5 with the fix-ups done in parallel",
       {Backend::Cpu, Backend::Cuda},
       recursive},
      {Algorithm::OneWay,
       "one-way",
       {},
       "Lee et al. 2014: one thread per line, forward then backward",
       {Backend::Cpu, Backend::Cuda},
       {FilterKind::Yvrg}},
      {Algorithm::TwoWay,
       "two-way",
       {},
       "Lee et al. 2014: each line partitioned into Bl / Pc / Br",
       {Backend::Cpu, Backend::Cuda},
       {FilterKind::Yvrg}},
      {Algorithm::EdgeA,
       "a",
       {},
       "edge-aware Algorithm A: exact, line-sequential",
       {Backend::Cpu, Backend::Cuda},
       {FilterKind::EdgeAware}},
      {Algorithm::EdgeC,
       "c",
       {},
       "edge-aware Algorithm C: blocks warmed up over kappa sigma",
       {Backend::Cpu, Backend::Cuda},
       {FilterKind::EdgeAware}},
      {Algorithm::EdgeD,
       "d",
       {},
       "edge-aware Algorithm D: every block approximated (the worst case)",
       {Backend::Cpu, Backend::Cuda},
       {FilterKind::EdgeAware}},
      {Algorithm::EdgeExact,
       "exact",
       {},
       "edge-aware, exact and block-parallel: blocks stitched by a scan of affine maps",
       {Backend::Cpu, Backend::Cuda},
       {FilterKind::EdgeAware}},
  };
  return table;
}

const std::vector<BackendInfo>& backend_table() {
  static const std::vector<BackendInfo> table = {
      {Backend::Auto, "auto", {}, "CUDA when a device is present, else the CPU"},
      {Backend::Cpu,
       "cpu",
       {},
       "the CPU: lines in SIMD lanes, blocks of lines across OpenMP threads"},
      {Backend::Cuda, "cuda", {}, "an NVIDIA GPU through CUDA"},
  };
  return table;
}

const std::vector<MethodInfo>& method_table() {
  static const std::vector<MethodInfo> table = {
      {GaussianMethod::Recursive,
       "recursive",
       {"iir"},
       "the recursive design of --order, exact at every border and flat in cost at any sigma"},
      {GaussianMethod::Fir,
       "fir",
       {},
       "the sampled Gaussian truncated at 4 sigma (scipy.ndimage's kernel), exact at every "
       "border, its cost growing with sigma (up to sigma 32)",
       kMaxFirSigma},
      {GaussianMethod::Auto,
       "auto",
       {"best"},
       "the faster of the two on the backend that runs it, as measured: the FIR at small sigma"},
  };
  return table;
}

const std::vector<ParamInfo>& param_table() {
  static const std::vector<ParamInfo> table = {
      {Param::Sigma,
       "sigma",
       "--sigma",
       "Gaussian standard deviation in pixels",
       {0.0, kMaxSigma, true, false}},
      {Param::SigmaY,
       "sigma_y",
       "--sigma",
       "Gaussian standard deviation along y (the image height), where it differs from sigma",
       {0.0, kMaxSigma, true, false}},
      {Param::Order, "order", "--order", "recursion order", {1.0, 5.0, false, false}},
      {Param::Pole, "pole", "--pole", "pole of the exponential smoother", {-1.0, 1.0, true, true}},
      {Param::SigmaR,
       "sigma_r",
       "--sigma-r",
       "edge-aware range sigma on the [0, 1] intensity scale",
       {0.0, kInfinity, true, true}},
      {Param::Kappa,
       "kappa",
       "--kappa",
       "edge-aware warm-up distance of an approximated block, in sigmas",
       {0.0, kInfinity, false, true}},
      {Param::Iterations,
       "iterations",
       "--iterations",
       "edge-aware iterations",
       {1.0, kInfinity, false, true}},
      {Param::Ext, "ext", "--ext", "boundary extension", {}},
      {Param::Derivative,
       "derivative",
       "--derivative",
       "Gaussian derivative: none, DX,DY (the order along x and y, 0, 1 or 2 each; dx, dy, dxx, "
       "dyy, dxy name five), gradient (its magnitude) or laplacian",
       {0.0, 2.0, false, false}},
      {Param::GaussianMethod,
       "gaussian_method",
       "--gaussian-method",
       "how the Gaussian is computed",
       {}},
  };
  return table;
}

const KindInfo& info(FilterKind kind) {
  return row_of(kind_table(), kind, &KindInfo::kind, "filter kind");
}
const ExtensionInfo& info(Extension ext) {
  return row_of(extension_table(), ext, &ExtensionInfo::ext, "extension");
}
const AlgorithmInfo& info(Algorithm algo) {
  return row_of(algorithm_table(), algo, &AlgorithmInfo::algo, "algorithm");
}
const BackendInfo& info(Backend backend) {
  return row_of(backend_table(), backend, &BackendInfo::backend, "backend");
}
const MethodInfo& info(GaussianMethod method) {
  return row_of(method_table(), method, &MethodInfo::method, "Gaussian method");
}
const ParamInfo& info(Param param) {
  return row_of(param_table(), param, &ParamInfo::param, "parameter");
}

std::string kind_names() {
  return names_in(kind_table());
}
std::string extension_names() {
  return names_in(extension_table());
}
std::string method_names() {
  return names_in(method_table());
}
std::string algorithm_names() {
  return names_in(algorithm_table());
}
std::string backend_names() {
  return names_in(backend_table());
}
std::string names_of(const std::vector<Algorithm>& algos) {
  std::string out;
  for (Algorithm a : algos) out += std::string(out.empty() ? "" : ", ") + info(a).name;
  return out;
}

std::string orders_text(const KindInfo& kind) {
  std::vector<std::string> orders;
  for (const OrderInfo& o : kind.orders) orders.push_back(std::to_string(o.order));
  const int first = kind.orders.front().order, last = kind.orders.back().order;
  if (orders.size() > 2 && last - first + 1 == int(orders.size()))
    return std::to_string(first) + ".." + std::to_string(last);
  return or_list(orders);
}

Range sigma_range(FilterKind kind, int order) {
  const KindInfo& k = info(kind);
  Range r = info(Param::Sigma).range;
  const OrderInfo* o = k.params.has(Param::Order) ? k.order_info(order) : &k.orders.front();
  if (!o) return r;
  if (o->min_sigma > r.lo) {
    r.lo = o->min_sigma;
    r.lo_open = false;
  }
  if (o->max_sigma < r.hi) {
    r.hi = o->max_sigma;
    r.hi_open = false;
  }
  return r;
}

FilterSpec with_kind(FilterSpec spec, FilterKind kind) {
  FilterArgs args = to_args(spec);
  change_filter(args, to_string(kind));
  return parse_spec_unvalidated(args);
}

namespace {

// The kinds that take a derivative, as help texts list them.
std::string derivative_kinds() {
  std::string out;
  for (const KindInfo& k : kind_table())
    if (k.params.has(Param::Derivative)) out += std::string(out.empty() ? "" : ", ") + k.name;
  return out;
}

}  // namespace

const OptionHelp& option_help() {
  static const OptionHelp help = [] {
    OptionHelp h;
    h.filter = kind_names();
    h.sigma = param_help(Param::Sigma) +
              " (less for some orders); SX,SY: one along x (the width), one along y";
    h.sigma_y = param_help(Param::SigmaY);
    h.order = order_help();
    h.pole = param_help(Param::Pole);
    h.ext = ext_help();
    h.cval =
        "the value outside the image of --ext constant, on the [0, 1] scale of 8- and 16-bit "
        "images (default 0)";
    h.derivative = std::string(info(Param::Derivative).help) + "; the Gaussian kinds (" +
                   derivative_kinds() +
                   "); values are signed, per unit of the image's scale per pixel";
    h.sigma_r = param_help(Param::SigmaR);
    h.kappa = param_help(Param::Kappa);
    h.iterations = param_help(Param::Iterations);
    h.algo = algo_help();
    h.backend = backend_names() + " (auto: " + info(Backend::Auto).description + ")";
    h.gaussian_method = std::string(info(Param::GaussianMethod).help) + " (--filter gaussian):";
    for (const MethodInfo& m : method_table())
      h.gaussian_method += std::string(m.method == method_table().front().method ? " " : "; ") +
                           m.name + ": " + m.description;
    return h;
  }();
  return help;
}

}  // namespace rf
