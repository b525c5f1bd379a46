// Seeded random test data for the filter mathematics: stable recursive filters of any order with
// real and complex-conjugate poles, and random lines.
#pragma once

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "filters/core/design.h"

namespace rf::test {

// Coefficients a_1..a_r of prod_k (1 - p_k z^-1) for the given poles (conjugate pairs included).
inline std::vector<double> poly_from_poles(const std::vector<std::complex<double>>& poles) {
  std::vector<std::complex<double>> c{1.0};
  for (const auto& p : poles) {
    c.push_back(0.0);
    for (std::size_t k = c.size() - 1; k > 0; --k) c[k] -= p * c[k - 1];
  }
  std::vector<double> a;
  for (std::size_t k = 1; k < c.size(); ++k) a.push_back(c[k].real());
  return a;
}

// A random stable filter of order r with poles of radius in [0.05, max_radius]: complex-conjugate
// pairs while two or more poles remain (real with probability 1/3), then a real pole. b0 makes the
// DC gain of each pass one, as in a smoothing filter.
inline Recursive random_filter(int r, std::mt19937_64& rng, double max_radius = 0.95) {
  std::uniform_real_distribution<double> radius(0.05, max_radius), angle(0.0, M_PI), coin(0.0, 1.0);
  std::vector<std::complex<double>> poles;
  while (int(poles.size()) < r) {
    const int left = r - int(poles.size());
    if (left >= 2 && coin(rng) > 1.0 / 3.0) {
      const auto p = std::polar(radius(rng), angle(rng));
      poles.push_back(p);
      poles.push_back(std::conj(p));
    } else {
      poles.push_back(coin(rng) < 0.5 ? -radius(rng) : radius(rng));
    }
  }
  Recursive f;
  f.a = poly_from_poles(poles);
  f.b0 = 1.0;
  for (double ak : f.a) f.b0 += ak;
  return f;
}

inline std::vector<double> random_line(int n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(n);
  for (double& v : x) v = u(rng);
  return x;
}

inline double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// max |a - b| / max(max |b|, tiny)
inline double relative_error(const std::vector<double>& a, const std::vector<double>& b) {
  double e = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]));
  return e / std::max(max_abs(b), 1e-300);
}

}  // namespace rf::test
