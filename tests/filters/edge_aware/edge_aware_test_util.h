// Test pictures and helpers shared by the edge-aware filter's CPU and CUDA suites.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "filters/core/image.h"
#include "filters/core/spec.h"
#include "filters/edge_aware/edge_aware.h"

namespace rf::test {

inline FilterSpec edge_spec(double sigma, double sigma_r, int iterations, Algorithm algo,
                            double kappa = 2.0) {
  FilterSpec s;
  s.kind = FilterKind::EdgeAware;
  s.sigma = sigma;
  s.sigma_r = sigma_r;
  s.iterations = iterations;
  s.algo = algo;
  s.kappa = kappa;
  return s;
}

// The CPU backend's plan, run once.
inline Image run_cpu(const FilterSpec& spec, const Image& in) {
  cpu::EdgeAwarePlan plan(spec, in.width, in.height, in.channels);
  Image out(in.width, in.height, in.channels);
  plan.run(in.pixels.data(), out.pixels.data());
  return out;
}

inline double max_abs_diff(const Image& a, const Image& b) {
  REQUIRE(a.pixels.size() == b.pixels.size());
  double m = 0.0;
  for (std::size_t i = 0; i < a.pixels.size(); ++i)
    m = std::max(m, std::abs(double(a.pixels[i]) - double(b.pixels[i])));
  return m;
}

// A piecewise-smooth test picture: a few random rectangles over a gradient, plus mild noise, so
// that it has both flat regions (long warm-ups) and strong edges.
inline Image cartoon_image(int w, int h, int c, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::normal_distribution<float> noise(0.0f, 0.01f);
  Image img(w, h, c);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) img.at(x, y, k) = 0.3f + 0.4f * float(x + k * y) / float(w + h);
  for (int r = 0; r < 12; ++r) {
    const int x0 = int(u(rng) * w), y0 = int(u(rng) * h);
    const int x1 = std::min(w, x0 + 1 + int(u(rng) * w / 2)),
              y1 = std::min(h, y0 + 1 + int(u(rng) * h / 2));
    float colour[4];
    for (float& v : colour) v = u(rng);
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x)
        for (int k = 0; k < c; ++k) img.at(x, y, k) = colour[k];
  }
  for (float& v : img.pixels) v += noise(rng);
  return img;
}

}  // namespace rf::test
