// Gaussian derivatives, every algorithm a backend offers, against the double reference: the
// padded lines differenced before the recursion (recursive/reference.h), where the engines
// difference the smoothed image (filters/core/derivative.h). Every partial of order 0..2 per axis
// that the front ends offer, both measures and the scale normalisation, every extension, odd sizes
// down to 1 x 1, seeded random data.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/recursive/reference.h"
#include "tests/random_data.h"

namespace rf::test {

inline std::vector<Derivative> all_derivatives() {
  std::vector<Derivative> out;
  for (auto [x, y] : {std::pair{1, 0}, {0, 1}, {2, 0}, {0, 2}, {1, 1}, {2, 1}}) {
    Derivative d;
    d.x = x;
    d.y = y;
    out.push_back(d);
  }
  Derivative g;
  g.measure = Derivative::Measure::GradientMagnitude;
  out.push_back(g);
  g.normalized = true;
  out.push_back(g);
  Derivative l;
  l.measure = Derivative::Measure::Laplacian;
  out.push_back(l);
  return out;
}

inline std::vector<FilterSpec> derivative_bases() {
  std::vector<FilterSpec> out;
  auto add = [&](FilterKind kind, int order, double sx, double sy) {
    FilterSpec s;
    s.kind = kind;
    s.order = order;
    s.sigma = sx;
    if (sy != sx) s.sigma_y = sy;
    out.push_back(s);
  };
  add(FilterKind::Gaussian, 1, 2.0, 2.0);
  add(FilterKind::Gaussian, 3, 5.0, 1.2);
  add(FilterKind::Gaussian, 5, 40.0, 40.0);
  add(FilterKind::Deriche, 4, 3.0, 3.0);
  add(FilterKind::Yvrg, 3, 7.0, 7.0);
  return out;
}

// The largest |out - want| over the samples, infinite where out is not finite.
inline double derivative_error(const Image& out, const std::vector<double>& want) {
  double err = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i)
    err = std::max(
        err, std::isfinite(out.pixels[i]) ? std::abs(double(out.pixels[i]) - want[i]) : INFINITY);
  return err;
}

struct DerivativeOutcome {
  int passed = 0, refused = 0, failed = 0;
  std::map<std::string, double> worst;  // per algorithm
};

// The float paths' accuracy: the differences carry the rounding of the float smoothed samples
// they combine, ~1e-7 of the image's scale (1e-6 at orders 4 and 5, whose float paths are 10x
// less exact: all_algorithms.h) times the sum of the differences' |weights| (1 for a first
// difference, 4 for a second, per axis), however small the derivative; beyond that 1e-5 of the
// derivative's own scale. Lee et al.'s partitions are refused a derivative (the test of
// rf::validate's messages checks the line).
inline DerivativeOutcome check_derivatives(Engine& engine, Backend backend) {
  struct Shape {
    int w, h, c;
  };
  const Shape shapes[] = {{31, 23, 1}, {19, 13, 4}, {1, 9, 1}, {9, 1, 4}, {1, 1, 1}, {4, 3, 1}};
  DerivativeOutcome o;
  std::uint64_t seed = 100;
  for (const FilterSpec& base : derivative_bases())
    for (Extension ext : kAllExtensions)
      for (const Derivative& d : all_derivatives()) {
        FilterSpec spec = base;
        spec.ext = ext;
        spec.cval = ext == Extension::Constant ? -0.6 : 0.0;
        spec.derivative = d;
        if (ext == Extension::Ignore) {  // no derivative without an extension: refused
          CHECK_THROWS_AS(validate(spec), InvalidParameter);
          continue;
        }
        for (int k = 0; k < 2; ++k) {
          const Shape& shape = shapes[(seed + std::uint64_t(k)) % 6];
          const Image in = random_image(shape.w, shape.h, shape.c, seed++, 0.05f, 1.0f);
          spec.algo = Algorithm::Auto;
          const std::vector<double> want = ref::padded_reference(spec, in);
          double peak = 0.0, scale = 0.0;
          for (double v : want) peak = std::max(peak, std::abs(v));
          for (float v : in.pixels) scale = std::max(scale, double(std::abs(v)));
          // Scale normalisation multiplies the rounding too.
          if (d.normalized)
            scale *= std::pow(std::max(spec.sigma, sigma_along(spec, Axis::Y)), 2.0);
          const bool second = d.x == 2 || d.y == 2 || d.measure == Derivative::Measure::Laplacian;
          scale *= (second ? 4.0 : 1.0) * (design(base).order() <= 3 ? 1.0 : 10.0);
          for (Algorithm algo : algorithms_for(backend, base.kind)) {
            if (algo == Algorithm::OneWay || algo == Algorithm::TwoWay) continue;
            spec.algo = algo;
            std::ostringstream name;
            name << describe(spec) << ", " << shape.w << "x" << shape.h << "x" << shape.c;
            Image out;
            try {
              out = filter_image(engine, spec, in);
            } catch (const InvalidParameter& e) {
              INFO(name.str() << ": " << e.what());
              CHECK(std::string(e.what()).find('\n') == std::string::npos);
              CHECK(algo != Algorithm::Auto);
              ++o.refused;
              continue;
            }
            const double err = derivative_error(out, want);
            const double allowed = 1e-5 * peak + 1e-6 * scale;
            double& worst = o.worst[to_string(algo)];
            worst = std::max(worst, err / allowed);
            INFO(name.str() << ": error " << err << ", derivative's scale " << peak);
            CHECK(err <= allowed);
            if (err <= allowed)
              ++o.passed;
            else
              ++o.failed;
          }
        }
      }
  for (const auto& [algo, err] : o.worst)
    MESSAGE(std::string(to_string(backend))
            << " " << algo << ": worst error over the allowed " << err);
  MESSAGE(o.passed << " passed, " << o.refused << " refused, " << o.failed << " failed");
  return o;
}

}  // namespace rf::test
