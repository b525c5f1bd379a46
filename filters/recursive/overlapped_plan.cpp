#include "filters/recursive/overlapped_plan.h"

#include <cmath>
#include <cstdlib>

namespace rf::cuda {
namespace {

constexpr int kMaxPad = 1 << 16;
constexpr double kTailMass = 1e-10;

// Runs y_i = b0 x_i - sum_k a_k y_{i-k} for i = 0..len-1 from the state (y_{-1}, ..., y_{-r});
// returns y_{-r} .. y_{len-1} (the state first, reversed) so the caller can read any window.
std::vector<double> run_causal(const OverlappedPlan& p, const std::vector<double>& state,
                               const std::vector<double>& x) {
  const int r = p.order;
  const int len = int(x.size());
  std::vector<double> y(std::size_t(r + len));
  for (int k = 0; k < r; ++k) y[std::size_t(r - 1 - k)] = state[std::size_t(k)];
  for (int i = 0; i < len; ++i) {
    double v = p.b0 * x[std::size_t(i)];
    for (int k = 1; k <= r; ++k) v -= p.a[std::size_t(k - 1)] * y[std::size_t(r + i - k)];
    y[std::size_t(r + i)] = v;
  }
  return y;
}

// Runs z_i = b0 y_i - sum_k a_k z_{i+k} for i = len-1..0 from the state (z_len, ..., z_{len+r-1});
// returns z_0 .. z_{len+r-1}.
std::vector<double> run_anticausal(const OverlappedPlan& p, const std::vector<double>& state,
                                   const std::vector<double>& y) {
  const int r = p.order;
  const int len = int(y.size());
  std::vector<double> z(std::size_t(len + r));
  for (int k = 0; k < r; ++k) z[std::size_t(len + k)] = state[std::size_t(k)];
  for (int i = len - 1; i >= 0; --i) {
    double v = p.b0 * y[std::size_t(i)];
    for (int k = 1; k <= r; ++k) v -= p.a[std::size_t(k - 1)] * z[std::size_t(i + k)];
    z[std::size_t(i)] = v;
  }
  return z;
}

std::vector<double> unit(int r, int k) {
  std::vector<double> e(std::size_t(r), 0.0);
  e[std::size_t(k)] = 1.0;
  return e;
}

}  // namespace

BlockMatrices OverlappedPlan::matrices(int len) const {
  const int r = order;
  BlockMatrices m;
  m.T.assign(std::size_t(r * r), 0.0);
  m.M.assign(std::size_t(r * r), 0.0);
  m.U.assign(std::size_t(r * r), 0.0);
  const std::vector<double> zeros(std::size_t(len), 0.0);
  const std::vector<double> no_state(std::size_t(r), 0.0);
  for (int k = 0; k < r; ++k) {
    // Column k: the response to the k-th unit state.
    const std::vector<double> y = run_causal(*this, unit(r, k), zeros);  // y_{-r} .. y_{len-1}
    for (int i = 0; i < r; ++i) m.T[std::size_t(i * r + k)] = y[std::size_t(r + len - 1 - i)];
    const std::vector<double> block(y.begin() + r, y.end());
    const std::vector<double> zy = run_anticausal(*this, no_state, block);
    for (int i = 0; i < r; ++i) m.M[std::size_t(i * r + k)] = zy[std::size_t(i)];
    const std::vector<double> ze = run_anticausal(*this, unit(r, k), zeros);
    for (int i = 0; i < r; ++i) m.U[std::size_t(i * r + k)] = ze[std::size_t(i)];
  }
  return m;
}

std::vector<double> OverlappedPlan::power(const std::vector<double>& m, int power) const {
  const int r = order;
  std::vector<double> result(std::size_t(r * r), 0.0), base = m;
  for (int i = 0; i < r; ++i) result[std::size_t(i * r + i)] = 1.0;
  auto multiply = [r](const std::vector<double>& x, const std::vector<double>& y) {
    std::vector<double> z(std::size_t(r * r), 0.0);
    for (int i = 0; i < r; ++i)
      for (int k = 0; k < r; ++k)
        for (int j = 0; j < r; ++j)
          z[std::size_t(i * r + j)] += x[std::size_t(i * r + k)] * y[std::size_t(k * r + j)];
    return z;
  };
  for (; power > 0; power >>= 1) {
    if (power & 1) result = multiply(result, base);
    base = multiply(base, base);
  }
  return result;
}

OverlappedPlan make_overlapped_plan(const Recursive& f, Extension ext) {
  OverlappedPlan p;
  p.order = f.order();
  p.causal_only = f.causal_only;
  p.ext = ext;
  p.b0 = f.b0;
  p.a = f.a;
  const int r = p.order;
  p.N.assign(std::size_t(r * r), 0.0);
  if (f.causal_only) {
    // The summed-area table's pole lies on the unit circle: its running sums start from zero.
    p.ext = Extension::Ignore;
    return p;
  }
  // Impulse response h of 1 / (1 + sum_k a_k q^-k) and the length its tail needs to vanish.
  std::vector<double> h(1, 1.0);
  h.reserve(kMaxPad + r);
  double mass = 1.0;
  for (int j = 1; j < kMaxPad + r; ++j) {
    double v = 0.0;
    for (int k = 1; k <= r && k <= j; ++k) v -= p.a[std::size_t(k - 1)] * h[std::size_t(j - k)];
    h.push_back(v);
    mass += std::fabs(v);
  }
  double tail = 0.0;
  int pad = int(h.size());
  for (int j = int(h.size()) - 1; j >= 0; --j) {
    tail += std::fabs(h[std::size_t(j)]);
    if (tail > kTailMass * mass) break;
    pad = j;
  }
  p.pad = (ext == Extension::Ignore || ext == Extension::Zero)
              ? 0
              : std::min(std::max(pad, r), kMaxPad);
  const int taps = std::max(pad, r) + r;
  p.g.resize(std::size_t(taps));
  for (int j = 0; j < taps; ++j) p.g[std::size_t(j)] = p.b0 * h[std::size_t(j)];
  // A(d) for d < r directly; beyond, g's recursion g_j = -sum_k a_k g_{j-k} (j >= 1) gives
  // A(d) = -sum_k a_k A(|d - k|).
  p.acorr.assign(std::size_t(taps), 0.0);
  for (int d = 0; d < std::min(r, taps); ++d)
    for (int u = 0; u + d < taps; ++u)
      p.acorr[std::size_t(d)] += p.g[std::size_t(u)] * p.g[std::size_t(u + d)];
  for (int d = r; d < taps; ++d) {
    double v = 0.0;
    for (int k = 1; k <= r; ++k)
      v -= p.a[std::size_t(k - 1)] * p.acorr[std::size_t(std::abs(d - k))];
    p.acorr[std::size_t(d)] = v;
  }
  // N: z_{n+m} = sum_q g_{q-m} y_{n+q} for the free response y of each unit end state, truncated
  // where the samples' own tail is (the same taps the kernels use for the extension's part).
  if (ext != Extension::Ignore) {
    const std::vector<double> zeros(std::size_t(taps), 0.0);
    for (int k = 0; k < r; ++k) {
      const std::vector<double> y = run_causal(p, unit(r, k), zeros);
      for (int m = 0; m < r; ++m) {
        double z = 0.0;
        for (int q = m; q < taps; ++q) z += p.g[std::size_t(q - m)] * y[std::size_t(r + q)];
        p.N[std::size_t(m * r + k)] = z;
      }
    }
  }
  return p;
}

}  // namespace rf::cuda
