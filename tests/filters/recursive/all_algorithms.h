// Every algorithm a backend offers for the recursive kinds, on every order, extension and sigma up
// to each order's cap, on odd sizes down to 1 x N and N x 1, against the double reference (the
// padded sequential recursion of the same design, which shares no code with the fast paths). An
// algorithm either matches the reference to float accuracy or refuses the plan in one line; no
// plan may write a non-finite sample for finite input.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/recursive/reference.h"
#include "tests/random_data.h"

namespace rf::test {

// The sigma caps of the Gaussian designs (design.cpp): order 5 to 200, order 4 to 1000, the
// others to 2000.
inline double sigma_cap(int order) {
  return order == 5 ? 200.0 : order == 4 ? 1000.0 : 2000.0;
}

// Sizes: one odd image per channel layout, and the degenerate shapes. At the sigma caps the
// reference pads every line with tens of thousands of samples, so the images are smaller there.
struct Shape {
  int width, height, channels;
};
inline const std::vector<Shape>& shapes(double sigma) {
  static const std::vector<Shape> s = {{97, 61, 1}, {45, 37, 4}, {1, 1, 1},
                                       {7, 3, 1},   {1, 64, 1},  {64, 1, 4}};
  static const std::vector<Shape> wide = {{31, 23, 1}, {5, 3, 4},  {1, 1, 1},
                                          {7, 3, 1},   {1, 33, 1}, {33, 1, 1}};
  return sigma > 100.0 ? wide : s;
}

// The specs: Gaussians of every order at a small, a middle and the largest sigma; the other
// recursive kinds at their parameters; every extension each takes.
inline std::vector<FilterSpec> all_specs() {
  std::vector<FilterSpec> out;
  auto add = [&](FilterSpec s) {
    for (Extension e : kAllExtensions) {
      if (s.kind == FilterKind::Sat && e != Extension::Zero && e != Extension::Ignore) continue;
      s.ext = e;
      // A constant far from the data (seeded in [0, 1)), so that a lost value shows.
      s.cval = e == Extension::Constant ? -0.6 : 0.0;
      out.push_back(s);
    }
  };
  for (int order = 1; order <= 5; ++order) {
    for (double sigma : {1.5, 16.0, sigma_cap(order)}) {
      FilterSpec s;
      s.kind = FilterKind::Gaussian;
      s.order = order;
      s.sigma = sigma;
      add(s);
    }
    // A sigma per axis, each way round, up to the cap on one axis.
    for (auto [sx, sy] : {std::pair{3.0, 25.0}, std::pair{sigma_cap(order), 2.0}}) {
      FilterSpec s;
      s.kind = FilterKind::Gaussian;
      s.order = order;
      s.sigma = sx;
      s.sigma_y = sy;
      add(s);
    }
  }
  for (int order : {2, 4}) {
    FilterSpec s;
    s.kind = FilterKind::Deriche;
    s.order = order;
    s.sigma = 150.0;
    add(s);
  }
  FilterSpec yvrg;
  yvrg.kind = FilterKind::Yvrg;
  yvrg.sigma = 60.0;
  add(yvrg);
  yvrg.sigma_y = 5.0;
  add(yvrg);
  for (FilterKind k : {FilterKind::BSpline3, FilterKind::BSpline5, FilterKind::BSpline7}) {
    FilterSpec s;
    s.kind = k;
    add(s);
  }
  for (double pole : {-0.8, 0.95}) {
    FilterSpec s;
    s.kind = FilterKind::Exponential;
    s.pole = pole;
    add(s);
  }
  FilterSpec sat;
  sat.kind = FilterKind::Sat;
  add(sat);
  return out;
}

inline std::string case_name(const FilterSpec& s, const Shape& shape) {
  std::ostringstream o;
  o << describe(s) << ", algo " << to_string(s.algo) << ", " << shape.width << "x" << shape.height
    << "x" << shape.channels;
  return o.str();
}

// The accuracy the float paths are held to: max |out - ref| over the scale of the signal, the
// larger of max |ref| and max |in|. The two are close for every exact extension; with Ignore at
// large sigma the output is a transient of size b0^2 (1e-10 of the input at order 3, sigma 2000),
// which float arithmetic resolves only to float rounding of the input's scale.
inline double tolerance(const FilterSpec& spec) {
  return design(spec).order() <= 3 ? 1e-5 : 1e-4;
}

struct Outcome {
  int passed = 0, refused = 0, failed = 0;
  std::map<std::string, double> worst;  // per algorithm
  std::map<std::string, std::string> refusals;
};

// Runs every algorithm `backend` offers on every spec and shape through `engine`.
inline Outcome check_all_algorithms(Engine& engine, Backend backend) {
  Outcome o;
  std::uint64_t seed = 1;
  for (const FilterSpec& base : all_specs()) {
    for (const Shape& shape : shapes(std::max(base.sigma, sigma_along(base, Axis::Y)))) {
      const Image in = random_image(shape.width, shape.height, shape.channels, seed++, 0.05f, 1.0f);
      const std::vector<double> want =
          ref::filter_image_padded(design_axes(base), base.ext, in, base.cval);
      double peak = 0.0;
      for (double v : want) peak = std::max(peak, std::abs(v));
      for (float v : in.pixels) peak = std::max(peak, double(std::abs(v)));
      for (Algorithm algo : algorithms_for(backend, base.kind)) {
        if (algo == Algorithm::OneWay || algo == Algorithm::TwoWay) continue;  // lee2014 tests
        FilterSpec spec = base;
        spec.algo = algo;
        const std::string name = case_name(spec, shape);
        Image out = in;
        try {
          out = filter_image(engine, spec, in);
        } catch (const InvalidParameter& e) {
          const std::string why = e.what();
          INFO(name << ": " << why);
          CHECK(why.find('\n') == std::string::npos);
          CHECK(!why.empty());
          CHECK(algo != Algorithm::Auto);  // auto always finds an exact algorithm
          ++o.refused;
          o.refusals[to_string(algo)] = why;
          continue;
        }
        double err = 0.0;
        bool finite = true;
        for (std::size_t i = 0; i < want.size(); ++i) {
          finite = finite && std::isfinite(out.pixels[i]);
          err = std::max(err, std::abs(double(out.pixels[i]) - want[i]));
        }
        err /= std::max(peak, 1e-300);
        double& worst = o.worst[to_string(algo)];
        worst = std::max(worst, finite ? err : INFINITY);
        INFO(name << ": relative error " << err);
        CHECK(finite);
        CHECK(err <= tolerance(spec));
        if (finite && err <= tolerance(spec))
          ++o.passed;
        else
          ++o.failed;
      }
    }
  }
  for (const auto& [algo, err] : o.worst)
    MESSAGE(std::string(to_string(backend)) << " " << algo << ": worst relative error " << err);
  for (const auto& [algo, why] : o.refusals)
    MESSAGE(std::string(to_string(backend)) << " " << algo << " refused some cases, e.g. " << why);
  MESSAGE(o.passed << " passed, " << o.refused << " refused, " << o.failed << " failed");
  return o;
}

}  // namespace rf::test
