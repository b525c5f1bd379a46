// N-D arrays on the CUDA backend (arrays.h): the one-axis passes (a transpose beside algorithm 4's
// pass, RT along either axis), the 2-D plans of adjacent axes, against the double reference.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "filters/core/device_frame.h"
#include "tests/filters/core/arrays.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/random_data.h"

TEST_CASE("cuda: arrays along every axis, extension, derivative and measure are exact") {
  RF_REQUIRE_CUDA();
  const rf::test::ArrayOutcome o = rf::test::check_arrays(
      rf::Backend::Cuda,
      {rf::Algorithm::Auto, rf::Algorithm::RT, rf::Algorithm::Alg4, rf::Algorithm::Alg5});
  MESSAGE("passed " << o.passed << ", refused " << o.refused << ", worst " << o.worst
                    << " of the allowed");
  CHECK(o.failed == 0);
  CHECK(o.passed > 250);
}

// The one-axis passes on frames small enough for compute-sanitizer: along x and along y alone,
// alg4 (a transpose beside the pass) and RT, float and 8-bit frames, against the CPU engine.
TEST_CASE("cuda array passes: one axis alone, alg4 and rt, float and 8-bit frames") {
  RF_REQUIRE_CUDA();
  const auto gpu = rf::make_cuda_engine();
  const auto cpu = rf::make_cpu_engine();
  for (rf::Axes axes : {rf::Axes::X, rf::Axes::Y})
    for (rf::Algorithm algo : {rf::Algorithm::Alg4, rf::Algorithm::RT, rf::Algorithm::Auto})
      for (rf::Extension ext : {rf::Extension::Mirror, rf::Extension::Constant})
        for (int channels : {1, 4}) {
          rf::FilterSpec spec;
          spec.sigma = 3.0;
          spec.axes = axes;
          spec.algo = algo;
          spec.ext = ext;
          spec.cval = 0.4;
          const rf::Image in = rf::test::random_image(45, 37, channels, 9, 0.05f, 1.0f);
          rf::FilterSpec on_cpu = spec;
          on_cpu.algo = rf::Algorithm::Auto;
          const rf::Image want = rf::filter_image(*cpu, on_cpu, in);
          const rf::Image got = rf::filter_image(*gpu, spec, in);
          double err = 0.0;
          for (std::size_t i = 0; i < want.pixels.size(); ++i)
            err = std::max(err, double(std::abs(got.pixels[i] - want.pixels[i])));
          CAPTURE(rf::describe(spec));
          CHECK(err < 2e-6);
          if (channels == 4) {
            // An 8-bit frame in device memory, filtered in place: within one step of the float.
            std::vector<std::uint8_t> bytes(in.pixels.size());
            for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = rf::to_unorm8(in.pixels[i]);
            rf::Image levels(in.width, in.height, 4);
            for (std::size_t i = 0; i < bytes.size(); ++i)
              levels.pixels[i] = rf::from_unorm8(bytes[i]);
            const rf::Image exact = rf::filter_image(*cpu, on_cpu, levels);
            rf::cuda::DeviceFrame frame(in.width, in.height, rf::PixelFormat::RGBA8,
                                        rf::MemorySpace::Device);
            frame.upload(bytes.data(), std::size_t(in.width) * 4);
            gpu->plan(spec, in.width, in.height, rf::PixelFormat::RGBA8);
            gpu->run(frame.view(), frame.view());
            std::vector<std::uint8_t> back(bytes.size());
            frame.download(back.data(), std::size_t(in.width) * 4);
            int worst = 0;
            for (std::size_t i = 0; i < back.size(); ++i)
              worst = std::max(worst, std::abs(int(back[i]) - int(rf::to_unorm8(exact.pixels[i]))));
            CHECK(worst <= 1);
          }
        }
}

// The gathered passes of a batch (device_frame.h: gather_axis, scatter_axis) on a small volume,
// small enough for compute-sanitizer, against the CPU's.
TEST_CASE("cuda array passes: a volume's axes gathered, against the CPU") {
  RF_REQUIRE_CUDA();
  const rf::test::Shape shape{3, 5, 7};
  for (int first = 0; first < 3; ++first) {
    rf::ArraySpec spec;
    spec.filter.cval = 0.3;
    for (int axis = first; axis < 3; ++axis)
      spec.passes.push_back({axis, 1.5 + axis, 0, rf::Extension::Constant});
    const std::vector<double> a = rf::test::random_array(shape, 40 + first);
    std::vector<float> gpu(a.begin(), a.end()), cpu(a.begin(), a.end());
    rf::ArrayFilter(spec, shape, rf::Backend::Cuda).run(gpu.data(), gpu.data());
    rf::ArrayFilter(spec, shape, rf::Backend::Cpu).run(cpu.data(), cpu.data());
    double err = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i)
      err = std::max(err, double(std::abs(gpu[i] - cpu[i])));
    CAPTURE(first);
    CHECK(err < 2e-6);
  }
}
