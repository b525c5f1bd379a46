// Lee et al. 2014 on CUDA: the one-way and two-way kernels against the double reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/spec.h"
#include "filters/lee2014/lee2014.h"
#include "filters/lee2014/lee2014_cuda.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/filters/lee2014/lee2014_test_util.h"

namespace {

using rf::Image;
using rf::lee2014::Partition;
using rf::test::random_image;

double max_error(const Image& got, const std::vector<double>& want) {
  double worst = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(double(got.pixels[i]) - want[i]));
  return worst;
}

}  // namespace

TEST_CASE("lee2014 cuda: one-way and two-way kernels match the double reference") {
  RF_REQUIRE_CUDA();
  std::mt19937_64 rng(670);
  const int sizes[][2] = {{1, 1}, {2, 1}, {1, 2}, {3, 5}, {31, 33}, {257, 131}, {70, 1}};
  for (Partition p : {Partition::OneWay, Partition::TwoWay})
    for (double sigma : {0.5, 1.5, 4.0, 15.0})
      for (const auto& s : sizes)
        for (int c : {1, 4})
          for (int lines_per_block : {32, 7}) {
            CAPTURE(std::string(rf::lee2014::to_string(p)));
            CAPTURE(sigma);
            CAPTURE(s[0]);
            CAPTURE(s[1]);
            CAPTURE(c);
            CAPTURE(lines_per_block);
            const Image img = random_image(s[0], s[1], c, rng);
            const auto want = rf::lee2014::reference(p, sigma, img);
            const Image got = rf::lee2014::cuda::filter(p, sigma, img, lines_per_block);
            // Float rounding in the feedback grows roughly like 1 / (1 - |pole|)^2 ~ sigma^2.
            CHECK(max_error(got, want) < 1e-6 * (1.0 + sigma * sigma));
          }
}

TEST_CASE("lee2014 cuda: in place, and at the paper's image sizes") {
  RF_REQUIRE_CUDA();
  std::mt19937_64 rng(1080);
  const int sizes[][2] = {{512, 512}, {1280, 720}, {1920, 1080}};
  for (Partition p : {Partition::OneWay, Partition::TwoWay})
    for (const auto& s : sizes) {
      CAPTURE(std::string(rf::lee2014::to_string(p)));
      CAPTURE(s[0]);
      const double sigma = rf::lee2014::sigma_from_window(30.0);
      const Image img = random_image(s[0], s[1], 1, rng);
      const auto want = rf::lee2014::reference(p, sigma, img);
      const Image got = rf::lee2014::cuda::filter(p, sigma, img, 32, true);
      CHECK(max_error(got, want) < 1e-6 * (1.0 + sigma * sigma));
    }
}

TEST_CASE("lee2014 cuda: the CUDA engine runs yvrg one-way and two-way, and refuses other kinds") {
  RF_REQUIRE_CUDA();
  rf::test::check_engine_runs_lee(rf::Backend::Cuda,
                                  [](Partition p, double sigma, const Image& in) {
                                    return rf::lee2014::cuda::filter(p, sigma, in);
                                  });
}
