// rf::ground_truth on a chosen backend: on the CPU it is the reference each kind is judged by, and
// the GPU is asked only for what it computes (test_truth_cuda.cpp checks its values).
#include <doctest/doctest.h>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/edge_aware/edge_aware.h"
#include "filters/recursive/reference.h"
#include "filters/truth/truth.h"
#include "tests/random_data.h"

using namespace rf;

namespace {

// The reference of each kind, written out: the FIR Gaussian, the padded recursion, the edge-aware
// reference.
std::vector<float> reference(const FilterSpec& spec, const Image& in) {
  if (spec.kind == FilterKind::EdgeAware) return edge_aware_reference(spec, in).pixels;
  const std::vector<double> v = spec.kind == FilterKind::Gaussian ||
                                        spec.kind == FilterKind::Deriche ||
                                        spec.kind == FilterKind::Yvrg
                                    ? ref::fir_gaussian(in, spec.sigma, spec.ext)
                                    : ref::filter_image_padded(design(spec), spec.ext, in);
  return std::vector<float>(v.begin(), v.end());
}

}  // namespace

TEST_CASE("ground truth: the Gaussian kinds are the FIR truth, the others are not") {
  FilterSpec spec;
  for (FilterKind k : {FilterKind::Gaussian, FilterKind::Deriche, FilterKind::Yvrg}) {
    spec.kind = k;
    CHECK(fir_truth(spec));
  }
  for (FilterKind k :
       {FilterKind::BSpline3, FilterKind::Exponential, FilterKind::Sat, FilterKind::EdgeAware}) {
    spec.kind = k;
    CHECK_FALSE(fir_truth(spec));
  }
}

TEST_CASE("ground truth on the CPU is the double reference, any kind and channel count") {
  for (int channels : {1, 3, 4}) {
    const Image in = test::random_image(23, 17, channels, 40u + unsigned(channels), 0.05f, 1.0f);
    for (FilterKind kind : {FilterKind::Gaussian, FilterKind::BSpline3, FilterKind::EdgeAware}) {
      FilterSpec spec;
      spec.kind = kind;
      spec.sigma = 2.5;
      spec.ext = Extension::Mirror;
      CAPTURE(channels);
      CAPTURE(to_string(kind));
      CHECK(ground_truth(spec, in, Backend::Cpu).pixels == reference(spec, in));
    }
  }
}

TEST_CASE("ground truth: the GPU refuses what it does not compute, Auto falls back") {
  const Image rgb = test::random_image(9, 7, 3, 5u, 0.05f, 1.0f);
  const Image gray = test::random_image(9, 7, 1, 6u, 0.05f, 1.0f);
  FilterSpec spec;
  spec.sigma = 1.5;
  // Three channels and kinds without a FIR truth stay on the CPU.
  CHECK_THROWS_AS(ground_truth(spec, rgb, Backend::Cuda), InvalidParameter);
  CHECK(ground_truth(spec, rgb, Backend::Auto).pixels == reference(spec, rgb));
  FilterSpec spline = spec;
  spline.kind = FilterKind::BSpline3;
  CHECK_THROWS_AS(ground_truth(spline, gray, Backend::Cuda), InvalidParameter);
  CHECK(ground_truth(spline, gray, Backend::Auto).pixels == reference(spline, gray));
  if (!cuda_available()) {
    CHECK_THROWS_AS(ground_truth(spec, gray, Backend::Cuda), BackendUnavailable);
    CHECK(ground_truth(spec, gray, Backend::Auto).pixels == reference(spec, gray));
  }
  FilterSpec bad = spec;
  bad.sigma = -1.0;
  CHECK_THROWS_AS(ground_truth(bad, gray, Backend::Cpu), InvalidParameter);
  CHECK_THROWS_AS(ground_truth(bad, gray, Backend::Cuda), InvalidParameter);
}
