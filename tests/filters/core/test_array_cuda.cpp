// N-D arrays on the CUDA backend (arrays.h): the one-axis passes (a transpose beside algorithm 4's
// pass, RT along either axis, in the modal form beyond the direct form's limit), the 2-D plans of
// adjacent axes, against the double reference.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/device_frame.h"
#include "filters/core/filter_table.h"
#include "filters/recursive/reference.h"
#include "tests/filters/core/arrays.h"
#include "tests/filters/core/batch_frames.h"
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

// The columns of a batch on a small volume, small enough for compute-sanitizer, against the CPU's:
// one batch under auto (lines in shared memory take it whole), gathered into one frame and
// scattered back under RT (device_frame.h: gather_axis, scatter_axis).
TEST_CASE("cuda array passes: a volume's axes batched or gathered, against the CPU") {
  RF_REQUIRE_CUDA();
  const rf::test::Shape shape{3, 5, 7};
  for (int first = 0; first < 6; ++first) {
    rf::ArraySpec spec;
    spec.filter.cval = 0.3;
    spec.filter.algo = first < 3 ? rf::Algorithm::Auto : rf::Algorithm::RT;
    for (int axis = first % 3; axis < 3; ++axis)
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

namespace {

// Every line along x (rows) or y (columns) of `in` filtered by f with ref::filter_line_padded, in
// double; the other axis left alone.
std::vector<double> one_axis_reference(const rf::Recursive& f, rf::Extension ext,
                                       const rf::Image& in, double cval, bool along_x) {
  const int w = in.width, h = in.height, c = in.channels;
  std::vector<double> out(in.pixels.size());
  const int lines = along_x ? h : w, n = along_x ? w : h;
  for (int line = 0; line < lines; ++line)
    for (int ch = 0; ch < c; ++ch) {
      auto at = [&](int i) {
        return (std::size_t(along_x ? line : i) * w + (along_x ? i : line)) * c + ch;
      };
      std::vector<double> x(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) x[std::size_t(i)] = in.pixels[at(i)];
      const std::vector<double> y = rf::ref::filter_line_padded(f, ext, x, cval);
      for (int i = 0; i < n; ++i) out[at(i)] = y[std::size_t(i)];
    }
  return out;
}

// The double reference of each of the `frames` one-channel frames of w x h that `all` holds one
// after another, reference(frame) each, one after another.
template <class Reference>
std::vector<double> per_frame_reference(const rf::Image& all, int w, int h, int frames,
                                        Reference reference) {
  std::vector<double> out;
  for (int k = 0; k < frames; ++k) {
    rf::Image frame(w, h, 1);
    std::copy_n(all.pixels.begin() + std::size_t(k) * w * h, std::size_t(w) * h,
                frame.pixels.begin());
    const std::vector<double> part = reference(frame);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

// max |got - want| over the scale of the signal, the larger of max |want| and max |in|.
double relative_error(const rf::Image& got, const std::vector<double>& want, const rf::Image& in) {
  double peak = 0.0, err = 0.0;
  for (double v : want) peak = std::max(peak, std::abs(v));
  for (float v : in.pixels) peak = std::max(peak, double(std::abs(v)));
  for (std::size_t i = 0; i < want.size(); ++i)
    err = std::max(err, std::abs(double(got.pixels[i]) - want[i]));
  return err / peak;
}

}  // namespace

// Past the direct form's window limit (order 5 from sigma ~35, order 4 from ~140) algorithm 4
// refuses, and RT runs its lines in the modal form: along one axis, where alg5 and alg6 cannot
// go, it is what auto runs. Against the double reference, every extension, one and four channels.
TEST_CASE("cuda: one axis of a wide order-4/5 Gaussian, rt in the modal form, exact") {
  RF_REQUIRE_CUDA();
  const auto gpu = rf::make_cuda_engine();
  int checked = 0;
  double worst = 0.0;
  for (auto [order, sigma] : {std::pair{5, 64.0}, {5, 200.0}, {4, 1000.0}})
    for (rf::Axes axes : {rf::Axes::X, rf::Axes::Y})
      for (rf::Extension ext : rf::kAllExtensions)
        for (auto [w, h, channels] : {std::tuple{29, 23, 1}, {7, 5, 4}, {1, 33, 1}, {33, 1, 1}}) {
          rf::FilterSpec spec;
          spec.order = order;
          spec.sigma = sigma;
          spec.axes = axes;
          spec.ext = ext;
          spec.cval = ext == rf::Extension::Constant ? -0.6 : 0.0;
          const rf::Image in = rf::test::random_image(w, h, channels, 60 + checked, 0.05f, 1.0f);
          const std::vector<double> want =
              one_axis_reference(rf::design(spec), ext, in, spec.cval, axes == rf::Axes::X);
          for (rf::Algorithm algo : {rf::Algorithm::RT, rf::Algorithm::Auto}) {
            spec.algo = algo;
            const double err = relative_error(rf::filter_image(*gpu, spec, in), want, in);
            worst = std::max(worst, err);
            CAPTURE(rf::describe(spec));
            CAPTURE(w);
            CAPTURE(h);
            CHECK(err < 1e-4);
            ++checked;
          }
          spec.algo = rf::Algorithm::Alg4;
          try {
            rf::filter_image(*gpu, spec, in);
            FAIL("alg4 took " << rf::describe(spec));
          } catch (const rf::InvalidParameter& e) {
            CHECK(std::string(e.what()).find("rt holds it") != std::string::npos);
          }
        }
  MESSAGE(checked << " cases, worst " << worst << " relative");
}

// Lines in shared memory (direct_form_cuda.cu), auto's pass along one axis of one-channel frames
// whose lines hold at most kSharedLineMax samples: along x and along y, every order, extension
// and sigma up to the cap (past the direct form's limit for lines of their length auto runs RT),
// lines of one sample, of one block, of a partial last block and of the most samples it takes,
// beside RT and alg4 on the same lines, a batch of frames down the columns, and both axes of
// batches of small frames in CTAs of 8 lines and of 32, against the double reference.
TEST_CASE("cuda: lines in shared memory, one axis or both, every order and extension, exact") {
  RF_REQUIRE_CUDA();
  const auto gpu = rf::make_cuda_engine();
  int checked = 0, refused = 0;
  double worst = 0.0;
  for (int order = 1; order <= 5; ++order)
    for (double sigma :
         {1.5, 16.0, rf::info(rf::FilterKind::Gaussian).order_info(order)->max_sigma})
      for (rf::Extension ext : rf::kAllExtensions)
        for (auto [w, h, axes] : {std::tuple{33, 1024, rf::Axes::Y},
                                  {45, 33, rf::Axes::Y},
                                  {40, 1, rf::Axes::Y},
                                  {33, 32, rf::Axes::Y},
                                  {1024, 5, rf::Axes::X},
                                  {33, 45, rf::Axes::X},
                                  {1, 9, rf::Axes::X},
                                  {509, 3, rf::Axes::X}}) {
          rf::FilterSpec spec;
          spec.order = order;
          spec.sigma = sigma;
          spec.axes = axes;
          spec.ext = ext;
          spec.cval = ext == rf::Extension::Constant ? 0.3 : 0.0;
          const rf::Image in = rf::test::random_image(w, h, 1, 900 + checked, 0.05f, 1.0f);
          const std::vector<double> want =
              one_axis_reference(rf::design(spec), ext, in, spec.cval, axes == rf::Axes::X);
          // Auto and RT hold every filter; alg4 holds it or refuses it in one line (both on the
          // longer lines, where the direct form's limit is shorter).
          for (rf::Algorithm algo : {rf::Algorithm::Auto, rf::Algorithm::RT, rf::Algorithm::Alg4}) {
            if (algo != rf::Algorithm::Auto && std::max(w, h) < 509) continue;
            spec.algo = algo;
            CAPTURE(rf::describe(spec));
            CAPTURE(w);
            CAPTURE(h);
            rf::Image out;
            try {
              out = rf::filter_image(*gpu, spec, in);
            } catch (const rf::InvalidParameter& e) {
              CHECK(algo == rf::Algorithm::Alg4);
              CHECK(std::string(e.what()).find("rt holds it") != std::string::npos);
              ++refused;
              continue;
            }
            const double err = relative_error(out, want, in);
            if (algo == rf::Algorithm::Auto) worst = std::max(worst, err);
            CHECK(err < (order <= 3 ? 1e-5 : 1e-4));
            ++checked;
          }
        }
  MESSAGE(checked << " cases, alg4 refused " << refused << ", auto's worst " << worst
                  << " relative");

  // A batch of three frames down the columns: each frame's columns alone.
  const int w = 45, h = 37, frames = 3;
  for (rf::Extension ext : rf::kAllExtensions) {
    rf::FilterSpec spec;
    spec.order = 3;
    spec.sigma = 5.0;
    spec.axes = rf::Axes::Y;
    spec.ext = ext;
    spec.cval = 0.7;
    rf::Image all = rf::test::random_image(w, h * frames, 1, 77, 0.05f, 1.0f);
    const std::vector<double> want =
        per_frame_reference(all, w, h, frames, [&](const rf::Image& frame) {
          return one_axis_reference(rf::design(spec), ext, frame, spec.cval, false);
        });
    const rf::FrameView v = rf::test::batch_view(all, frames);
    gpu->plan_batch(spec, w, h, frames, rf::PixelFormat::R32F);
    CHECK(gpu->batches_whole());
    const rf::Image in = all;
    gpu->run(v, v);
    CAPTURE(rf::describe(spec));
    CHECK(relative_error(all, want, in) < 1e-5);
  }

  // Both axes of a batch of 64 small frames (a volume's pages) at orders 3 to 5: auto runs a
  // launch per axis (its stages "columns" and "rows", not algorithm 5's) while the seeds read few
  // samples, algorithm 5 past that (its stage "perimeters"), each frame against the
  // 2-D double reference. Those frames make CTAs of 8 lines, as a single frame does; 256 frames of
  // 37 x 29 make enough lines for CTAs of 32 (on a device of fewer than 232 SMs), with a partial
  // tile at the end of each frame's columns.
  gpu->set_timing(true);
  for (auto [bw, bh, batch] : {std::tuple{19, 13, 64}, {37, 29, 256}})
    for (int order = 3; order <= 5; ++order)
      for (double sigma : {2.0, 12.0})
        for (rf::Extension ext : rf::kAllExtensions) {
          rf::FilterSpec spec;
          spec.order = order;
          spec.sigma = sigma;
          spec.ext = ext;
          spec.cval = 0.4;
          rf::Image all = rf::test::random_image(bw, bh * batch, 1, 300 + order, 0.05f, 1.0f);
          const std::vector<double> want =
              per_frame_reference(all, bw, bh, batch, [&](const rf::Image& frame) {
                return rf::ref::filter_image_padded(rf::design_axes(spec), ext, frame, spec.cval);
              });
          const rf::FrameView v = rf::test::batch_view(all, batch);
          gpu->plan_batch(spec, bw, bh, batch, rf::PixelFormat::R32F);
          const rf::Image in = all;
          gpu->run(v, v);
          std::vector<std::string> stages;
          for (const rf::StageTime& t : gpu->timings()) stages.push_back(t.stage);
          CAPTURE(rf::describe(spec));
          CAPTURE(batch);
          // At sigma 12 the seeds of clamp and repeat, and at orders 3 and 4 of mirror and
          // reflect101, read more samples than lines in shared memory take (smoothing_route):
          // alg5 runs the batch.
          const bool symmetric = ext == rf::Extension::Mirror || ext == rf::Extension::Reflect101;
          const bool ends = ext == rf::Extension::Clamp || ext == rf::Extension::Repeat;
          const bool lines = sigma < 12.0 || !(ends || (symmetric && order < 5));
          CHECK((std::find(stages.begin(), stages.end(), "rows") != stages.end()) == lines);
          CHECK((std::find(stages.begin(), stages.end(), "perimeters") == stages.end()) == lines);
          CHECK(relative_error(all, want, in) < (order <= 3 ? 1e-5 : 1e-4));
        }
  gpu->set_timing(false);
}

// RT down the columns of a float frame whose width is a multiple of four runs four columns a
// thread, as the channels of pixels a quarter as wide (direct_form_cuda.cu): the columns alone and
// both axes, every order, extension and sigma up to the cap, in the direct and the modal form,
// beside a width that is not, against the double reference.
TEST_CASE("cuda: rt down the columns, four columns a thread, every order and extension, exact") {
  RF_REQUIRE_CUDA();
  const auto gpu = rf::make_cuda_engine();
  int checked = 0;
  double worst = 0.0;
  for (int order = 1; order <= 5; ++order)
    for (double sigma :
         {1.5, 16.0, rf::info(rf::FilterKind::Gaussian).order_info(order)->max_sigma})
      for (rf::Extension ext : rf::kAllExtensions)
        for (auto [w, h, axes] : {std::tuple{48, 37, rf::Axes::Y},
                                  {4, 29, rf::Axes::Y},
                                  {8, 1, rf::Axes::Y},
                                  {47, 37, rf::Axes::Y},
                                  {28, 19, rf::Axes::Both}}) {
          rf::FilterSpec spec;
          spec.order = order;
          spec.sigma = sigma;
          spec.axes = axes;
          spec.algo = rf::Algorithm::RT;
          spec.ext = ext;
          spec.cval = ext == rf::Extension::Constant ? 0.3 : 0.0;
          const rf::Image in = rf::test::random_image(w, h, 1, 500 + checked, 0.05f, 1.0f);
          const std::vector<double> want =
              axes == rf::Axes::Y
                  ? one_axis_reference(rf::design(spec), ext, in, spec.cval, false)
                  : rf::ref::filter_image_padded(rf::design_axes(spec), ext, in, spec.cval);
          const double err = relative_error(rf::filter_image(*gpu, spec, in), want, in);
          worst = std::max(worst, err);
          CAPTURE(rf::describe(spec));
          CAPTURE(w);
          CAPTURE(h);
          CHECK(err < (order <= 3 ? 1e-5 : 1e-4));
          ++checked;
        }
  MESSAGE(checked << " cases, worst " << worst << " relative");
}

// A volume's pages at sigma 200, order 5: the pass along its first axis on CUDA (RT in the modal
// form) against the CPU's, every extension.
TEST_CASE("cuda array passes: a wide order-5 Gaussian through a volume's pages") {
  RF_REQUIRE_CUDA();
  const rf::test::Shape shape{41, 6, 9};
  for (rf::Extension ext : rf::kAllExtensions) {
    rf::ArraySpec spec;
    spec.filter.order = 5;
    spec.filter.cval = 0.3;
    spec.passes.push_back({0, 200.0, 0, ext});
    const std::vector<double> a = rf::test::random_array(shape, 70);
    std::vector<float> gpu(a.begin(), a.end()), cpu(a.begin(), a.end());
    rf::ArrayFilter(spec, shape, rf::Backend::Cuda).run(gpu.data(), gpu.data());
    rf::ArrayFilter(spec, shape, rf::Backend::Cpu).run(cpu.data(), cpu.data());
    double err = 0.0, peak = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      err = std::max(err, double(std::abs(gpu[i] - cpu[i])));
      peak = std::max(peak, double(std::abs(cpu[i])));
    }
    CAPTURE(rf::to_string(ext));
    CHECK(err < 1e-4 * peak);
  }
}
