// The benchmark's baselines are checked too: a fast wrong baseline would flatter nobody.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "bench/baselines_cuda.h"
#include "bench/bench.h"
#include "bench/fir_cuda.h"
#include "bench/npp_cuda.h"
#include "filters/core/device_frame.h"
#include "filters/core/errors.h"
#include "filters/fir/fir_tuned_cuda.h"
#include "filters/recursive/reference.h"
#include "filters/truth/truth.h"
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

// The separable FIR in double, written here independently of the library: taps
// exp(-k^2 / (2 sigma^2)) for |k| <= radius normalised to unit sum, columns then rows, samples
// outside the image through extend_index (zero where it says -1).
rf::Image fir_reference(const rf::Image& in, double sigma, int radius, rf::Extension ext) {
  std::vector<double> taps(std::size_t(2 * radius + 1));
  double sum = 0.0;
  for (int k = -radius; k <= radius; ++k)
    sum += taps[std::size_t(k + radius)] = std::exp(-0.5 * k * k / (sigma * sigma));
  for (double& t : taps) t /= sum;
  const int w = in.width, h = in.height;
  std::vector<double> mid(std::size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double acc = 0.0;
      for (int k = -radius; k <= radius; ++k) {
        const int j = rf::extend_index(y + k, h, ext);
        if (j >= 0) acc += taps[std::size_t(k + radius)] * in.at(x, j);
      }
      mid[std::size_t(y) * w + x] = acc;
    }
  rf::Image out(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double acc = 0.0;
      for (int k = -radius; k <= radius; ++k) {
        const int j = rf::extend_index(x + k, w, ext);
        if (j >= 0) acc += taps[std::size_t(k + radius)] * mid[std::size_t(y) * w + j];
      }
      out.at(x, y) = float(acc);
    }
  return out;
}

double max_abs(const std::vector<float>& got, const std::vector<float>& want) {
  double err = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(double(got[i]) - double(want[i]));
    err = std::isnan(d) ? INFINITY : std::max(err, d);
  }
  return err;
}

constexpr double kSigmaList[] = {1, 2, 4, 8, 16, 32, 64, 100};

}  // namespace

TEST_CASE("cuda FIR reference of the benchmark: any radius, every extension") {
  RF_REQUIRE_CUDA();
  const rf::Image in = random_image(45, 38, 1, 21);
  for (rf::Extension ext : rf::kAllExtensions)
    for (int radius : {0, 3, 50}) {
      const rf::Image got =
          rf::bench::fir_gaussian(in, 4.0, ext, rf::bench::FirPrecision::Double, radius);
      INFO(rf::to_string(ext), " radius ", radius);
      CHECK(max_abs(got.pixels, fir_reference(in, 4.0, radius, ext).pixels) <= 1e-6);
    }
}

TEST_CASE("cuda tuned FIR matches the double FIR at every sigma of the list") {
  RF_REQUIRE_CUDA();
  // Widths that are multiples of 4 take the 16-byte path, the others the scalar one. The kernels
  // take smaller tiles where their usual ones would be fewer than the SMs; with 132 SMs (H100,
  // H200): the fused kernel tiles 32 wide on all but the last two, 16 rows high but on 200x1100
  // and 600x600 beyond radius 12 (sigma 8), 32 there; the row pass tiles of 4 x 256 up to 520x9, 8
  // x 256 on 200x1100, 4 x 512 on 600x600 and 1031x777, with batched loads on 513x3170 (12 tiles
  // per SM); the column pass 32 rows up to 200x1100, 64 on 600x600, 256 on the last two.
  const int sizes[][2] = {{1, 1},   {2, 3},      {31, 33},   {64, 67},    {257, 131},
                          {520, 9}, {200, 1100}, {600, 600}, {1031, 777}, {513, 3170}};
  unsigned seed = 100;
  for (const auto& size : sizes) {
    const rf::Image in = random_image(size[0], size[1], 1, ++seed);
    for (double sigma : kSigmaList)
      for (rf::Extension ext : rf::kAllExtensions) {
        const int radius = rf::bench::fir_radius(sigma, 3.0);
        // The large frames at the radii that tell their tiles apart (the reference is slow).
        if (size[0] > 1000 && radius > rf::kFirFusedMaxRadius) continue;
        if (size[1] > 3000 && sigma > 4) continue;
        const rf::Image want = fir_reference(in, sigma, radius, ext);
        for (auto kernel : {rf::FirTunedKernel::Fused, rf::FirTunedKernel::TwoPass}) {
          if (kernel == rf::FirTunedKernel::Fused && radius > rf::kFirFusedMaxRadius) continue;
          const rf::Image got = rf::fir_tuned(in, sigma, radius, ext, kernel);
          const double err = max_abs(got.pixels, want.pixels);
          INFO(size[0], "x", size[1], " sigma ", sigma, " ", rf::to_string(ext), " ",
               rf::to_string(kernel), ": ", err);
          CHECK(err <= 1e-5);
        }
      }
  }
}

TEST_CASE("cuda tuned FIR: 6 sigma radius, pitched and misaligned rows, in place") {
  RF_REQUIRE_CUDA();
  const int w = 203, h = 77;
  const rf::Image in = random_image(w + 1, h, 1, 7);
  rf::Image inner(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) inner.at(x, y) = in.at(x + 1, y);
  for (double sigma : {2.0, 9.0}) {
    const int radius = rf::bench::fir_radius(sigma, 6.0);
    const rf::Image want = fir_reference(inner, sigma, radius, rf::Extension::Mirror);
    for (auto kernel : {rf::FirTunedKernel::Auto, rf::FirTunedKernel::TwoPass}) {
      // Pitched rows, read from column 1: every row starts 4 bytes past a 16-byte boundary.
      rf::cuda::DeviceFrame src(w + 1, h, rf::PixelFormat::R32F, rf::MemorySpace::Device);
      rf::cuda::DeviceFrame dst(w + 1, h, rf::PixelFormat::R32F, rf::MemorySpace::Device);
      src.upload(in.pixels.data());
      dst.poison();
      rf::FirTuned fir;
      fir.plan(sigma, radius, rf::Extension::Mirror, w, h, kernel);
      const rf::FrameView s = src.view(), d = dst.view();
      fir.run(static_cast<const float*>(s.data) + 1, s.pitch, static_cast<float*>(d.data) + 1,
              d.pitch);
      rf::Image got(w + 1, h, 1);
      dst.download(got.pixels.data());
      rf::Image cropped(w, h, 1);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) cropped.at(x, y) = got.at(x + 1, y);
      INFO("sigma ", sigma, " ", rf::to_string(fir.kernel()));
      CHECK(max_abs(cropped.pixels, want.pixels) <= 1e-5);
      CHECK(std::isnan(got.at(0, 0)));  // column 0 is not the filter's to write
    }
    // In place: two passes through a scratch, and the fused kernel too.
    rf::cuda::DeviceFrame frame(w, h, rf::PixelFormat::R32F, rf::MemorySpace::Device);
    frame.upload(inner.pixels.data());
    rf::FirTuned two_pass;
    two_pass.plan(sigma, radius, rf::Extension::Mirror, w, h, rf::FirTunedKernel::TwoPass);
    float* p = static_cast<float*>(frame.view().data);
    two_pass.run(p, frame.view().pitch, p, frame.view().pitch);
    rf::Image got(w, h, 1);
    frame.download(got.pixels.data());
    CHECK(max_abs(got.pixels, want.pixels) <= 1e-5);
    if (radius <= rf::kFirFusedMaxRadius) {
      // The fused kernel in place goes through its scratch.
      frame.upload(inner.pixels.data());
      rf::FirTuned fused;
      fused.plan(sigma, radius, rf::Extension::Mirror, w, h, rf::FirTunedKernel::Fused);
      fused.run(p, frame.view().pitch, p, frame.view().pitch);
      frame.download(got.pixels.data());
      CHECK(max_abs(got.pixels, want.pixels) <= 1e-5);
    }
  }
  rf::FirTuned fir;
  CHECK_THROWS_AS(fir.plan(10.0, 30, rf::Extension::Zero, 64, 64, rf::FirTunedKernel::Fused),
                  rf::InvalidParameter);
}

TEST_CASE("cuda NPP gaussian matches the double FIR with the same taps and replicate border") {
  RF_REQUIRE_CUDA();
  std::string why;
  if (!rf::bench::NppGaussian::available(&why)) {
    std::printf("[skipped] NPP unavailable: %s\n", why.c_str());
    return;
  }
  std::printf("%s\n", rf::bench::NppGaussian::version().c_str());
  const int sizes[][2] = {{3, 2}, {31, 33}, {64, 67}, {257, 131}};
  unsigned seed = 300;
  for (const auto& size : sizes) {
    const rf::Image in = random_image(size[0], size[1], 1, ++seed);
    for (double sigma : {1.0, 4.0, 16.0}) {
      const int radius = rf::bench::fir_radius(sigma, 3.0);
      const rf::Image got = rf::bench::npp_gaussian(in, sigma, radius);
      const double err =
          max_abs(got.pixels, fir_reference(in, sigma, radius, rf::Extension::Clamp).pixels);
      INFO(size[0], "x", size[1], " sigma ", sigma, ": ", err);
      CHECK(err <= 1e-5);
    }
  }
}

TEST_CASE("cuda FIR gaussian matches the double ground truth for every extension") {
  RF_REQUIRE_CUDA();
  for (int c : {1, 4})
    for (rf::Extension ext : rf::kAllExtensions) {
      const rf::Image in = random_image(77, 53, c, unsigned(c * 10 + int(ext)));
      rf::FilterSpec spec;
      spec.sigma = 3.0;
      spec.ext = ext;
      const rf::Image want = rf::ground_truth(spec, in);
      for (auto p : {rf::bench::FirPrecision::Float, rf::bench::FirPrecision::Double}) {
        const rf::Image got = rf::bench::fir_gaussian(in, spec.sigma, ext, p);
        const double err = max_relative(got.pixels, want.pixels);
        INFO("FIR ", rf::to_string(ext), " channels ", c, " double ",
             p == rf::bench::FirPrecision::Double, ": ", err);
        CHECK(err <= (p == rf::bench::FirPrecision::Double ? 1e-12 : 2e-6));
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
  rf::bench::CubSat cub(w, h);
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
  if (!rf::bench::CufftGaussian::available(&why)) {
    std::printf("[skipped] cuFFT unavailable: %s\n", why.c_str());
    return;
  }
  const int w = 128, h = 96;
  const rf::Image in = random_image(w, h, 1, 8);
  rf::FilterSpec spec;
  spec.sigma = 4.0;
  spec.ext = rf::Extension::Repeat;
  const rf::Image want = rf::ground_truth(spec, in);
  rf::cuda::DeviceFrame packed(w * h, 1, rf::PixelFormat::R32F, rf::MemorySpace::Device);
  packed.upload(in.pixels.data());
  rf::bench::CufftGaussian fft(w, h, spec.sigma);
  float* p = static_cast<float*>(packed.view().data);
  fft.run(p, p, nullptr);
  std::vector<float> got(std::size_t(w) * h);
  packed.download(got.data());
  // The sampled kernel's spectrum equals exp(-2 pi^2 sigma^2 f^2) up to aliasing near e^-79.
  CHECK(max_relative(got, want.pixels) <= 2e-5);
}
