// FilterSpec: the one plain struct of filter parameters read by the GUI, the CLI, the CPU path and
// the kernels. Widgets and options only change this struct; filtering happens in one place.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "extension.h"

namespace rf {

enum class FilterKind {
  Gaussian,     // order 1: matched first order; 2: Deriche; 3..5: van Vliet-Young-Verbeek 1998
  Deriche,      // Deriche's Gaussian of order 2 or 4 (alternative design)
  Yvrg,         // Young-van Vliet closed form (q, b0..b3, B) as quoted by Lee et al. 2014, order 3
  BSpline3,     // cubic B-spline prefilter, order 1, pole sqrt(3)-2
  BSpline5,     // quintic B-spline prefilter, order 2
  BSpline7,     // septic B-spline prefilter, order 3
  Exponential,  // first-order exponential smoother with pole `pole` in (-1, 1)
  Sat,          // summed-area table: causal only, order 1
  EdgeAware,    // domain-transform recursive Gaussian (edge-aware paper)
};

enum class Algorithm {
  Auto,       // the fastest exact algorithm of the backend
  RT,         // one thread per column then per row (Ruijters-Thevenaz)
  Alg4,       // Nehab et al. 2011 algorithm 4 per dimension: causal-anticausal overlapped
  Alg5,       // algorithm 5: rows and columns fully overlapped, row fix-ups inside the row scan
  Alg6,       // algorithm 6 (Nehab & Maximo 2016): algorithm 5 with the fix-ups done in parallel
  OneWay,     // Lee et al. 2014: one thread per line, forward then backward
  TwoWay,     // Lee et al. 2014: Bl / Pc / Br partition
  EdgeA,      // edge-aware: exact, line-sequential
  EdgeC,      // edge-aware: blocks warmed up over kappa * sigma
  EdgeD,      // edge-aware: every block approximated
  EdgeExact,  // edge-aware: block-parallel, stitched exactly by a scan of affine maps
};

enum class Backend { Auto, Cpu, Cuda };

// How the Gaussian kind is computed: its recursive design (exact to the design at any sigma), the
// sampled Gaussian as a FIR truncated at four sigma (scipy.ndimage's kernel; filters/fir/fir.h),
// or the faster of the two on the backend that runs it, measured (fir.h says where).
enum class GaussianMethod { Recursive, Fir, Auto };

// What a Gaussian kind computes (Param::Derivative): the smoothed image, one of its partial
// derivatives, or a measure made of them. The engines take the derivative of the smoothed image by
// differences (filters/core/derivative.h says how, and why that is exact at the border).
struct Derivative {
  enum class Measure {
    Partial,            // d^(x + y) / dx^x dy^y of the smoothed image; (0, 0): the filter itself
    GradientMagnitude,  // sqrt((d/dx)^2 + (d/dy)^2)
    Laplacian,          // d2/dx2 + d2/dy2
  };
  int x = 0, y = 0;  // Partial: the order along x and along y, 0, 1 or 2 each
  Measure measure = Measure::Partial;
  // Scale-normalised: each partial times sigma^order along its axis (ITK's NormalizeAcrossScale),
  // so that responses compare across scales.
  bool normalized = false;

  bool any() const { return x != 0 || y != 0 || measure != Measure::Partial; }
  bool operator==(const Derivative& o) const {
    return x == o.x && y == o.y && measure == o.measure && normalized == o.normalized;
  }
  bool operator!=(const Derivative& o) const { return !(*this == o); }
};

// The axes of an image: X along rows (the image width), Y along columns (the height).
enum class Axis { X, Y };

// The axes a spec filters a frame along: both, or one with the other left alone (a batch of
// lines; rf::filter_array in array.h filters an N-D array one axis at a time this way). The
// block algorithms that overlap the two axes (alg5, alg6), Lee et al.'s partitions and the
// edge-aware filter take both only.
enum class Axes { Both, X, Y };

struct FilterSpec {
  FilterKind kind = FilterKind::Gaussian;
  double sigma = 4.0;  // Gaussian standard deviation in pixels (Gaussian, Deriche, Yvrg, EdgeAware)
  // The standard deviation along Y (the image height) where it differs from `sigma`, which is then
  // the one along X; unset, `sigma` holds for both axes (kinds with Param::SigmaY).
  std::optional<double> sigma_y;
  int order = 3;      // recursion order r = 1..5 (Gaussian, Deriche)
  double pole = 0.5;  // Exponential smoother pole, |pole| < 1
  Extension ext = Extension::Mirror;
  double cval = 0.0;      // the value outside the image under Extension::Constant (frame scale)
  Derivative derivative;  // the Gaussian kinds: a derivative of the smoothed image
  Axes axes = Axes::Both;
  double sigma_r = 0.2;  // EdgeAware range sigma on the [0, 1] intensity scale
  double kappa = 2.0;    // EdgeAware warm-up distance in units of sigma (algorithms C, D)
  int iterations = 2;    // EdgeAware iterations N
  Algorithm algo = Algorithm::Auto;  // the recursive algorithm (Fir runs none)
  Backend backend = Backend::Auto;
  GaussianMethod gaussian_method = GaussianMethod::Recursive;  // kinds with Param::GaussianMethod

  bool operator==(const FilterSpec& o) const {
    return kind == o.kind && sigma == o.sigma && sigma_y == o.sigma_y && order == o.order &&
           pole == o.pole && ext == o.ext && cval == o.cval && derivative == o.derivative &&
           axes == o.axes && sigma_r == o.sigma_r && kappa == o.kappa &&
           iterations == o.iterations && algo == o.algo && backend == o.backend &&
           gaussian_method == o.gaussian_method;
  }
  bool operator!=(const FilterSpec& o) const { return !(*this == o); }
};

// Names as used on the command line, in presets and JSON: "gaussian", "bspline3", "mirror", ...
// Parsing ignores case ("Mirror", "A") and takes the aliases of filter_table.h ("overlapped", an
// older name, reads as alg6). Every name is defined there, once.
const char* to_string(FilterKind);
const char* to_string(Algorithm);
const char* to_string(Backend);
const char* to_string(Extension);
const char* to_string(GaussianMethod);
std::optional<FilterKind> parse_filter_kind(std::string_view);
std::optional<Algorithm> parse_algorithm(std::string_view);
std::optional<Backend> parse_backend(std::string_view);
std::optional<Extension> parse_extension(std::string_view);
std::optional<GaussianMethod> parse_gaussian_method(std::string_view);

// A derivative as rfcli's --derivative and presets write it: "none", "DX,DY" ("1,0" is d/dx,
// "0,2" d2/dy2, "1,1" d2/dxdy), "gradient" or "laplacian"; parsing also takes "dx", "dy", "dxx",
// "dyy" and "dxy". Scale normalisation is a flag of its own (--normalized) and not in the text.
std::string to_string(const Derivative&);
std::optional<Derivative> parse_derivative(std::string_view);

// The partials a derivative is made of, each its orders along x and y: one for a partial, d/dx
// and d/dy for the gradient magnitude, d2/dx2 and d2/dy2 for the Laplacian.
struct Partial {
  int x = 0, y = 0;
};
std::vector<Partial> partials(const Derivative&);

// One line describing the spec for logs, titles and JSON sidecars.
std::string describe(const FilterSpec&);

// Whether the spec filters along `axis` (FilterSpec::axes).
bool filters_along(const FilterSpec& spec, Axis axis);

// The standard deviation along `axis`: sigma_y along Y where it is set, sigma otherwise.
double sigma_along(const FilterSpec& spec, Axis axis);

// The one-dimensional filter a spec applies along one axis: what the design of its recursion
// reads (rf::design(const LineSpec&) in design.h).
struct LineSpec {
  FilterKind kind = FilterSpec().kind;
  double sigma = FilterSpec().sigma;
  int order = FilterSpec().order;
  double pole = FilterSpec().pole;
  Extension ext = FilterSpec().ext;
  // The order of the derivative taken along the line, 0..2: the design smooths for it with
  // sigma^2 minus the variance of the difference that follows (derivative.h).
  int derivative = 0;
};

// The filter along `axis`: the same fields of FilterSpec for both axes but the sigma.
LineSpec line_spec(const FilterSpec& spec, Axis axis);

// The filter parameters as a person gives them: rfcli's options and the Python module's keyword
// arguments, names in place of the enums. The defaults are FilterSpec's.
struct FilterArgs {
  std::string filter = to_string(FilterSpec().kind);
  double sigma = FilterSpec().sigma;  // along X, and along Y unless sigma_y is given
  std::optional<double> sigma_y;      // along Y (rfcli: --sigma SX,SY)
  std::optional<int> order;  // default: the kind's (gaussian 3, deriche 2; fixed for the others)
  double pole = FilterSpec().pole;
  std::optional<std::string> ext;   // default: the kind's (zero for sat, mirror otherwise)
  std::optional<double> cval;       // --cval: the constant extension's value (default 0)
  std::string derivative = "none";  // --derivative: parse_derivative's text
  bool normalized = false;          // --normalized: scale-normalised derivatives
  double sigma_r = FilterSpec().sigma_r;
  double kappa = FilterSpec().kappa;
  int iterations = FilterSpec().iterations;
  std::string algo = to_string(FilterSpec().algo);
  std::string backend = to_string(FilterSpec().backend);
  std::string gaussian_method = to_string(FilterSpec().gaussian_method);
};

// The spec the arguments name, validated (rf::validate). Throws InvalidParameter with one line a
// person can act on, naming the option as rfcli spells it ("--ext: unknown extension 'mirorr'
// (ignore, zero, clamp, repeat, mirror)"), so every front end reports a mistake the same way.
// A kind with a fixed order gets that order whatever `order` says; an algorithm must be one that
// some backend offers for the kind (the engine checks its own backend when it plans).
FilterSpec parse_spec(const FilterArgs& args);

// parse_spec's names and defaults without its checks of the values: for rfstudio, which shows
// the message of a value the filter refuses and lets the person change it there.
FilterSpec parse_spec_unvalidated(const FilterArgs& args);

// "--sigma" as rfcli and rfstudio take it, "4" or "4,2" (along x, then y): into args.sigma and
// args.sigma_y (reset for one value). Throws InvalidParameter naming the option for text that is
// not one or two numbers; the values themselves are checked by parse_spec.
void set_sigmas(FilterArgs& args, const std::string& text);

// The arguments that name `spec`, for a front end that edits a spec already made (rfstudio's
// options over a preset, a preset over the current state).
FilterArgs to_args(const FilterSpec& spec);

// Names another filter in `args`: the order (where the kind before took one), extension and
// algorithm it carries stay where the new kind offers them and give way to its defaults otherwise
// (gaussian order 3 becomes deriche order 2, mirror becomes zero for sat). An unknown name is
// kept, for parse_spec to refuse.
void change_filter(FilterArgs& args, const std::string& name);

}  // namespace rf
