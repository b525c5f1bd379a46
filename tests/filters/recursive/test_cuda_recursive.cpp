// The CUDA recursive filters against the double-precision sequential reference: every order,
// extension and channel layout on odd sizes, outputs poisoned with NaN so an unwritten pixel fails.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/device_frame.h"
#include "filters/core/errors.h"
#include "filters/recursive/reference.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/filters/core/rgba8_frames.h"
#include "tests/random_data.h"

namespace {

using rf::Extension;
using rf::FilterKind;
using rf::FilterSpec;
using rf::Image;
using rf::MemorySpace;
using rf::PixelFormat;

// Columns then rows with ref::filter_line_padded, in double; only rows [0, h) step `row_step`
// of the result are filled (the others stay NaN), which keeps 4096^2 references affordable.
std::vector<double> reference(const FilterSpec& spec, const Image& in, int row_step) {
  const rf::Recursive f = rf::design(spec);
  const int w = in.width, h = in.height, c = in.channels;
  std::vector<double> cols(std::size_t(w) * h * c);
  // Lines are independent: at sigma 2000 each is padded by thousands of samples.
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (int ch = 0; ch < c; ++ch)
    for (int x = 0; x < w; ++x) {
      std::vector<double> line(static_cast<std::size_t>(h));
      for (int y = 0; y < h; ++y) line[std::size_t(y)] = in.at(x, y, ch);
      const std::vector<double> out = rf::ref::filter_line_padded(f, spec.ext, line);
      for (int y = 0; y < h; ++y) cols[(std::size_t(y) * w + x) * c + ch] = out[std::size_t(y)];
    }
  std::vector<double> result(cols.size(), std::nan(""));
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (int ch = 0; ch < c; ++ch)
    for (int y = 0; y < h; y += row_step) {
      std::vector<double> line(static_cast<std::size_t>(w));
      for (int x = 0; x < w; ++x) line[std::size_t(x)] = cols[(std::size_t(y) * w + x) * c + ch];
      const std::vector<double> out = rf::ref::filter_line_padded(f, spec.ext, line);
      for (int x = 0; x < w; ++x) result[(std::size_t(y) * w + x) * c + ch] = out[std::size_t(x)];
    }
  return result;
}

// Max |got - want| over the reference's filled samples divided by max |want|; an unwritten
// (NaN) output sample makes it infinite.
double relative_error(const std::vector<float>& got, const std::vector<double>& want) {
  double err = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) continue;
    const double d = std::fabs(double(got[i]) - want[i]);
    err = std::isnan(got[i]) ? INFINITY : std::max(err, d);
    scale = std::max(scale, std::fabs(want[i]));
  }
  return scale > 0.0 ? err / scale : err;
}

double tolerance(int order) {
  return order <= 3 ? 1e-5 : 1e-4;
}

// Runs the CUDA engine on device buffers (output poisoned first) and returns the output.
std::vector<float> run_cuda(const FilterSpec& spec, const Image& in, MemorySpace space) {
  const PixelFormat fmt = in.channels == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F;
  auto engine = rf::make_cuda_engine();
  engine->plan(spec, in.width, in.height, fmt);
  rf::cuda::DeviceFrame src(in.width, in.height, fmt, space);
  rf::cuda::DeviceFrame dst(in.width, in.height, fmt, space);
  src.upload(in.pixels.data());
  dst.poison();
  engine->run(src.view(), dst.view());
  std::vector<float> out(in.pixels.size());
  dst.download(out.data());
  return out;
}

std::string name(const FilterSpec& s, const Image& in) {
  return std::string(rf::to_string(s.kind)) + " order " + std::to_string(s.order) + " " +
         rf::to_string(s.ext) + " " + std::to_string(in.width) + "x" + std::to_string(in.height) +
         "x" + std::to_string(in.channels) + " " + rf::to_string(s.algo);
}

Image case_image(const FilterSpec& spec, int w, int h, int c) {
  return rf::test::random_image(
      w, h, c, unsigned(w * 131 + h * 7 + c + spec.order * 1009 + int(spec.ext) * 17), 0.05f, 1.0f);
}

// The CUDA engine against `want`, the reference of case_image(spec, w, h, c).
void check_against(const FilterSpec& spec, const Image& in, const std::vector<double>& want,
                   MemorySpace space = MemorySpace::Device) {
  const std::vector<float> got = run_cuda(spec, in, space);
  const double err = relative_error(got, want);
  INFO(name(spec, in), ": max relative error ", err);
  if (std::getenv("RF_PRINT_ERRORS")) MESSAGE(name(spec, in), ": max relative error ", err);
  CHECK(err <= tolerance(spec.order));
}

void check_case(FilterSpec spec, int w, int h, int c, int row_step = 1,
                MemorySpace space = MemorySpace::Device) {
  const Image in = case_image(spec, w, h, c);
  check_against(spec, in, reference(spec, in, row_step), space);
}

// A Gaussian of the default sigma for a block algorithm, order and extension.
FilterSpec block_spec(rf::Algorithm algo, int order, Extension ext) {
  FilterSpec spec;
  spec.order = order;
  spec.ext = ext;
  spec.algo = algo;
  return spec;
}

}  // namespace

// The block algorithms: auto (algorithm 5 for every design we ship), 4 and 6 named.
constexpr rf::Algorithm kBlockAlgorithms[] = {rf::Algorithm::Auto, rf::Algorithm::Alg4,
                                              rf::Algorithm::Alg6};

TEST_CASE("cuda overlapped gaussian: every order and extension on small odd sizes") {
  RF_REQUIRE_CUDA();
  const int sizes[][2] = {{1, 1}, {31, 33}, {257, 131}, {33, 2}, {70, 3}, {2, 97}};
  for (rf::Algorithm algo : kBlockAlgorithms)
    for (const auto& sz : sizes)
      for (int c : {1, 4})
        for (int order = 1; order <= 5; ++order)
          for (Extension ext : rf::kAllExtensions) {
            FilterSpec spec;
            spec.kind = FilterKind::Gaussian;
            spec.sigma = 4.0;
            spec.order = order;
            spec.ext = ext;
            spec.algo = algo;
            check_case(spec, sz[0], sz[1], c);
          }
}

TEST_CASE("cuda overlapped gaussian: 1920x1080, every order and extension") {
  RF_REQUIRE_CUDA();
  for (rf::Algorithm algo : {rf::Algorithm::Auto, rf::Algorithm::Alg4})
    for (int order = 1; order <= 5; ++order)
      for (Extension ext : rf::kAllExtensions) {
        FilterSpec spec;
        spec.order = order;
        spec.ext = ext;
        spec.algo = algo;
        check_case(spec, 1920, 1080, 1, 7);
        if (order == 3) check_case(spec, 1920, 1080, 4, 29);
      }
}

TEST_CASE("cuda overlapped gaussian: 4096x4096, sampled rows") {
  RF_REQUIRE_CUDA();
  for (rf::Algorithm algo : kBlockAlgorithms)
    for (int order : {1, 3, 5})
      for (Extension ext : {Extension::Zero, Extension::Mirror, Extension::Repeat})
        check_case(block_spec(algo, order, ext), 4096, 4096, 1, 257);
}

// Lines of 257 blocks: the scans split them into 16 runs of 17 blocks, longer than the chunk a
// warp holds in registers and than the blocks whose Q algorithm 5's row scan keeps at once, so the
// phases that load a run again, and the raw heads' fix-ups (mirror, reflect101), are exercised.
TEST_CASE("cuda fully overlapped: lines longer than a scan's chunks") {
  RF_REQUIRE_CUDA();
  const int sizes[][2] = {{8200, 40}, {40, 8200}};
  for (rf::Algorithm algo : {rf::Algorithm::Alg5, rf::Algorithm::Alg6})
    for (const auto& sz : sizes)
      for (int c : {1, 4})
        for (int order : {1, 3, 5})
          for (Extension ext : rf::kAllExtensions)
            check_case(block_spec(algo, order, ext), sz[0], sz[1], c);
}

// A batch of such lines runs the batch kernels, as a volume's x,y pass does: three frames of
// 8200x24 in one plan, each against its own reference.
TEST_CASE("cuda fully overlapped: a batch of lines longer than a scan's chunks") {
  RF_REQUIRE_CUDA();
  const int w = 8200, h = 24, frames = 3;
  for (rf::Algorithm algo : {rf::Algorithm::Alg5, rf::Algorithm::Alg6})
    for (int c : {1, 4})
      for (int order : {1, 3, 5})
        for (Extension ext : {Extension::Mirror, Extension::Reflect101, Extension::Zero}) {
          const FilterSpec spec = block_spec(algo, order, ext);
          const Image all = case_image(spec, w, h * frames, c);
          Image got = all;
          rf::FrameView view = got.view();
          view.height = h;
          view.frames = frames;
          auto engine = rf::make_cuda_engine();
          engine->plan_batch(spec, w, h, frames, view.format);
          engine->run(view, view);
          const std::size_t per_frame = std::size_t(w) * h * c;
          for (int k = 0; k < frames; ++k) {
            Image frame(w, h, c);
            std::copy(all.pixels.begin() + k * per_frame, all.pixels.begin() + (k + 1) * per_frame,
                      frame.pixels.begin());
            const std::vector<float> out(got.pixels.begin() + k * per_frame,
                                         got.pixels.begin() + (k + 1) * per_frame);
            const double err = relative_error(out, reference(spec, frame, 1));
            INFO(name(spec, frame), ", frame ", k, " of a batch: max relative error ", err);
            CHECK(err <= tolerance(order));
          }
        }
}

TEST_CASE("cuda overlapped: other filter kinds and sigmas") {
  RF_REQUIRE_CUDA();
  const FilterKind kinds[] = {FilterKind::BSpline3,    FilterKind::BSpline5, FilterKind::BSpline7,
                              FilterKind::Exponential, FilterKind::Yvrg,     FilterKind::Deriche};
  for (FilterKind kind : kinds)
    for (Extension ext : rf::kAllExtensions) {
      FilterSpec spec;
      spec.kind = kind;
      spec.order = kind == FilterKind::Deriche ? 4 : 3;
      spec.ext = ext;
      spec.pole = -0.7;
      check_case(spec, 97, 65, 1);
    }
  // Sigma 16 and 60 run the block recursions with a double window (1 / b0 > 32), 0.7 and 4
  // (above) with a float one.
  for (double sigma : {0.7, 16.0, 60.0})
    for (int c : {1, 4}) {
      FilterSpec spec;
      spec.sigma = sigma;
      spec.order = 3;
      spec.ext = Extension::Mirror;
      check_case(spec, 300, 211, c);
    }
}

TEST_CASE("cuda overlapped summed-area table") {
  RF_REQUIRE_CUDA();
  FilterSpec spec;
  spec.kind = FilterKind::Sat;
  spec.order = 1;
  spec.ext = Extension::Zero;
  for (rf::Algorithm algo : kBlockAlgorithms)
    for (const auto& sz :
         {std::pair{1, 1}, std::pair{31, 33}, std::pair{257, 131}, std::pair{1920, 1080}}) {
      spec.algo = algo;
      check_case(spec, sz.first, sz.second, 1);
      check_case(spec, sz.first, sz.second, 4);
    }
}

TEST_CASE("cuda rt baseline matches the reference") {
  RF_REQUIRE_CUDA();
  for (int order = 1; order <= 5; ++order)
    for (Extension ext : rf::kAllExtensions) {
      FilterSpec spec;
      spec.algo = rf::Algorithm::RT;
      spec.order = order;
      spec.ext = ext;
      check_case(spec, 67, 45, order % 2 ? 1 : 4);
    }
}

TEST_CASE("cuda engine: surfaces in and out") {
  RF_REQUIRE_CUDA();
  for (rf::Algorithm algo : kBlockAlgorithms)
    for (int c : {1, 4})
      for (Extension ext : {Extension::Clamp, Extension::Mirror}) {
        FilterSpec spec;
        spec.order = 3;
        spec.ext = ext;
        spec.algo = algo;
        check_case(spec, 133, 71, c, 1, MemorySpace::CudaSurface);
      }
}

TEST_CASE("cuda engine: host views and in-place frames") {
  RF_REQUIRE_CUDA();
  FilterSpec spec;
  spec.order = 4;
  spec.ext = Extension::Repeat;
  Image img = rf::test::random_image(101, 77, 4, 5, 0.05f, 1.0f);
  const std::vector<double> want = reference(spec, img, 1);
  auto engine = rf::make_cuda_engine();
  engine->plan(spec, img.width, img.height, PixelFormat::RGBA32F);
  engine->set_timing(true);
  engine->run(img.view(), img.view());
  CHECK(relative_error(img.pixels, want) <= tolerance(4));
  const auto t = engine->timings();
  // upload, algorithm 5's four stages (auto's choice), download; a filter takes time.
  const std::vector<std::string> stages = {"upload",      "perimeters", "column carries",
                                           "row carries", "output",     "download"};
  REQUIRE(t.size() == stages.size());
  double filter_ms = 0.0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    CHECK(t[i].stage == stages[i]);
    CHECK(std::isfinite(t[i].ms));
    if (i > 0 && i + 1 < t.size()) filter_ms += t[i].ms;
  }
  CHECK(filter_ms > 0.0);

  // In place on the device, run twice through the cached graph.
  Image img2 = rf::test::random_image(257, 131, 1, 9, 0.05f, 1.0f);
  const std::vector<double> want2 = reference(spec, img2, 1);
  engine->set_timing(false);
  engine->plan(spec, img2.width, img2.height, PixelFormat::R32F);
  rf::cuda::DeviceFrame frame(img2.width, img2.height, PixelFormat::R32F, MemorySpace::Device);
  for (int i = 0; i < 2; ++i) {
    frame.upload(img2.pixels.data());
    engine->run(frame.view(), frame.view());
    std::vector<float> out(img2.pixels.size());
    frame.download(out.data());
    CHECK(relative_error(out, want2) <= tolerance(4));
  }
}

TEST_CASE("cuda engine: RGBA8 in and out, float math inside") {
  RF_REQUIRE_CUDA();
  const rf::test::Rgba8Image in(211, 97, 3);
  // Sigma 4 (all orders) and 8 (order 3: 1 / b0 = 159, the float window's widest use on RGBA8).
  // Sigma 64 order 3: the fully overlapped algorithm keeps float carries at any sigma.
  const std::pair<double, int> cases[] = {{4.0, 1}, {4.0, 2}, {4.0, 3}, {4.0, 4},
                                          {4.0, 5}, {8.0, 3}, {64.0, 3}};
  for (rf::Algorithm algo : {rf::Algorithm::Auto, rf::Algorithm::Alg4})
    for (MemorySpace space : {MemorySpace::Device, MemorySpace::CudaSurface})
      for (const auto& [sigma, order] : cases)
        for (Extension ext : rf::kAllExtensions) {
          if (algo == rf::Algorithm::Alg4 && sigma > 8.0) continue;
          FilterSpec spec;
          spec.sigma = sigma;
          spec.order = order;
          spec.ext = ext;
          spec.algo = algo;
          const double worst = rf::test::worst_8bit_steps(rf::test::run_rgba8(spec, in, space),
                                                          reference(spec, in.as_float, 1));
          INFO("RGBA8 ", rf::to_string(algo), " sigma ", sigma, " order ", order, " ",
               std::string(rf::to_string(ext)), " worst difference in 8-bit steps: ", worst);
          if (std::getenv("RF_PRINT_ERRORS"))
            MESSAGE("RGBA8 sigma ", sigma, " order ", order, " ", std::string(rf::to_string(ext)),
                    " worst difference in 8-bit steps: ", worst);
          CHECK(worst <= 0.51);
        }
}

TEST_CASE("cuda engine refuses what it cannot do") {
  RF_REQUIRE_CUDA();
  auto engine = rf::make_cuda_engine();
  FilterSpec spec;
  spec.algo = rf::Algorithm::TwoWay;
  CHECK_THROWS_AS(engine->plan(spec, 16, 16, PixelFormat::R32F), rf::InvalidParameter);
  spec.algo = rf::Algorithm::Auto;
  CHECK_THROWS_AS(engine->plan(spec, 0, 16, PixelFormat::R32F), rf::InvalidParameter);
  engine->plan(spec, 16, 16, PixelFormat::R32F);
  Image wrong(8, 8, 1);
  CHECK_THROWS_AS(engine->run(wrong.view(), wrong.view()), rf::InvalidParameter);
}

TEST_CASE("cuda fully overlapped: every order and extension up to each order's sigma cap") {
  RF_REQUIRE_CUDA();
  // The caps of design.cpp: 2000 up to order 3, 1000 for order 4, 200 for order 5.
  const double sigmas[] = {1.0, 16.0, 64.0, 100.0, 200.0, 1000.0, 2000.0};
  for (int order = 1; order <= 5; ++order)
    for (double sigma : sigmas) {
      if ((order == 5 && sigma > 200.0) || (order == 4 && sigma > 1000.0)) continue;
      for (Extension ext : rf::kAllExtensions) {
        // Ignore starts from zero at both ends: near the edges the output is a transient of
        // size b0^2 that float residues cannot resolve relative to the image; it is checked at
        // the sigmas of the tests above.
        if (ext == Extension::Ignore && sigma > 4.0) continue;
        FilterSpec spec;
        spec.order = order;
        spec.sigma = sigma;
        spec.ext = ext;
        // One reference per image for both algorithms (the algorithm does not change it).
        for (const auto [w, h, c] : {std::array<int, 3>{173, 97, 1}, {61, 45, 4}}) {
          const Image in = case_image(spec, w, h, c);
          const std::vector<double> want = reference(spec, in, 1);
          for (rf::Algorithm algo : {rf::Algorithm::Auto, rf::Algorithm::Alg6}) {
            spec.algo = algo;
            check_against(spec, in, want);
          }
        }
      }
    }
}

TEST_CASE("cuda block algorithms agree with each other on one frame") {
  RF_REQUIRE_CUDA();
  const Image in = rf::test::random_image(1000, 700, 1, 77, 0.05f, 1.0f);
  for (int order : {1, 3}) {
    FilterSpec spec;
    spec.order = order;
    spec.ext = Extension::Mirror;
    std::vector<std::vector<float>> outs;
    for (rf::Algorithm algo :
         {rf::Algorithm::Alg4, rf::Algorithm::Alg5, rf::Algorithm::Alg6, rf::Algorithm::RT}) {
      spec.algo = algo;
      outs.push_back(run_cuda(spec, in, MemorySpace::Device));
    }
    for (std::size_t k = 1; k < outs.size(); ++k) {
      double worst = 0.0;
      for (std::size_t i = 0; i < outs[0].size(); ++i)
        worst = std::max(worst, double(std::fabs(outs[k][i] - outs[0][i])));
      INFO("order ", order, " algorithm ", k, " against alg4: ", worst);
      CHECK(worst <= 2e-5);
    }
  }
}

TEST_CASE("cuda fully overlapped: the summed-area table takes only the zero extension") {
  RF_REQUIRE_CUDA();
  auto engine = rf::make_cuda_engine();
  FilterSpec spec;
  spec.kind = FilterKind::Sat;
  spec.order = 1;
  spec.ext = Extension::Clamp;
  spec.algo = rf::Algorithm::Alg6;
  CHECK_THROWS_AS(engine->plan(spec, 64, 64, PixelFormat::R32F), rf::InvalidParameter);
}

// What auto runs (Engine::algorithm), as the timing panel, rfcli's summary line and the bench rows
// show it: smoothing_route's choices, one case each.
TEST_CASE("cuda engine: the algorithm auto runs, named") {
  RF_REQUIRE_CUDA();
  auto engine = rf::make_cuda_engine();
  struct Case {
    int order, width, height, frames;
    PixelFormat format;
    rf::Algorithm algo;
    rf::Axes axes;
    const char* derivative;
    const char* ran;
    rf::Extension ext = rf::Extension::Mirror;
    double sigma = 4.0;
  };
  using rf::Algorithm;
  using rf::Axes;
  using rf::Extension;
  const PixelFormat f32 = PixelFormat::R32F, rgba = PixelFormat::RGBA32F;
  for (const Case& c : {
           Case{3, 256, 256, 1, f32, Algorithm::Auto, Axes::Both, "", "lines"},
           Case{5, 1024, 1024, 1, f32, Algorithm::Auto, Axes::Both, "", "lines"},
           Case{3, 256, 256, 100, f32, Algorithm::Auto, Axes::Both, "", "lines"},
           Case{1, 256, 256, 1, f32, Algorithm::Auto, Axes::Both, "", "alg5"},
           Case{3, 256, 256, 1, rgba, Algorithm::Auto, Axes::Both, "", "alg5"},
           Case{3, 2048, 64, 1, f32, Algorithm::Auto, Axes::Both, "", "alg5"},
           Case{3, 600, 600, 100, f32, Algorithm::Auto, Axes::Both, "", "alg5"},
           Case{3, 256, 256, 1, f32, Algorithm::Auto, Axes::Both, "1,0", "alg5"},
           // Orders 4 and 5 where algorithm 4's blocks run in float (alg4_ahead).
           Case{5, 640, 480, 1, rgba, Algorithm::Auto, Axes::Both, "", "alg4", Extension::Zero},
           Case{5, 640, 480, 1, rgba, Algorithm::Auto, Axes::Both, "", "alg5", Extension::Zero,
                8.0},
           Case{5, 640, 480, 4, rgba, Algorithm::Auto, Axes::Both, "", "alg5", Extension::Zero},
           Case{5, 640, 480, 1, rgba, Algorithm::Auto, Axes::Both, "1,0", "alg5", Extension::Zero},
           Case{4, 640, 480, 1, rgba, Algorithm::Auto, Axes::Both, "", "alg5", Extension::Zero},
           Case{5, 640, 480, 1, rgba, Algorithm::Auto, Axes::Both, "", "alg5", Extension::Clamp},
           Case{4, 3840, 2160, 1, f32, Algorithm::Auto, Axes::Both, "", "alg4"},
           Case{4, 3840, 2160, 1, f32, Algorithm::Auto, Axes::Both, "", "alg5", Extension::Mirror,
                8.0},
           Case{4, 1920, 1080, 1, f32, Algorithm::Auto, Axes::Both, "", "alg5"},
           // Both axes through lines in shared memory only while the seeds read few samples.
           Case{4, 512, 512, 1, f32, Algorithm::Auto, Axes::Both, "", "alg5", Extension::Mirror,
                16.0},
           Case{4, 512, 512, 1, f32, Algorithm::Auto, Axes::Both, "", "lines", Extension::Zero,
                16.0},
           Case{1, 256, 256, 1, f32, Algorithm::Auto, Axes::Y, "", "lines"},
           Case{1, 256, 256, 1, rgba, Algorithm::Auto, Axes::Y, "", "alg4"},
           Case{3, 256, 256, 1, f32, Algorithm::Alg4, Axes::Both, "", "alg4"},
           Case{3, 256, 256, 1, f32, Algorithm::RT, Axes::Both, "", "rt"},
           Case{3, 256, 256, 1, f32, Algorithm::Alg6, Axes::Both, "", "alg6"},
       }) {
    FilterSpec spec;
    spec.order = c.order;
    spec.sigma = c.sigma;
    spec.ext = c.ext;
    spec.algo = c.algo;
    spec.axes = c.axes;
    if (*c.derivative) spec.derivative = *rf::parse_derivative(c.derivative);
    CAPTURE(rf::describe(spec));
    CAPTURE(c.width);
    CAPTURE(c.frames);
    engine->plan_batch(spec, c.width, c.height, c.frames, c.format);
    CHECK(engine->algorithm() == c.ran);
    const std::string by = c.ran == std::string("lines") ? "lines in shared memory" : c.ran;
    CHECK(rf::method_line(*engine) == "recursive order " + std::to_string(c.order) + " by " + by);
  }
  FilterSpec fir;
  fir.sigma = 2.0;
  fir.gaussian_method = rf::GaussianMethod::Fir;
  engine->plan(fir, 64, 64, PixelFormat::R32F);
  CHECK(engine->algorithm() == "fir");
  CHECK(rf::method_line(*engine) == engine->method());
  FilterSpec edge;
  edge.kind = rf::FilterKind::EdgeAware;
  edge.sigma = 5.0;
  edge.sigma_r = 0.3;
  engine->plan(edge, 64, 64, PixelFormat::RGBA32F);
  CHECK(engine->algorithm() == "exact");
}
