#include "filters/recursive/modal.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>
#include <string>

#include "filters/core/errors.h"
#include "filters/recursive/pair_modes.h"

namespace rf::modal {

namespace {

using Wide = long double;

// Roots of z^r + a_1 z^(r-1) + ... + a_r (the poles of b0 / (1 + sum_k a_k z^-k)) by the
// Aberth-Ehrlich iteration, in extended precision.
std::vector<Cx> poles_of(const std::vector<double>& a) {
  const int r = int(a.size());
  std::vector<Wide> c(r + 1);  // c[0] z^r + ... + c[r]
  c[0] = 1.0L;
  for (int k = 0; k < r; ++k) c[k + 1] = a[k];
  auto eval = [&](Cx z, Cx* deriv) {
    Cx p = c[0], d = 0.0L;
    for (int k = 1; k <= r; ++k) {
      d = d * z + p;
      p = p * z + c[k];
    }
    *deriv = d;
    return p;
  };
  Wide bound = 0.0L;  // Cauchy's bound on the roots' modulus
  for (int k = 1; k <= r; ++k) bound = std::max(bound, std::abs(c[k]));
  bound += 1.0L;
  std::vector<Cx> z(r);
  for (int k = 0; k < r; ++k)
    z[k] = std::polar(0.5L * bound, Wide(2.0L * 3.14159265358979323846L * (k + 0.25L) / r));
  int polish = 0;
  for (int iter = 0; iter < 500; ++iter) {
    Wide moved = 0.0L;
    for (int k = 0; k < r; ++k) {
      Cx d;
      const Cx p = eval(z[k], &d);
      if (p == Cx(0.0L)) continue;
      const Cx ratio = p / d;
      Cx sum = 0.0L;
      for (int j = 0; j < r; ++j)
        if (j != k) sum += 1.0L / (z[k] - z[j]);
      const Cx step = ratio / (1.0L - ratio * sum);
      z[k] -= step;
      moved = std::max(moved, std::abs(step) / std::max(Wide(1e-30L), std::abs(z[k])));
    }
    // Converged to a few ulps of long double; two more steps polish the last digit.
    if (moved < 1e-17L && ++polish > 2) break;
  }
  return z;
}

std::vector<double> rounded(const std::vector<Wide>& v) {
  return {v.begin(), v.end()};
}

}  // namespace

Mat operator*(const Mat& a, const Mat& b) {
  Mat c(a.rows, b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int k = 0; k < a.cols; ++k)
      for (int j = 0; j < b.cols; ++j) c(i, j) += a(i, k) * b(k, j);
  return c;
}

Mat power(const Mat& a, long long p) {
  Mat result(a.rows, a.cols), base = a;
  for (int i = 0; i < a.rows; ++i) result(i, i) = 1.0;
  for (; p > 0; p >>= 1) {
    if (p & 1) result = result * base;
    base = base * base;
  }
  return result;
}

Poles poles(const Form& m) {
  Poles a;
  a.order = m.order;
  int b = 0;
  for (int k = 0; k < m.modes(); ++k) {
    const Cx p(m.pole_re[k], m.pole_im[k]), c(m.residue_re[k], m.residue_im[k]);
    const bool real = k < m.real_modes;
    a.p.push_back(p);
    a.c.push_back(c);
    a.basis.push_back(b);
    a.conj.push_back(false);
    if (!real) {
      a.p.push_back(std::conj(p));
      a.c.push_back(std::conj(c));
      a.basis.push_back(b);
      a.conj.push_back(true);
    }
    b += real ? 1 : 2;
  }
  return a;
}

// A real mode is its one component; a pair's represented mode is (Re u, Im u), its conjugate the
// conjugate of that.
std::vector<Cx> Poles::modes_of(const std::vector<long double>& s) const {
  std::vector<Cx> u(p.size());
  for (std::size_t k = 0; k < p.size(); ++k) {
    const int b = basis[k];
    const bool real = p[k].imag() == 0.0L;
    u[k] = real ? Cx(s[b]) : Cx(s[b], conj[k] ? -s[b + 1] : s[b + 1]);
  }
  return u;
}

std::vector<long double> Poles::state_of(const std::vector<Cx>& u) const {
  std::vector<long double> s(std::size_t(order), 0.0L);
  for (std::size_t k = 0; k < p.size(); ++k) {
    if (conj[k]) continue;
    const int b = basis[k];
    s[b] = u[k].real();
    if (p[k].imag() != 0.0L) s[b + 1] = u[k].imag();
  }
  return s;
}

long long tail_length(const Form& m, double unit) {
  constexpr long long kLimit = 1LL << 26;
  const Poles a = poles(m);
  auto held_past = [&](long long len) {
    Wide sum = 0.0L;
    for (std::size_t k = 0; k < a.size(); ++k) {
      const Wide rho = std::abs(a.p[k]);
      if (rho >= 1.0L) return std::numeric_limits<Wide>::infinity();
      sum += std::abs(a.c[k]) * std::pow(rho, Wide(len)) / (1.0L - rho);
    }
    return sum;
  };
  const Wide bound = Wide(unit) * Wide(m.l1);
  long long hi = 1;
  while (held_past(hi) > bound) {
    if (hi >= kLimit)
      throw InvalidParameter(
          "the filter's impulse response does not decay within 2^26 samples (a pole on or too "
          "close to the unit circle)");
    hi *= 2;
  }
  long long lo = hi / 2;  // held_past(lo) > bound unless lo == 0
  while (hi - lo > 1) {
    const long long mid = lo + (hi - lo) / 2;
    (held_past(mid) > bound ? lo : hi) = mid;
  }
  return hi;
}

long double step(const Form& m, std::vector<long double>& s, long double x) {
  Wide y = 0.0L;
  int b = 0;
  for (int k = 0; k < m.modes(); ++k) {
    if (k < m.real_modes) {
      s[b] = Wide(m.pole_re[k]) * s[b] + Wide(m.residue_re[k]) * x;
      y += s[b];
      b += 1;
    } else {
      const Cx u = Cx(m.pole_re[k], m.pole_im[k]) * Cx(s[b], s[b + 1]) +
                   Cx(m.residue_re[k], m.residue_im[k]) * x;
      s[b] = u.real();
      s[b + 1] = u.imag();
      y += 2.0L * u.real();
      b += 2;
    }
  }
  return y;
}

namespace {

// The poles of f in extended precision, refused (std::domain_error) when there are none, when one
// lies on or outside the unit circle (but the summed-area table's at 1) or when two repeat.
std::vector<Cx> checked_poles(const Recursive& f) {
  if (f.order() < 1) throw std::domain_error("modal form: empty filter");
  const std::vector<Cx> z = poles_of(f.a);
  for (const Cx& p : z) {
    const Wide mag = std::abs(p);
    const bool at_one = f.causal_only && std::abs(p - 1.0L) < 1e-12L;
    if (!(mag < 1.0L) && !at_one)
      throw std::domain_error("modal form: a pole on or outside the unit circle");
  }
  for (std::size_t k = 0; k < z.size(); ++k)
    for (std::size_t j = k + 1; j < z.size(); ++j)
      if (std::abs(z[k] - z[j]) < 1e-9L * std::max(Wide(1.0L), std::abs(z[k])))
        throw std::domain_error("modal form: repeated poles");
  return z;
}

}  // namespace

Form modal_form(const Recursive& f) {
  const std::vector<Cx> z = checked_poles(f);
  const int r = f.order();
  Form m;
  m.order = r;
  m.causal_only = f.causal_only;
  // Residues of b0 z^r / P(z): c_k = b0 p_k^(r-1) / prod_{j != k} (p_k - p_j).
  std::vector<Cx> c(r);
  for (int k = 0; k < r; ++k) {
    Cx den = 1.0L;
    for (int j = 0; j < r; ++j)
      if (j != k) den *= z[k] - z[j];
    c[k] = Wide(f.b0) * std::pow(z[k], r - 1) / den;
  }
  // Real modes first (ascending), then one of each conjugate pair (Im p > 0).
  std::vector<int> reals, pairs;
  for (int k = 0; k < r; ++k) {
    const Wide tol = 1e-15L * std::max(Wide(1.0L), std::abs(z[k]));
    if (std::abs(z[k].imag()) <= tol)
      reals.push_back(k);
    else if (z[k].imag() > 0.0L)
      pairs.push_back(k);
  }
  if (int(reals.size() + 2 * pairs.size()) != r)
    throw std::domain_error("modal form: complex poles without their conjugates");
  std::sort(reals.begin(), reals.end(), [&](int i, int j) { return z[i].real() < z[j].real(); });
  m.real_modes = int(reals.size());
  m.complex_pairs = int(pairs.size());
  for (int k : reals) {
    m.pole_re.push_back(double(z[k].real()));
    m.pole_im.push_back(0.0);
    m.residue_re.push_back(double(c[k].real()));
    m.residue_im.push_back(0.0);
  }
  for (int k : pairs) {
    m.pole_re.push_back(double(z[k].real()));
    m.pole_im.push_back(double(z[k].imag()));
    m.residue_re.push_back(double(c[k].real()));
    m.residue_im.push_back(double(c[k].imag()));
  }
  if (f.causal_only && r == 1 && std::abs(z[0] - 1.0L) < 1e-12L) {
    m.condition = 1.0;  // the summed-area table: u <- u + x, nothing cancels
    return m;
  }
  // The L1 norm of the impulse response, summed until the state is negligible.
  Wide sum_modes = 0.0L;
  for (int k = 0; k < r; ++k) sum_modes += std::abs(c[k]) / (1.0L - std::abs(z[k]));
  std::vector<Wide> s(r, 0.0L);
  Wide l1 = 0.0L, top = 0.0L;
  for (long long t = 0; t < (1LL << 24); ++t) {
    const Wide y = step(m, s, t == 0 ? 1.0L : 0.0L);
    l1 += std::abs(y);
    Wide peak = 0.0L;
    for (Wide v : s) peak = std::max(peak, std::abs(v));
    top = std::max(top, peak);
    if (t > r && peak < 1e-21L * top) break;
  }
  m.condition = double(sum_modes / l1);
  m.l1 = double(l1);
  return m;
}

BlockMatrices block_matrices(const Form& m, int len) {
  const int r = m.order;
  BlockMatrices b;
  b.len = len;
  b.D = Mat(r, r);
  b.A_FP = Mat(len, r);
  b.A_RE = Mat(len, r);
  b.ARB_AFP = Mat(len, r);
  b.T_AFB = Mat(r, len);
  b.H_ARB = Mat(r, len);
  b.H_ARB_AFB = Mat(r, len);
  b.H_ARB_AFP = Mat(r, r);
  using Vec = std::vector<Wide>;
  // Anticausal pass over y from a zero state: outputs and the state it leaves at the start.
  auto anticausal = [&](const Vec& y, Vec* out) {
    Vec s(r, 0.0L);
    for (int i = len - 1; i >= 0; --i) {
      const Wide z = step(m, s, y[i]);
      if (out) (*out)[i] = z;
    }
    return s;
  };
  for (int col = 0; col < r; ++col) {
    Vec s(r, 0.0L), y(len), z(len);
    s[col] = 1.0L;
    for (int i = 0; i < len; ++i) y[i] = step(m, s, 0.0L);
    for (int i = 0; i < r; ++i) b.D(i, col) = double(s[i]);
    const Vec head = anticausal(y, &z);
    for (int i = 0; i < len; ++i) {
      b.A_FP(i, col) = double(y[i]);
      b.ARB_AFP(i, col) = double(z[i]);
    }
    for (int i = 0; i < r; ++i) b.H_ARB_AFP(i, col) = double(head[i]);
    Vec t(r, 0.0L);
    t[col] = 1.0L;
    for (int i = len - 1; i >= 0; --i) b.A_RE(i, col) = double(step(m, t, 0.0L));
  }
  for (int j = 0; j < len; ++j) {
    Vec x(len, 0.0L), y(len);
    x[j] = 1.0L;
    Vec s(r, 0.0L);
    for (int i = 0; i < len; ++i) y[i] = step(m, s, x[i]);
    for (int i = 0; i < r; ++i) b.T_AFB(i, j) = double(s[i]);
    const Vec raw = anticausal(x, nullptr), filtered = anticausal(y, nullptr);
    for (int i = 0; i < r; ++i) {
      b.H_ARB(i, j) = double(raw[i]);
      b.H_ARB_AFB(i, j) = double(filtered[i]);
    }
  }
  return b;
}

Seeds seeds(const Form& m, int n) {
  const int r = m.order;
  Seeds sd;
  sd.S.assign(r, 0.0);
  sd.clamp_tail.assign(r, 0.0);
  for (std::vector<double>* v : {&sd.r_first, &sd.r_last, &sd.w_last}) v->assign(r, 0.0);
  for (Mat* x : {&sd.G, &sd.Q_n, &sd.Q_2n, &sd.D_n, &sd.M, &sd.R_h, &sd.R_u, &sd.W101})
    *x = Mat(r, r);
  if (m.causal_only) return sd;  // causal-only filters take zero feedback only
  const Poles a = poles(m);
  const std::size_t count = a.size();
  // K_l = sum_k c_k / (1 - p_l p_k): the weight of the samples past the line in the anticausal
  // state entering it, per unit of sum_e p_l^e x_{n+e} (see eq. 44's derivation).
  std::vector<Cx> K(count, 0.0L);
  for (std::size_t l = 0; l < count; ++l)
    for (std::size_t k = 0; k < count; ++k) K[l] += a.c[k] / (1.0L - a.p[l] * a.p[k]);
  // Zero extension past the end: the causal state u_end decays freely, and the anticausal state
  // entering from the right sums it, w_l = c_l sum_k p_k u_k / (1 - p_l p_k), eqs. (42)-(44).
  auto G = [&](const std::vector<Cx>& u) {
    std::vector<Cx> w(count, 0.0L);
    for (std::size_t l = 0; l < count; ++l)
      for (std::size_t k = 0; k < count; ++k)
        w[l] += a.c[l] * a.p[k] * u[k] / (1.0L - a.p[l] * a.p[k]);
    return w;
  };
  sd.G = matrix_of(a, G);
  // Mirror: the samples past the end repeat the line backwards, so sum_e p_l^e x_{n+e} is the
  // causal state itself (over c_l): w = G u_end + K o u_end, eqs. (67)-(72) in mode states.
  sd.M = matrix_of(a, [&](const std::vector<Cx>& u) {
    std::vector<Cx> w = G(u);
    for (std::size_t l = 0; l < count; ++l) w[l] += K[l] * u[l];
    return w;
  });
  auto diagonal = [&](auto scale) {
    return matrix_of(a, [&](const std::vector<Cx>& u) {
      std::vector<Cx> w(count);
      for (std::size_t k = 0; k < count; ++k) w[k] = scale(a.p[k]) * u[k];
      return w;
    });
  };
  sd.Q_n = diagonal([&](Cx p) { return 1.0L / (1.0L - std::pow(p, Wide(n))); });
  sd.Q_2n = diagonal([&](Cx p) { return 1.0L / (1.0L - std::pow(p, Wide(2.0L * n))); });
  sd.D_n = diagonal([&](Cx p) { return std::pow(p, Wide(n)); });
  // Constant padding with the edge sample: u_k = c_k x_0 / (1 - p_k), eq. (35); past the end the
  // constant x_{n-1} adds c_l K_l / (1 - p_l) to the anticausal state, eq. (44).
  std::vector<Cx> S(count), tail(count);
  for (std::size_t k = 0; k < count; ++k) {
    S[k] = a.c[k] / (1.0L - a.p[k]);
    tail[k] = a.c[k] * K[k] / (1.0L - a.p[k]);
  }
  sd.S = rounded(a.state_of(S));
  sd.clamp_tail = rounded(a.state_of(tail));
  // Reflect101 (the derivation above Seeds in modal.h).
  if (n == 1) {
    sd.R_h = sd.R_u = Mat(r, r);
    sd.r_first = sd.S;
    sd.r_last.assign(r, 0.0);
    sd.W101 = sd.G;
    sd.w_last = sd.clamp_tail;
    return sd;
  }
  auto Q101 = [&](Cx p) { return 1.0L / (1.0L - std::pow(p, Wide(2.0L * n - 2.0L))); };
  sd.R_h = diagonal([&](Cx p) { return Q101(p) / p; });
  sd.R_u = diagonal([&](Cx p) { return Q101(p) * std::pow(p, Wide(n - 2)); });
  sd.W101 = matrix_of(a, [&](const std::vector<Cx>& u) {
    std::vector<Cx> w = G(u);
    for (std::size_t l = 0; l < count; ++l) w[l] += K[l] * u[l] / a.p[l];
    return w;
  });
  std::vector<Cx> first(count), last(count), w_last(count);
  for (std::size_t k = 0; k < count; ++k) {
    first[k] = -Q101(a.p[k]) * a.c[k] / a.p[k];
    last[k] = -Q101(a.p[k]) * std::pow(a.p[k], Wide(n - 2)) * a.c[k];
    w_last[k] = -K[k] * a.c[k] / a.p[k];
  }
  sd.r_first = rounded(a.state_of(first));
  sd.r_last = rounded(a.state_of(last));
  sd.w_last = rounded(a.state_of(w_last));
  return sd;
}

}  // namespace rf::modal

namespace rf {

PairModes pair_modes(const Recursive& f) {
  if (f.causal_only) throw InvalidParameter("pair modes: a causal-only filter has no pair");
  std::vector<modal::Cx> p;
  try {
    p = modal::checked_poles(f);
  } catch (const std::domain_error& e) {
    throw InvalidParameter(std::string("pair modes: ") + e.what());
  }
  const modal::Cx b0 = modal::Cx(f.b0);
  PairModes out;
  for (std::size_t l = 0; l < p.size(); ++l) {
    modal::Cx den = 1.0L;
    for (std::size_t j = 0; j < p.size(); ++j) {
      if (j != l) den *= 1.0L - p[j] / p[l];
      den *= 1.0L - p[l] * p[j];
    }
    out.poles.emplace_back(double(p[l].real()), double(p[l].imag()));
    const modal::Cx w = b0 * b0 / den;
    out.weights.emplace_back(double(w.real()), double(w.imag()));
  }
  return out;
}

}  // namespace rf
