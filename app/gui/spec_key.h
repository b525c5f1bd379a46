// Keys that say whether a computed thing (the truth, a profile, a race) still belongs to what is
// on screen: a hash of the spec, combined with the frame's version and the settings it used.
#pragma once

#include <cstdint>
#include <functional>

#include "filters/core/spec.h"

namespace rf::gui {

inline std::uint64_t hash_combine(std::uint64_t h, std::uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

inline std::uint64_t hash_spec(const FilterSpec& s) {
  std::uint64_t h = 0;
  const std::hash<double> hd;
  h = hash_combine(h, std::uint64_t(s.kind));
  h = hash_combine(h, hd(s.sigma));
  h = hash_combine(h, hd(s.sigma_y.value_or(-1.0)));
  h = hash_combine(h, std::uint64_t(s.order));
  h = hash_combine(h, hd(s.pole));
  h = hash_combine(h, std::uint64_t(s.ext));
  h = hash_combine(h, hd(s.sigma_r));
  h = hash_combine(h, hd(s.kappa));
  h = hash_combine(h, std::uint64_t(s.iterations));
  h = hash_combine(h, std::uint64_t(s.algo));
  h = hash_combine(h, std::uint64_t(s.gaussian_method));
  return h;
}

}  // namespace rf::gui
