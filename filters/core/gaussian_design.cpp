#include "filters/core/gaussian_design.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <string>

#include "filters/core/errors.h"

namespace rf::design_math {

Recursive from_poles(const std::vector<Complex>& poles) {
  // Coefficients of prod_k (1 - p_k z^-1), lowest power of z^-1 first.
  std::vector<Complex> c{1.0};
  for (const Complex& p : poles) {
    c.push_back(0.0);
    for (std::size_t i = c.size() - 1; i > 0; --i) c[i] -= p * c[i - 1];
  }
  Recursive f;
  f.a.resize(poles.size());
  double dc = 1.0;
  for (std::size_t k = 1; k < c.size(); ++k) {
    f.a[k - 1] = c[k].real();
    dc += c[k].real();
  }
  f.b0 = dc;
  return f;
}

std::vector<Complex> monic_roots(const std::vector<double>& c) {
  const int r = int(c.size());
  std::vector<Complex> roots(r);
  if (r == 0) return roots;
  // Monic polynomial z^r + a_1 z^(r-1) + ... + a_r, evaluated by Horner's rule.
  auto eval = [&](Complex z) {
    Complex v = 1.0;
    for (int k = 0; k < r; ++k) v = v * z + c[k];
    return v;
  };
  auto deriv = [&](Complex z) {
    Complex v = double(r);
    for (int k = 0; k < r - 1; ++k) v = v * z + double(r - 1 - k) * c[k];
    return v;
  };
  // Durand-Kerner: the usual non-real, non-symmetric starting points.
  const Complex seed(0.4, 0.9);
  Complex s = 1.0;
  for (int i = 0; i < r; ++i) {
    roots[i] = s;
    s *= seed;
  }
  for (int it = 0; it < 1000; ++it) {
    double change = 0.0;
    for (int i = 0; i < r; ++i) {
      Complex den = 1.0;
      for (int j = 0; j < r; ++j)
        if (j != i) den *= roots[i] - roots[j];
      if (den == Complex(0.0)) den = 1e-300;
      const Complex step = eval(roots[i]) / den;
      roots[i] -= step;
      change = std::max(change, std::abs(step));
    }
    if (change < 1e-16) break;
  }
  for (Complex& z : roots) {
    for (int it = 0; it < 3; ++it) {
      const Complex d = deriv(z);
      if (d == Complex(0.0)) break;
      z -= eval(z) / d;
    }
  }
  return roots;
}

bool is_stable(const Recursive& f) {
  std::vector<double> a = f.a;
  for (int m = int(a.size()); m >= 1; --m) {
    const double k = a[m - 1];
    if (!(std::abs(k) < 1.0)) return false;
    std::vector<double> next(m - 1);
    for (int i = 1; i < m; ++i) next[i - 1] = (a[i - 1] - k * a[m - i - 1]) / (1.0 - k * k);
    a = std::move(next);
  }
  return true;
}

double pair_variance(const Recursive& f) {
  double p0 = 1.0, p1 = 0.0, p2 = 0.0;
  for (int k = 1; k <= f.order(); ++k) {
    p0 += f.a[k - 1];
    p1 += k * f.a[k - 1];
    p2 += double(k) * k * f.a[k - 1];
  }
  return 2.0 * (p1 * p1 - p2 * p0) / (p0 * p0);
}

double pair_variance_from_d(const std::vector<Complex>& d) {
  Complex v = 0.0;
  for (const Complex& di : d) v += 2.0 * di / ((di - 1.0) * (di - 1.0));
  return v.real();
}

namespace {

std::vector<Complex> power_of_d(const std::vector<Complex>& d, double q) {
  std::vector<Complex> out;
  out.reserve(d.size());
  for (const Complex& di : d)
    out.push_back(std::polar(std::pow(std::abs(di), 1.0 / q), std::arg(di) / q));
  return out;
}

}  // namespace

std::vector<Complex> scale_d_to_variance(const std::vector<Complex>& d, double sigma) {
  const double target = sigma * sigma;
  auto variance = [&](double q) { return pair_variance_from_d(power_of_d(d, q)); };
  // Below the lower end the scaled pole angles approach pi, the poles wrap around the unit circle
  // and the variance stops growing with q; above it, larger q only moves the poles towards z = 1.
  double max_angle = 0.0;
  for (const Complex& di : d) max_angle = std::max(max_angle, std::abs(std::arg(di)));
  double lo = std::max(1e-3, max_angle / (0.75 * M_PI));
  double hi = 1e6;
  if (!(variance(lo) <= target && variance(hi) >= target))
    throw InvalidParameter("sigma " + std::to_string(sigma) +
                           " is outside the range this Gaussian design can match");
  for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
    const double mid = std::sqrt(lo * hi);
    (variance(mid) < target ? lo : hi) = mid;
  }
  return power_of_d(d, 0.5 * (lo + hi));
}

std::vector<double> pair_impulse_response(const Recursive& f, int half) {
  const int n = 2 * half + 1, r = f.order();
  std::vector<double> y(n, 0.0);
  for (int i = half; i < n; ++i) {
    double acc = (i == half) ? f.b0 : 0.0;
    for (int k = 1; k <= r && i - k >= 0; ++k) acc -= f.a[k - 1] * y[i - k];
    y[i] = acc;
  }
  if (f.causal_only) return y;
  std::vector<double> z(n, 0.0);
  for (int i = n - 1; i >= 0; --i) {
    double acc = f.b0 * y[i];
    for (int k = 1; k <= r && i + k < n; ++k) acc -= f.a[k - 1] * z[i + k];
    z[i] = acc;
  }
  return z;
}

int decay_half_length(const Recursive& f) {
  double rho = 0.0;
  for (const Complex& p : poles_of(f)) rho = std::max(rho, std::abs(p));
  assert(rho < 1.0);
  if (rho < 1e-3) return 16 * std::max(1, f.order());
  // rho^n < 1e-17, with margin for the polynomial factor of nearly repeated poles.
  const double n = std::log(1e-17) / std::log(rho);
  return int(std::ceil(1.5 * n)) + 16 * f.order();
}

}  // namespace rf::design_math
