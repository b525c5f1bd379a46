// Helpers shared by the Lee et al. 2014 suites (CPU and CUDA) and the yvrg design test.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <utility>

#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/image.h"
#include "filters/lee2014/lee2014.h"

namespace rf::test {

inline Image random_image(int w, int h, int c, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Image img(w, h, c);
  for (float& v : img.pixels) v = u(rng);
  return img;
}

// Young and van Vliet's q, b0..b3 and B as Lee et al. print them in Sec. 2.1 (eq. 3-4), from the
// 5-6 digit constants of the paper, independent of rf::design.
struct PaperYvrg {
  double q, b0, b1, b2, b3, B;
};

inline PaperYvrg paper_yvrg(double sigma) {
  PaperYvrg p;
  p.q = sigma >= 2.5 ? 0.98711 * sigma - 0.96330
                     : 3.97156 - 4.14554 * std::sqrt(1.0 - 0.26891 * sigma);
  const double q = p.q;
  p.b0 = 1.57825 + 2.44413 * q + 1.4281 * q * q + 0.422205 * q * q * q;
  p.b1 = 2.44413 * q + 2.85619 * q * q + 1.26661 * q * q * q;
  p.b2 = -(1.4281 * q * q + 1.26661 * q * q * q);
  p.b3 = 0.422205 * q * q * q;
  p.B = 1.0 - (p.b1 + p.b2 + p.b3) / p.b0;
  return p;
}

// The engine of `backend` runs yvrg one-way and two-way exactly as the family's own entry point
// `family_filter(partition, sigma, image)` does, and refuses them for other kinds.
template <class FamilyFilter>
void check_engine_runs_lee(Backend backend, FamilyFilter family_filter) {
  std::mt19937_64 rng(3);
  const Image img = random_image(45, 38, 4, rng);
  FilterSpec spec;
  spec.kind = FilterKind::Yvrg;
  spec.sigma = 2.5;
  for (auto [algo, p] : {std::pair{Algorithm::OneWay, lee2014::Partition::OneWay},
                         std::pair{Algorithm::TwoWay, lee2014::Partition::TwoWay}}) {
    spec.algo = algo;
    const Image got = filter_image(spec, img, backend);
    const Image want = family_filter(p, spec.sigma, img);
    REQUIRE(got.pixels.size() == want.pixels.size());
    CHECK(got.pixels == want.pixels);
  }
  spec.kind = FilterKind::Gaussian;
  spec.algo = Algorithm::TwoWay;
  CHECK_THROWS_AS(filter_image(spec, img, backend), InvalidParameter);
}

}  // namespace rf::test
