// Exact initial feedbacks for every extension (Nehab & Maximo 2016, section 4), written directly
// as sums of impulse responses over the images of each input sample in the infinite extension.
//
// Causal side: y[-1-k] = sum_{i <= -1-k} c[-1-k-i] x_ext[i], with c the causal impulse response,
// so causal_from_x(k, j) sums c over every position i before the line whose extension reads x[j].
// For clamp this is eq. (35) (the steady state (I - A_F)^-1 of x[0]), for repeat eq. (49) and for
// mirror eq. (52): the geometric series (I - A_F^P)^-1 of those equations, summed term by term.
//
// Anticausal side: the anticausal feedback z[n+k] is the final output of the causal + anticausal
// pair at n+k on the infinite extension, z[n+k] = sum_i h[n+k-i] x_ext[i], where
//   h[m] = sum_{i >= 0} c[i] c[i+|m|]
// is the pair's combined impulse response (the autocorrelation of c). The papers reach the same
// quantities in block form through the causal outputs near the end of the line (eq. 44 for
// constant padding, eq. 51 periodic, eqs. 67-72 even-periodic with L = (K - A_R^r)^-1 Abar_R).
// That route, anticausal_from_y, was abandoned: when the poles crowd near z = 1 (Gaussians of
// order 4-5 and large sigma) the last r causal outputs are nearly collinear, its weights are ~1e4
// times the feedbacks they produce and cancel catastrophically (order 5 mirror at sigma 100 was off
// by 4e-2). Every weight here is a sum of samples of c or h, bounded by their total mass, so
// nothing cancels. anticausal_from_y is left empty except for repeat, whose periodic form over all
// of y is itself such a sum (periodic_anticausal_weights).
//
// Cost: O(L r) for c and h (L = their decay length) plus O(n r) to fill the maps, using the
// impulse responses folded once onto the period of the extension.
#include "filters/recursive/initial_feedback.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "filters/core/errors.h"
#include "filters/recursive/block_algebra.h"

namespace rf {

namespace {

// Plan-time sums run in extended precision, so that rounding the weights to double is the only
// loss.
using Wide = long double;

// Causal impulse response c[0..L) of f, up to where its state falls below 1e-19 of its peak
// (columns below 1e-17 of the largest weight are dropped anyway).
std::vector<Wide> causal_response(const Recursive& f) {
  constexpr long long kLimit = 1LL << 26;
  const int r = f.order();
  std::vector<Wide> c;
  std::vector<Wide> state(r, 0.0L);  // c[m], c[m-1], ..., c[m-r+1]
  Wide top = 0.0L;
  for (long long m = 0;; ++m) {
    if (m >= kLimit)
      throw InvalidParameter(
          "boundary_maps: the impulse response does not decay (a pole on or too close to the "
          "unit circle)");
    Wide next = m == 0 ? Wide(f.b0) : 0.0L;
    for (int k = 0; k < r; ++k) next -= Wide(f.a[k]) * state[k];
    for (int k = r - 1; k > 0; --k) state[k] = state[k - 1];
    state[0] = next;
    c.push_back(next);
    Wide ps = 0.0L;
    for (Wide v : state) ps = std::max(ps, std::abs(v));
    top = std::max(top, ps);
    if (m >= r && ps < 1e-19L * top) break;
  }
  return c;
}

// h[m] = sum_i c[i] c[i+m] for m in [0, L). The first r lags are summed directly; for m >= r,
// h[m] = sum_i c[i] c[i+m] with c[i+m] = -sum_k a_k c[i+m-k] (i + m >= 1) gives the recursion
//   h[m] = -sum_k a_k h[|m - k|],
// the causal recursion itself run over the autocorrelation, as stable as the one that made c.
std::vector<Wide> autocorrelation(const Recursive& f, const std::vector<Wide>& c) {
  const int r = f.order();
  const int len = int(c.size());
  std::vector<Wide> h(len, 0.0L);
  for (int m = 0; m < std::min(r, len); ++m) {
    Wide s = 0.0L;
    for (int i = len - 1 - m; i >= 0; --i) s += c[i] * c[i + m];
    h[m] = s;
  }
  for (int m = r; m < len; ++m) {
    Wide s = 0.0L;
    for (int k = 1; k <= r; ++k) s -= Wide(f.a[k - 1]) * h[std::abs(m - k)];
    h[m] = s;
  }
  return h;
}

// fold[d] = sum over all lags m = d (mod period) of resp[|m|] if two_sided, else over m >= 0.
std::vector<Wide> fold(const std::vector<Wide>& resp, long long period, bool two_sided) {
  std::vector<Wide> out(std::size_t(period), 0.0L);
  const long long len = (long long)resp.size();
  // Smallest terms first: the tails are added before the peak.
  for (long long m = len - 1; m >= 0; --m) {
    out[std::size_t(m % period)] += resp[std::size_t(m)];
    if (two_sided && m > 0)
      out[std::size_t((period - m % period) % period)] += resp[std::size_t(m)];
  }
  return out;
}

std::size_t mod(long long a, long long p) {
  const long long m = a % p;
  return std::size_t(m < 0 ? m + p : m);
}

// Keeps the contiguous range of columns of a dense r x n map (column-major) whose largest weight
// is at least 1e-17 of the map's.
SparseColumns sparse(int r, int n, const std::vector<Wide>& w) {
  SparseColumns s;
  s.rows = r;
  Wide peak = 0.0L;
  for (Wide v : w) peak = std::max(peak, std::abs(v));
  if (peak == 0.0L) return s;
  auto significant = [&](int j) {
    for (int k = 0; k < r; ++k)
      if (std::abs(w[std::size_t(j) * r + k]) >= 1e-17L * peak) return true;
    return false;
  };
  int first = 0, last = n - 1;
  while (!significant(first)) ++first;
  while (!significant(last)) --last;
  s.first = first;
  s.count = last - first + 1;
  s.w.assign(w.begin() + std::ptrdiff_t(first) * r, w.begin() + std::ptrdiff_t(last + 1) * r);
  return s;
}

// causal_from_x(k, j) = sum of c[-1-k-i] over positions i <= -1-k of the extension reading x[j].
std::vector<Wide> causal_weights(const std::vector<Wide>& c, Extension ext, int n, int r) {
  std::vector<Wide> w(std::size_t(n) * r, 0.0L);
  switch (ext) {
    case Extension::Ignore:
    case Extension::Zero:
      break;
    case Extension::Clamp: {
      // eq. (35): every position before the line reads x[0]; the weight is the DC gain.
      Wide total = 0.0L;
      for (auto it = c.rbegin(); it != c.rend(); ++it) total += *it;
      for (int k = 0; k < r; ++k) w[std::size_t(k)] = total;
      break;
    }
    case Extension::Repeat: {
      // eq. (49): position i = -1-k-m reads x[(-1-k-m) mod n].
      const std::vector<Wide> p = fold(c, n, false);
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < r; ++k) w[std::size_t(j) * r + k] = p[mod(-1LL - k - j, n)];
      break;
    }
    case Extension::Mirror: {
      // eq. (52): period 2n, x[j] sits at j and at 2n-1-j of each period.
      const long long period = 2LL * n;
      const std::vector<Wide> p = fold(c, period, false);
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < r; ++k)
          w[std::size_t(j) * r + k] = p[mod(-1LL - k - j, period)] + p[mod(j - k, period)];
      break;
    }
  }
  return w;
}

// anticausal_from_x(k, j) = sum of h[n+k-i] over every position i of the extension reading x[j],
// the line itself included.
std::vector<Wide> anticausal_weights(const std::vector<Wide>& h, Extension ext, int n, int r) {
  std::vector<Wide> w(std::size_t(n) * r, 0.0L);
  const long long len = (long long)h.size();
  auto lag = [&](long long m) { return std::abs(m) < len ? h[std::size_t(std::abs(m))] : 0.0L; };
  switch (ext) {
    case Extension::Ignore:
    case Extension::Repeat:  // through anticausal_from_y, see periodic_anticausal_weights
      break;
    case Extension::Zero:
    case Extension::Clamp: {
      for (int j = std::max(0LL, n - len); j < n; ++j)
        for (int k = 0; k < r; ++k) w[std::size_t(j) * r + k] = lag(n + k - j);
      if (ext == Extension::Clamp) {
        // Positions i < 0 read x[0] (lags m > n + k), positions i >= n read x[n-1] (lags m <= k,
        // negative ones included).
        std::vector<Wide> tail(std::size_t(len) + 1, 0.0L);  // tail[a] = sum_{m >= a} h[m]
        for (long long m = len - 1; m >= 0; --m)
          tail[std::size_t(m)] = tail[std::size_t(m + 1)] + h[std::size_t(m)];
        for (int k = 0; k < r; ++k) {
          const long long a = std::min<long long>(n + k + 1, len);
          w[std::size_t(k)] += tail[std::size_t(a)];
          Wide below = tail[0];
          for (int m = 1; m <= k; ++m) below += lag(m);
          w[std::size_t(n - 1) * r + k] += below;
        }
      }
      break;
    }
    case Extension::Mirror: {
      // eqs. (67)-(72) in direct form: x[j] sits at j and 2n-1-j (mod 2n).
      const long long period = 2LL * n;
      const std::vector<Wide> p = fold(h, period, true);
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < r; ++k)
          w[std::size_t(j) * r + k] =
              p[mod(1LL * n + k - j, period)] + p[mod(1LL * k + j + 1 - n, period)];
      break;
    }
  }
  return w;
}

// Repeat: the causal output of an n-periodic input is itself n-periodic, so eq. (51) reads
//   z[n+k] = sum_{m >= 0} c[m] y[(n+k+m) mod n],
// i.e. anticausal_from_y(k, j) sums c over the lags m = j - k (mod n). Unlike the constant and
// even-periodic forms, which need the r last outputs only, this one weighs every output by a sum
// of samples of c: as well conditioned as the x form (measured: the same agreement with padding,
// order 5 sigma 200 included), and its nonzero columns stay within the decay length of c from the
// start of the line, where the x form would fill both ends, hence the whole line.
std::vector<Wide> periodic_anticausal_weights(const std::vector<Wide>& c, int n, int r) {
  const std::vector<Wide> p = fold(c, n, false);
  std::vector<Wide> w(std::size_t(n) * r, 0.0L);
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < r; ++k) w[std::size_t(j) * r + k] = p[mod(1LL * j - k, n)];
  return w;
}

BoundaryMaps build_maps(const Recursive& f, Extension ext, int n) {
  const int r = f.order();
  if (r < 1) throw InvalidParameter("boundary_maps: the filter has no feedback coefficients");
  if (n < 1) throw InvalidParameter("boundary_maps: line length " + std::to_string(n) + " < 1");

  BoundaryMaps maps;
  maps.order = r;
  maps.n = n;
  maps.causal_from_x.rows = maps.anticausal_from_y.rows = maps.anticausal_from_x.rows = r;
  if (ext == Extension::Ignore) return maps;
  if (f.causal_only && ext == Extension::Zero) return maps;
  if (!algebra::is_stable(f)) throw std::domain_error("a pole on or outside the unit circle");

  const std::vector<Wide> c = causal_response(f);
  maps.causal_from_x = sparse(r, n, causal_weights(c, ext, n, r));
  if (f.causal_only) return maps;
  if (ext == Extension::Repeat)
    maps.anticausal_from_y = sparse(r, n, periodic_anticausal_weights(c, n, r));
  else
    maps.anticausal_from_x = sparse(r, n, anticausal_weights(autocorrelation(f, c), ext, n, r));
  return maps;
}

}  // namespace

BoundaryMaps boundary_maps(const Recursive& f, Extension ext, int n) {
  try {
    return build_maps(f, ext, n);
  } catch (const std::domain_error&) {
    // Only a pole on the unit circle (e.g. the summed-area table) makes these sums diverge.
    throw InvalidParameter(std::string("boundary_maps: extension '") + to_string(ext) +
                           "' is undefined for a filter with a pole on or outside the unit circle");
  }
}

}  // namespace rf
