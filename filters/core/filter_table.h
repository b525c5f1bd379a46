// The names a person types, each defined once: the filter kinds, the boundary extensions, the
// algorithms and the backends, with what each one is, what it takes and what accepts it.
// spec.h's parse_* and to_string, parse_spec, describe, rf::validate, algorithms_for, the help
// texts and messages of rfcli and rfstudio, the GUI's lists and the Python module's docstrings
// all read these tables; nothing else spells the names.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "extension.h"
#include "spec.h"

namespace rf {

// The FilterSpec fields a kind reads. Order is a choice of recursion order (a kind whose design
// has one fixed order does not read FilterSpec::order); Ext is the boundary extension.
enum class Param : unsigned {
  Sigma = 1u << 0,
  Order = 1u << 1,
  Pole = 1u << 2,
  SigmaR = 1u << 3,
  Kappa = 1u << 4,
  Iterations = 1u << 5,
  Ext = 1u << 6,
  SigmaY = 1u << 7,          // a sigma of its own along Y (FilterSpec::sigma_y)
  Derivative = 1u << 8,      // a derivative of the smoothed image (FilterSpec::derivative)
  GaussianMethod = 1u << 9,  // recursive, FIR or the faster (FilterSpec::gaussian_method)
};

class ParamSet {
 public:
  constexpr ParamSet() = default;
  constexpr ParamSet(Param p) : bits_(unsigned(p)) {}  // NOLINT: a single parameter is a set
  constexpr ParamSet operator|(ParamSet o) const { return from_bits(bits_ | o.bits_); }
  constexpr bool has(Param p) const { return (bits_ & unsigned(p)) != 0; }

 private:
  static constexpr ParamSet from_bits(unsigned bits) {
    ParamSet s;
    s.bits_ = bits;
    return s;
  }
  unsigned bits_ = 0;
};

constexpr ParamSet operator|(Param a, Param b) {
  return ParamSet(a) | ParamSet(b);
}

// An interval of accepted values; an open end excludes its bound, NaN is never inside.
struct Range {
  double lo = 0.0, hi = 0.0;
  bool lo_open = false, hi_open = false;
  bool contains(double v) const;
};

struct ParamInfo {
  Param param;
  const char* key;     // the preset key and Python keyword: "sigma_r"
  const char* option;  // rfcli's and rfstudio's option: "--sigma-r"
  const char* help;    // what it is, for help texts
  Range range;         // accepted values (sigma: further limited per kind and order)
};

// One recursion order a kind's design offers, and the sigmas its design holds at that order.
struct OrderInfo {
  int order = 0;
  double min_sigma = 0.0;  // sigma >= min_sigma, besides Param::Sigma's range
  double max_sigma = std::numeric_limits<double>::infinity();  // sigma <= max_sigma
};

struct KindInfo {
  FilterKind kind;
  const char* name;                  // "gaussian": parsed, printed, written to presets and JSON
  std::vector<const char*> aliases;  // other names parsed as this kind
  const char* title;                 // a noun phrase for people: "summed-area table"
  const char* description;           // one line for help texts
  ParamSet params;                   // what it reads of a FilterSpec
  std::vector<OrderInfo> orders;     // the orders its design offers (one: a fixed order)
  int default_order;
  std::vector<Extension> extensions;  // the extensions it accepts
  Extension default_ext;
  const char* why_these_extensions;  // why only these, where it does not take them all
  bool approximates_gaussian;        // designed to approximate a Gaussian of standard dev. sigma

  const OrderInfo* order_info(int order) const;  // nullptr when not offered
  bool offers_order(int order) const { return order_info(order) != nullptr; }
  bool accepts(Extension e) const;
};

struct ExtensionInfo {
  Extension ext;
  const char* name;
  std::vector<const char*> aliases;
  const char* picture;  // a line a b c and what lies beyond its ends: "c b a | a b c | c b a"
  const char* gl;       // the GL wrap mode that continues a texture the same way ("" if none)
  const char* description;
};

struct AlgorithmInfo {
  Algorithm algo;
  const char* name;
  std::vector<const char*> aliases;  // "overlapped", an older name of alg6
  const char* description;
  std::vector<Backend> backends;  // Cpu and Cuda: the backends that run it
  std::vector<FilterKind> kinds;  // the kinds it filters
};

struct MethodInfo {
  GaussianMethod method;
  const char* name;
  std::vector<const char*> aliases;
  const char* description;
  // The largest sigma it takes: the FIR's cost grows with sigma (a frame of the studio stays
  // interactive on the CPU up to it), the recursion's does not.
  double max_sigma = std::numeric_limits<double>::infinity();
};

struct BackendInfo {
  Backend backend;
  const char* name;
  std::vector<const char*> aliases;
  const char* description;
};

// The tables, in the order help texts, messages and GUI lists show them.
const std::vector<KindInfo>& kind_table();
const std::vector<ExtensionInfo>& extension_table();
const std::vector<AlgorithmInfo>& algorithm_table();
const std::vector<BackendInfo>& backend_table();
const std::vector<MethodInfo>& method_table();
const std::vector<ParamInfo>& param_table();

// The row of a value; throws std::invalid_argument for a value outside its enum.
const KindInfo& info(FilterKind kind);
const ExtensionInfo& info(Extension ext);
const AlgorithmInfo& info(Algorithm algo);
const BackendInfo& info(Backend backend);
const MethodInfo& info(GaussianMethod method);
const ParamInfo& info(Param param);

// Comma-separated names, as messages list them: "gaussian, deriche, ..., edge-aware".
std::string kind_names();
std::string extension_names();
std::string algorithm_names();
std::string backend_names();
std::string method_names();
std::string names_of(const std::vector<Algorithm>& algos);

// A kind's orders for people: "1..5", "2 or 4", "3".
std::string orders_text(const KindInfo& kind);

// The sigmas a kind's design holds at `order` (a fixed-order kind: at its order, whatever
// `order` says): Param::Sigma's range narrowed by the order's limits.
Range sigma_range(FilterKind kind, int order);

// The spec with another kind, by change_filter's rule (spec.h): its order, extension and
// algorithm kept where that kind offers them, the kind's defaults otherwise. For a front end that
// changes the kind of a spec already made (the GUI's kind box).
FilterSpec with_kind(FilterSpec spec, FilterKind kind);

// The descriptions of the filter options rfcli and rfstudio share, generated from the tables.
struct OptionHelp {
  std::string filter, sigma, sigma_y, order, pole, ext, cval, derivative, sigma_r, kappa,
      iterations, algo, backend, gaussian_method;
};
const OptionHelp& option_help();

}  // namespace rf
