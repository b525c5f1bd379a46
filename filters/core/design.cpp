#include "filters/core/design.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

#include "filters/core/derivative.h"
#include "filters/core/errors.h"
#include "filters/core/filter_table.h"
#include "filters/core/gaussian_design.h"

namespace rf {
namespace {

using design_math::Complex;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

[[noreturn]] void refuse(const std::string& message) {
  throw InvalidParameter(message);
}

// A value outside `r`, refused in words a person reads: "sigma must be > 0 (got -1)",
// "pole must satisfy |pole| < 1 (got 1.5)", "iterations must be >= 1 (got 0)".
void check_range(const char* name, const Range& r, double v, bool integer) {
  if (r.contains(v)) return;
  if (r.lo_open && r.hi_open && r.lo == -r.hi)
    refuse(std::string(name) + " must satisfy |" + name + "| < " + number(r.hi) + " (got " +
           number(v) + ")");
  const std::string lo = std::string(r.lo_open ? "> " : ">= ") + number(r.lo);
  if (!std::isfinite(v) || (std::isinf(r.hi) && !integer))
    refuse(std::string(name) + " must be a finite number " + lo + " (got " + number(v) + ")");
  if (!(r.lo_open ? v > r.lo : v >= r.lo))
    refuse(std::string(name) + " must be " + lo + " (got " + number(v) + ")");
  refuse(std::string(name) + " must be " + (r.hi_open ? "< " : "<= ") + number(r.hi) + " (got " +
         number(v) + ")");
}

// van Vliet, Young and Verbeek 1998, "Recursive Gaussian derivative filters", table of L2-optimal
// poles d_i for sigma0 = 2 (the causal poles are 1/d_i). A mistyped pole shows in the design-error
// test: each order must cut the L2 error of the previous one at least in half (measured: ~3x).
const std::vector<Complex>& vyv_poles(int order) {
  static const std::vector<Complex> d3 = {{1.41650, 1.00829}, {1.41650, -1.00829}, {1.86543, 0.0}};
  static const std::vector<Complex> d4 = {
      {1.13228, 1.28114}, {1.13228, -1.28114}, {1.78534, 0.46763}, {1.78534, -0.46763}};
  static const std::vector<Complex> d5 = {{0.86430, 1.45389},
                                          {0.86430, -1.45389},
                                          {1.61433, 0.83134},
                                          {1.61433, -0.83134},
                                          {1.87504, 0.0}};
  return order == 3 ? d3 : order == 4 ? d4 : d5;
}

// Deriche 1993, "Recursively implementing the Gaussian and its derivatives": the Gaussian of
// standard deviation s is approximated by sum_i (a_i cos(w_i x/s) + c_i sin(w_i x/s)) e^(-b_i x/s)
// for x >= 0, i.e. causal poles e^(-(b_i +- j w_i)/s). Returned as d = e^(b +- j w), the reciprocal
// poles at s = 1. Order 2: b = 1.26, w = 0.8448; order 4: b = 1.783, w = 0.6318 and b = 1.723,
// w = 1.997 (the constants also quoted in the appendix of the edge-aware paper).
std::vector<Complex> deriche_d(int order) {
  auto pair = [](double b, double w, std::vector<Complex>& out) {
    out.push_back(std::exp(Complex(b, w)));
    out.push_back(std::exp(Complex(b, -w)));
  };
  std::vector<Complex> d;
  if (order == 2) {
    pair(1.26, 0.8448, d);
  } else {
    pair(1.783, 0.6318, d);
    pair(1.723, 1.997, d);
  }
  return d;
}

// Our convention has the same all-pole feedback on both passes and no numerator, whereas Deriche's
// causal and anticausal parts carry numerators (his n_i coefficients). We keep Deriche's poles and
// drop his numerators, then realise the symmetric all-pole pair that matches his filter in its
// zeroth and second moments: unit DC gain, variance sigma^2. Deriche's poles taken literally
// (e^(-lambda/sigma)) give an all-pole pair far narrower than sigma, because the variance of his
// filter comes partly from the numerators; so the poles are rescaled d -> d^(1/q) the way van
// Vliet, Young and Verbeek do, q found numerically.
Recursive from_reciprocal_poles_matched(const std::vector<Complex>& d, double sigma) {
  std::vector<Complex> poles;
  for (const Complex& di : design_math::scale_d_to_variance(d, sigma)) poles.push_back(1.0 / di);
  return design_math::from_poles(poles);
}

// First-order Gaussian: the pair (1-p)^2 / ((1 - p z^-1)(1 - p z)) has variance 2p / (1-p)^2
// (a geometric distribution of variance p/(1-p)^2 per pass). Setting it to sigma^2 gives
// sigma^2 p^2 - 2 (sigma^2 + 1) p + sigma^2 = 0, whose root inside the unit circle is
// p = (1 + sigma^2 - sqrt(1 + 2 sigma^2)) / sigma^2, written without cancellation as
// p = sigma^2 / (1 + sigma^2 + sqrt(1 + 2 sigma^2)) (the two roots multiply to 1).
Recursive first_order_gaussian(double sigma) {
  const double s2 = sigma * sigma;
  const double p = s2 / (1.0 + s2 + std::sqrt(1.0 + 2.0 * s2));
  return design_math::from_poles({Complex(p)});
}

// Young and van Vliet 1995 closed form as quoted by Lee et al. 2014, eq. (3)-(4):
//   w[x] = B in[x] + (b1 w[x-1] + b2 w[x-2] + b3 w[x-3]) / b0,  B = 1 - (b1 + b2 + b3) / b0,
// so in our convention b0 -> B and a_k = -b_k / b0. q follows the two branches of Lee et al. below
// eq. (4). Their b0..b3 are the expansion of 0.422205 (m0 + q - q z^-1)((m1 + q - q z^-1)^2 + m2^2)
// with Young and van Vliet's m0 = 1.16680, m1 = 1.10783, m2 = 1.40586 (b0's q^3 coefficient is
// 0.422205 and b1's is 3 * 0.422205, rounded to 1.26661). We evaluate that product, i.e. the poles
// q / (m0 + q) and q / (m1 + q +- j m2), rather than the expansion: the 6-digit rounding of the
// expanded constants splits the poles near z = 1 as q grows (evaluated literally, the variance is
// 1.12 sigma^2 instead of 1.16 sigma^2 at sigma = 50, and 0.68 sigma^2 instead of 1.15 sigma^2 at
// sigma = 200), while the product agrees with the expansion to ~1e-5 in each a_k.
Recursive yvrg(double sigma) {
  const double q = sigma >= 2.5 ? 0.98711 * sigma - 0.96330
                                : 3.97156 - 4.14554 * std::sqrt(1.0 - 0.26891 * sigma);
  const double m0 = 1.16680, m1 = 1.10783, m2 = 1.40586;
  return design_math::from_poles(
      {Complex(q / (m0 + q)), q / Complex(m1 + q, m2), q / Complex(m1 + q, -m2)});
}

// The prefilter that inverts the sampled B-spline kernel of odd degree n = 2m+1. The kernel
// B(z) = sum_k c_k z^k is symmetric, so with w = z + 1/z it is a polynomial of degree m in w
// (z^k + z^-k = T_k(w) with T_0 = 2, T_1 = w, T_(k+1) = w T_k - T_(k-1)). Its roots w_i are real
// and below -2; each gives the pole p_i = (w_i + sqrt(w_i^2 - 4)) / 2 inside the unit circle
// (Unser's B-spline poles; Nehab et al. 2011, Sec. 1, for the cubic case). Since B(1) = 1 and
// B(z) = A(z) A(1/z) / b0^2 with A(z) = prod (1 - p_i z^-1), the pair b0^2 / (A(z) A(1/z)) with
// b0 = A(1) is exactly 1 / B(z).
Recursive bspline_prefilter(const std::vector<double>& centre_to_edge) {
  const int m = int(centre_to_edge.size()) - 1;
  std::vector<double> w_poly(m + 1, 0.0);  // coefficients in w, lowest power first
  std::vector<double> t_prev(m + 1, 0.0), t_cur(m + 1, 0.0);
  t_prev[0] = 2.0;  // T_0
  t_cur[1] = 1.0;   // T_1
  w_poly[0] += centre_to_edge[0];
  for (int k = 1; k <= m; ++k) {
    for (int i = 0; i <= m; ++i) w_poly[i] += centre_to_edge[k] * t_cur[i];
    std::vector<double> t_next(m + 1, 0.0);
    for (int i = 0; i <= m; ++i) {
      if (i > 0) t_next[i] += t_cur[i - 1];
      t_next[i] -= t_prev[i];
    }
    t_prev = t_cur;
    t_cur = t_next;
  }
  std::vector<double> monic(m);
  for (int i = 0; i < m; ++i) monic[i] = w_poly[m - 1 - i] / w_poly[m];
  std::vector<Complex> poles;
  for (const Complex& w : design_math::monic_roots(monic)) {
    const double wr = w.real();
    poles.push_back(Complex(0.5 * (wr + std::sqrt(wr * wr - 4.0))));
  }
  return design_math::from_poles(poles);
}

// The parameters the filter along one line reads, checked against the kind's row of the table;
// `sigma` names the line's sigma in messages.
void check_line(const LineSpec& line, const char* sigma = "sigma") {
  const KindInfo& k = info(line.kind);
  const OrderInfo* order = &k.orders.front();
  if (k.params.has(Param::Order)) {
    order = k.order_info(line.order);
    const std::string orders = orders_text(k);
    if (!order)
      refuse(std::string("order must be ") + (orders.find("..") == std::string::npos ? "" : "in ") +
             orders + " for " + k.name + " (got " + std::to_string(line.order) + ")");
  }
  if (line.derivative != 0 && !k.params.has(Param::Derivative))
    refuse(std::string("derivative: the ") + k.title + " has none (the Gaussian kinds have)");
  if (line.derivative < 0 || line.derivative > 2)
    refuse("derivative order must be 0, 1 or 2 along each axis (got " +
           std::to_string(line.derivative) + ")");
  if (k.params.has(Param::Sigma)) {
    check_range(sigma, info(Param::Sigma).range, line.sigma, false);
    const std::string design = k.params.has(Param::Order)
                                   ? std::string(k.name) + " order " + std::to_string(order->order)
                                   : std::string(k.name);
    // A derivative smooths with less than sigma^2 (smoothing_sigma): the design must hold that.
    const double smoothing = smoothing_sigma(line);
    const double v = difference_variance(line.derivative);
    if (!(smoothing >= order->min_sigma) || (line.derivative != 0 && !(smoothing > 0.0))) {
      if (line.derivative == 0)
        refuse(std::string(sigma) + " must be >= " + number(order->min_sigma) + " for " + design +
               " (got " + number(line.sigma) + ")");
      const double least = std::sqrt(order->min_sigma * order->min_sigma + v);
      refuse(std::string(sigma) + " must be " + (order->min_sigma > 0.0 ? ">= " : "> ") +
             number(least) + " for a derivative of order " + std::to_string(line.derivative) +
             " with " + design + " (got " + number(line.sigma) + "): it smooths with sqrt(" +
             sigma + "^2 - " + (line.derivative == 1 ? "1/3" : "1/6") + ")");
    }
    if (smoothing > order->max_sigma)
      refuse(std::string(sigma) + " must be <= " + number(order->max_sigma) + " for " + design +
             " (got " + number(line.sigma) +
             "): its double-precision coefficients lose the poles beyond; use a lower order");
  }
  if (k.params.has(Param::Pole)) check_range("pole", info(Param::Pole).range, line.pole, false);
  // A kind without an extension parameter ignores the field (the edge-aware filter is built on
  // clamp); one with it takes only what its table row lists.
  if (k.params.has(Param::Ext) && !k.accepts(line.ext)) {
    std::string taken;
    int count = 0;
    for (Extension e : k.extensions)
      if (e != Extension::Ignore) {
        taken += std::string(taken.empty() ? "" : " or ") + to_string(e);
        ++count;
      }
    refuse(std::string("extension ") + to_string(line.ext) + ": the " + k.title +
           " takes only the " + taken + (count == 1 ? " extension (" : " extensions (") +
           k.why_these_extensions + ")");
  }
}

// The spec of one line, for messages.
FilterSpec as_spec(const LineSpec& line) {
  FilterSpec s;
  s.kind = line.kind;
  s.sigma = line.sigma;
  s.order = line.order;
  s.pole = line.pole;
  s.ext = line.ext;
  return s;
}

}  // namespace

double difference_variance(int derivative) {
  return derivative == 1 ? 1.0 / 3.0 : derivative == 2 ? 1.0 / 6.0 : 0.0;
}

std::array<double, 3> difference_weights(int derivative) {
  return {difference_weight(derivative, -1), difference_weight(derivative, 0),
          difference_weight(derivative, 1)};
}

double smoothing_sigma(const LineSpec& line) {
  return std::sqrt(line.sigma * line.sigma - difference_variance(line.derivative));
}

void validate(const FilterSpec& spec) {
  const ParamSet p = info(spec.kind).params;
  const Derivative& d = spec.derivative;
  const bool fir = spec.gaussian_method == GaussianMethod::Fir;
  if (spec.gaussian_method != GaussianMethod::Recursive) {
    const std::string method = std::string("--gaussian-method ") + to_string(spec.gaussian_method);
    if (!p.has(Param::GaussianMethod))
      refuse(method + ": the " + info(spec.kind).title +
             " is a recursive design; the method chooses how --filter gaussian is computed");
    if (fir && d.any())
      refuse(method +
             ": derivatives take the recursive filter (--gaussian-method recursive or auto)");
    if (fir && spec.algo != Algorithm::Auto)
      refuse(method + ": the FIR runs no recursive algorithm (got --algo " + to_string(spec.algo) +
             "); use --algo auto");
  }
  // The FIR takes any sigma of Param::Sigma's range; the recursive designs those of their order,
  // and auto, below the order's least sigma, the FIR (fir.h's runs_fir).
  const auto check_axis = [&](const LineSpec& line, const char* name) {
    const bool below_design = spec.gaussian_method == GaussianMethod::Auto && !d.any() &&
                              line.sigma < sigma_range(spec.kind, spec.order).lo;
    if (fir || below_design)
      check_range(name, info(Param::Sigma).range, line.sigma, false);
    else
      check_line(line, name);
    const double fir_max = info(GaussianMethod::Fir).max_sigma;
    if (fir && line.sigma > fir_max)
      refuse(std::string(name) + " " + number(line.sigma) +
             ": --gaussian-method fir takes sigma up to " + number(fir_max) +
             " (its cost grows with sigma); recursive and auto take any sigma at the same cost");
  };
  if (d.any()) {
    if (!p.has(Param::Derivative))
      refuse(std::string("derivative ") + to_string(d) + ": the " + info(spec.kind).title +
             " has none (the Gaussian kinds have)");
    if (spec.ext == Extension::Ignore)
      refuse("derivative " + to_string(d) +
             ": extension ignore continues the image by nothing, so no derivative is defined at "
             "its border; use another extension");
    if (spec.algo == Algorithm::OneWay || spec.algo == Algorithm::TwoWay)
      refuse("derivative " + to_string(d) + ": Lee et al.'s partitions (" + to_string(spec.algo) +
             ") approximate the border; use auto, rt, alg4, alg5 or alg6");
    // Each partial's lines: a derivative smooths with less than sigma^2 (smoothing_sigma).
    for (const Partial& part : partials(d))
      for (Axis axis : {Axis::X, Axis::Y}) {
        if (!filters_along(spec, axis)) continue;
        LineSpec line = line_spec(spec, axis);
        line.derivative = axis == Axis::X ? part.x : part.y;
        check_line(line, axis == Axis::X ? (spec.sigma_y ? "sigma along x" : "sigma")
                                         : (spec.sigma_y ? "sigma along y" : "sigma"));
      }
  }
  if (spec.sigma_y && !p.has(Param::SigmaY))
    refuse(std::string("sigma: the ") + info(spec.kind).title +
           " takes one sigma for both axes (got " + number(spec.sigma) + "," +
           number(*spec.sigma_y) + ")");
  if (spec.axes != Axes::Both) {
    const Axis along = spec.axes == Axes::X ? Axis::X : Axis::Y;
    const char* name = along == Axis::X ? "x" : "y";
    if (spec.kind == FilterKind::EdgeAware)
      refuse(std::string("axes: the ") + info(spec.kind).title +
             " filters both axes of an image, not " + name + " alone");
    if (spec.algo == Algorithm::Alg5 || spec.algo == Algorithm::Alg6 ||
        spec.algo == Algorithm::OneWay || spec.algo == Algorithm::TwoWay)
      refuse(std::string("algorithm ") + to_string(spec.algo) +
             " filters both axes of an image at once; along " + name +
             " alone use auto, rt or alg4");
    for (const Partial& part : partials(d))
      if ((along == Axis::X ? part.y : part.x) != 0)
        refuse("derivative " + to_string(d) + ": along " + name + " alone the filter takes no " +
               "derivative along " + (along == Axis::X ? "y" : "x"));
    check_axis(line_spec(spec, along),
               spec.sigma_y ? (along == Axis::X ? "sigma along x" : "sigma along y") : "sigma");
  } else {
    check_axis(line_spec(spec, Axis::X), spec.sigma_y ? "sigma along x" : "sigma");
    if (spec.sigma_y) check_axis(line_spec(spec, Axis::Y), "sigma along y");
  }
  if (p.has(Param::SigmaR)) check_range("sigma_r", info(Param::SigmaR).range, spec.sigma_r, false);
  if (spec.ext == Extension::Constant && !std::isfinite(spec.cval))
    refuse("cval must be a finite number (got " + number(spec.cval) + ")");
  if (p.has(Param::Kappa)) check_range("kappa", info(Param::Kappa).range, spec.kappa, false);
  if (p.has(Param::Iterations))
    check_range("iterations", info(Param::Iterations).range, spec.iterations, true);
}

Recursive design(const FilterSpec& spec) {
  validate(spec);
  return design(line_spec(spec, Axis::X));
}

AxisDesigns design_axes(const FilterSpec& spec) {
  validate(spec);
  if (spec.axes != Axes::Both) {
    const Recursive f = design(line_spec(spec, spec.axes == Axes::X ? Axis::X : Axis::Y));
    return {f, f, spec.axes};
  }
  return {design(line_spec(spec, Axis::X)), design(line_spec(spec, Axis::Y))};
}

double dc_gain(const Recursive& f) {
  long double den = 1.0L;
  for (double a : f.a) den += a;
  const long double pass = f.b0 / den;
  return double(f.causal_only ? pass : pass * pass);
}

ConstantValues constant_values(const AxisDesigns& f, double cval) {
  // Zero is zero past the columns too, whatever the gain (a running sum's is infinite).
  if (!f.filters(Axis::Y)) return {cval, cval};
  return {cval, cval == 0.0 ? 0.0 : cval * dc_gain(f.y)};
}

Recursive design(const LineSpec& line) {
  check_line(line);
  const double sigma = smoothing_sigma(line);
  Recursive f;
  switch (line.kind) {
    case FilterKind::Gaussian:
      if (line.order == 1)
        f = first_order_gaussian(sigma);
      else if (line.order == 2)
        f = from_reciprocal_poles_matched(deriche_d(2), sigma);
      else
        // van Vliet, Young and Verbeek 1998: poles for sigma0 = 2 scaled by d -> d^(1/q).
        f = from_reciprocal_poles_matched(vyv_poles(line.order), sigma);
      break;
    case FilterKind::Deriche:
      f = from_reciprocal_poles_matched(deriche_d(line.order), sigma);
      break;
    case FilterKind::Yvrg:
      f = yvrg(sigma);
      break;
    case FilterKind::BSpline3:
      f = bspline_prefilter({4.0 / 6.0, 1.0 / 6.0});
      break;
    case FilterKind::BSpline5:
      f = bspline_prefilter({66.0 / 120.0, 26.0 / 120.0, 1.0 / 120.0});
      break;
    case FilterKind::BSpline7:
      f = bspline_prefilter({2416.0 / 5040.0, 1191.0 / 5040.0, 120.0 / 5040.0, 1.0 / 5040.0});
      break;
    case FilterKind::Exponential:
      f.b0 = 1.0 - line.pole;
      f.a = {-line.pole};
      break;
    case FilterKind::Sat:
      // The running sum y_i = x_i + y_(i-1): the one filter allowed a pole on the unit circle.
      f.b0 = 1.0;
      f.a = {-1.0};
      f.causal_only = true;
      return f;
    case FilterKind::EdgeAware:
      refuse("edge-aware filtering has no single recursive design: its weights vary per pixel");
  }
  if (!design_math::is_stable(f))
    refuse(std::string("the ") + to_string(line.kind) + " design for " + describe(as_spec(line)) +
           " is unstable in double precision; lower sigma or the order");
  return f;
}

DesignError gaussian_design_error(const FilterSpec& spec) {
  if (!info(spec.kind).approximates_gaussian)
    refuse(std::string("design error is defined for the Gaussian kinds only (got ") +
           to_string(spec.kind) + ")");
  const int order = spec.derivative.measure == Derivative::Measure::Partial ? spec.derivative.x : 0;
  const Recursive f = design(spec);
  const int half =
      std::max(design_math::decay_half_length(f), int(std::ceil(12.0 * spec.sigma)) + 8);
  std::vector<double> h = design_math::pair_impulse_response(f, half);
  // A derivative's response: the difference (design.h) of the smoothing's.
  if (order > 0) {
    const std::vector<double> s = h;
    for (std::size_t i = 0; i < h.size(); ++i) {
      const double before = i > 0 ? s[i - 1] : 0.0, after = i + 1 < s.size() ? s[i + 1] : 0.0;
      h[i] = order == 1 ? 0.5 * (after - before) : after - 2.0 * s[i] + before;
    }
  }
  // The sampled Gaussian of unit sum, or its derivative (scipy.ndimage's kernels).
  std::vector<double> g(h.size());
  double sum = 0.0;
  const double s2 = spec.sigma * spec.sigma;
  for (int i = 0; i < int(g.size()); ++i) {
    const double x = i - half;
    g[i] = std::exp(-x * x / (2.0 * s2));
    sum += g[i];
  }
  for (int i = 0; i < int(g.size()); ++i) {
    const double x = i - half;
    g[i] *= (order == 1 ? -x / s2 : order == 2 ? (x * x - s2) / (s2 * s2) : 1.0) / sum;
  }
  double err2 = 0.0, norm2 = 0.0, max_err = 0.0, max_g = 0.0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double e = h[i] - g[i];
    err2 += e * e;
    norm2 += g[i] * g[i];
    max_err = std::max(max_err, std::abs(e));
    max_g = std::max(max_g, std::abs(g[i]));
  }
  return {std::sqrt(err2 / norm2), max_err / max_g};
}

std::string design_error_table() {
  struct Row {
    const char* name;
    FilterKind kind;
    int order;
  };
  const Row rows[] = {
      {"gaussian r=1 (matched first order)", FilterKind::Gaussian, 1},
      {"gaussian r=2 (Deriche poles)", FilterKind::Gaussian, 2},
      {"gaussian r=3 (van Vliet et al.)", FilterKind::Gaussian, 3},
      {"gaussian r=4 (van Vliet et al.)", FilterKind::Gaussian, 4},
      {"gaussian r=5 (van Vliet et al.)", FilterKind::Gaussian, 5},
      {"deriche r=2", FilterKind::Deriche, 2},
      {"deriche r=4", FilterKind::Deriche, 4},
      {"yvrg r=3 (Young-van Vliet 1995)", FilterKind::Yvrg, 3},
  };
  const double sigmas[] = {1, 2, 4, 8, 16, 32, 64, 100, 200};
  std::string out;
  for (int table = 0; table < 4; ++table) {
    const int derivative = table < 2 ? 0 : table - 1;
    out += table == 0   ? "L2 relative error ||h - g||_2 / ||g||_2\n\n"
           : table == 1 ? "\nMax relative error max|h - g| / max g\n\n"
           : table == 2 ? "\nFirst derivative: L2 relative error against the sampled Gaussian "
                          "derivative\n\n"
                        : "\nSecond derivative: L2 relative error against the sampled Gaussian "
                          "second derivative\n\n";
    out += "| design |";
    for (double s : sigmas) out += " sigma " + number(s) + " |";
    out += "\n|---|";
    for (std::size_t i = 0; i < std::size(sigmas); ++i) out += "---|";
    out += "\n";
    for (const Row& row : rows) {
      out += std::string("| ") + row.name + " |";
      for (double s : sigmas) {
        FilterSpec spec;
        spec.kind = row.kind;
        spec.order = row.order;
        spec.sigma = s;
        spec.derivative.x = derivative;
        char cell[32];
        try {
          const DesignError e = gaussian_design_error(spec);
          std::snprintf(cell, sizeof cell, " %.2e |", table == 1 ? e.max_relative : e.l2_relative);
        } catch (const InvalidParameter&) {
          std::snprintf(cell, sizeof cell, " refused |");
        }
        out += cell;
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace rf
