// The benchmark's baselines are checked too: a fast wrong baseline would flatter nobody.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "filters/baselines/baselines_cuda.h"
#include "filters/baselines/fir_cuda.h"
#include "filters/core/device_frame.h"
#include "filters/recursive/reference.h"
#include "tests/filters/core/cuda_test.h"

namespace {

rf::Image random_image(int w, int h, int c, unsigned seed) {
  rf::Image img(w, h, c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.05f, 1.0f);
  for (float& v : img.pixels) v = u(rng);
  return img;
}

double max_relative(const std::vector<float>& got, const std::vector<float>& want) {
  double err = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(double(got[i]) - double(want[i]));
    err = std::isnan(got[i]) ? INFINITY : std::max(err, d);
    scale = std::max(scale, std::fabs(double(want[i])));
  }
  return err / scale;
}

}  // namespace

TEST_CASE("cuda FIR gaussian matches the double ground truth for every extension") {
  RF_REQUIRE_CUDA();
  for (int c : {1, 4})
    for (rf::Extension ext : rf::kAllExtensions) {
      const rf::Image in = random_image(77, 53, c, unsigned(c * 10 + int(ext)));
      rf::FilterSpec spec;
      spec.sigma = 3.0;
      spec.ext = ext;
      const rf::Image want = rf::ref::ground_truth(spec, in);
      for (auto p : {rf::cuda::FirPrecision::Float, rf::cuda::FirPrecision::Double}) {
        const rf::Image got = rf::cuda::fir_gaussian(in, spec.sigma, ext, p);
        const double err = max_relative(got.pixels, want.pixels);
        INFO("FIR ", rf::to_string(ext), " channels ", c, " double ",
             p == rf::cuda::FirPrecision::Double, ": ", err);
        CHECK(err <= (p == rf::cuda::FirPrecision::Double ? 1e-12 : 2e-6));
      }
    }
}

TEST_CASE("cuda CUB summed-area table is the transposed table") {
  RF_REQUIRE_CUDA();
  const int w = 300, h = 131;
  const rf::Image in = random_image(w, h, 1, 4);
  std::vector<float> sat(std::size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double s = in.at(x, y);
      if (x) s += sat[std::size_t(y) * w + x - 1];
      if (y) s += sat[std::size_t(y - 1) * w + x];
      if (x && y) s -= sat[std::size_t(y - 1) * w + x - 1];
      sat[std::size_t(y) * w + x] = float(s);
    }
  // CubSat takes packed buffers: one-row frames are packed.
  rf::cuda::DeviceFrame packed_in(w * h, 1, rf::PixelFormat::R32F, rf::MemorySpace::Device);
  rf::cuda::DeviceFrame packed_out(w * h, 1, rf::PixelFormat::R32F, rf::MemorySpace::Device);
  packed_in.upload(in.pixels.data());
  packed_out.poison();
  rf::cuda::CubSat cub(w, h);
  cub.run(static_cast<const float*>(packed_in.view().data),
          static_cast<float*>(packed_out.view().data), nullptr);
  std::vector<float> got(std::size_t(w) * h);
  packed_out.download(got.data());
  std::vector<float> want(got.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) want[std::size_t(x) * h + y] = sat[std::size_t(y) * w + x];
  CHECK(max_relative(got, want) <= 1e-5);
}

TEST_CASE("cuda cuFFT gaussian approximates the periodic Gaussian") {
  RF_REQUIRE_CUDA();
  std::string why;
  if (!rf::cuda::CufftGaussian::available(&why)) {
    std::printf("[skipped] cuFFT unavailable: %s\n", why.c_str());
    return;
  }
  const int w = 128, h = 96;
  const rf::Image in = random_image(w, h, 1, 8);
  rf::FilterSpec spec;
  spec.sigma = 4.0;
  spec.ext = rf::Extension::Repeat;
  const rf::Image want = rf::ref::ground_truth(spec, in);
  rf::cuda::DeviceFrame packed(w * h, 1, rf::PixelFormat::R32F, rf::MemorySpace::Device);
  packed.upload(in.pixels.data());
  rf::cuda::CufftGaussian fft(w, h, spec.sigma);
  float* p = static_cast<float*>(packed.view().data);
  fft.run(p, p, nullptr);
  std::vector<float> got(std::size_t(w) * h);
  packed.download(got.data());
  // The sampled kernel's spectrum equals exp(-2 pi^2 sigma^2 f^2) up to aliasing near e^-79.
  CHECK(max_relative(got, want.pixels) <= 2e-5);
}
