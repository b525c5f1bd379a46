// rfstudio itself: rendered offscreen through EGL (Mesa's surfaceless llvmpipe here) and in a
// GLFW window under Xvfb, with several parameter sets; the screenshots are read back and checked.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/gui/embedded.h"
#include "app/gui/image_codec.h"
#include "app/gui/view_math.h"
#include "app/io/image_io.h"
#include "filters/core/engine.h"
#include "filters/recursive/reference.h"
#include "filters/truth/truth.h"

using namespace rf::gui;

namespace {

constexpr int kWidth = 640, kHeight = 480;

std::string shot_path(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(RF_BINARY_DIR) / "gui-shots";
  std::filesystem::create_directories(dir);
  return (dir / (name + ".png")).string();
}

// Runs rfstudio; returns its exit status and leaves the screenshot at shot_path(name).
int run_studio(const std::string& name, const std::string& args, bool window = false) {
  const std::string png = shot_path(name);
  std::filesystem::remove(png);
  std::string cmd = std::string(RFSTUDIO_PATH) + " --width " + std::to_string(kWidth) +
                    " --height " + std::to_string(kHeight) + " --screenshot " + png + " " + args;
  if (window)
    cmd = "xvfb-run -a -s '-screen 0 1280x1024x24' " + cmd + " --frames 4";
  else
    cmd += " --offscreen --frames 2";
  cmd += " > " + png + ".log 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Rgba8Image shoot(const std::string& name, const std::string& args, bool window = false) {
  CAPTURE(args);
  REQUIRE(run_studio(name, args, window) == 0);
  return read_png(shot_path(name));
}

// Where a 512x512 image lands on the full canvas (--hide-ui): view_math's fit.
struct Box {
  int x0, y0, x1, y1;
};
Box image_box(int w = 512, int h = 512) {
  const ViewTransform t = fit({0, 0, float(w), float(h)}, {float(kWidth), float(kHeight)});
  const Vec2 a = t.to_canvas({0, 0}), b = t.to_canvas({float(w), float(h)});
  return {int(std::ceil(a.x)), int(std::ceil(a.y)), int(b.x), int(b.y)};
}

// Diff views keep a strip for their colour scale, so there the image is found in the picture:
// the first and last pixels along a row and a column that are not the grey background.
bool is_background(const Rgba8Image& img, int x, int y) {
  const std::uint8_t* p = &img.pixels[(std::size_t(y) * img.width + x) * 4];
  return std::abs(p[0] - p[1]) <= 3 && std::abs(p[1] - p[2]) <= 3 && p[0] >= 24 && p[0] <= 50;
}
Box find_image(const Rgba8Image& img) {
  const int row = img.height / 4;
  int x0 = 0, x1 = img.width - 1;
  while (x0 < img.width - 1 && is_background(img, x0, row)) ++x0;
  while (x1 > x0 && is_background(img, x1, row)) --x1;
  const int col = x0 + 4;
  int y0 = 0, y1 = img.height - 1;
  while (y0 < img.height - 1 && is_background(img, col, y0)) ++y0;
  while (y1 > y0 && is_background(img, col, y1)) --y1;
  return {x0, y0, x1 + 1, y1 + 1};
}

float luma(const Rgba8Image& img, int x, int y) {
  const std::uint8_t* p = &img.pixels[(std::size_t(y) * img.width + x) * 4];
  return 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2];
}

struct Moments {
  double mean = 0, stddev = 0;
};
// Luma statistics over a box, optionally only inside (or only outside) an inner box.
template <class Pred>
Moments moments(const Rgba8Image& img, Box b, Pred keep) {
  double s = 0, s2 = 0;
  std::size_t n = 0;
  for (int y = b.y0; y < b.y1; ++y)
    for (int x = b.x0; x < b.x1; ++x)
      if (keep(x, y)) {
        const double v = luma(img, x, y);
        s += v;
        s2 += v * v;
        ++n;
      }
  Moments m;
  if (n == 0) return m;
  m.mean = s / n;
  m.stddev = std::sqrt(std::max(0.0, s2 / n - m.mean * m.mean));
  return m;
}
auto all = [](int, int) { return true; };

double mean_abs_diff(const Rgba8Image& a, const Rgba8Image& b, Box box) {
  double s = 0;
  std::size_t n = 0;
  for (int y = box.y0; y < box.y1; ++y)
    for (int x = box.x0; x < box.x1; ++x, ++n) s += std::abs(luma(a, x, y) - luma(b, x, y));
  return n ? s / n : 0.0;
}

bool have_xvfb() {
  return std::system("command -v xvfb-run > /dev/null 2>&1") == 0;
}

}  // namespace

TEST_CASE("offscreen: the result view shows the filtered default image") {
  const Rgba8Image img = shoot("result", "--hide-ui --view result --sigma 2 --ext mirror");
  REQUIRE(img.width == kWidth);
  REQUIRE(img.height == kHeight);
  const Box b = image_box();
  const Moments inside = moments(img, b, all);
  CHECK(inside.stddev > 20.0);  // a picture, not a flat colour
  // Outside the image: the quiet checkerboard, dark grey.
  const Moments margin = moments(img, {0, 0, kWidth, 4}, all);
  CHECK(margin.mean > 30.0);
  CHECK(margin.mean < 60.0);
}

TEST_CASE("offscreen: different extensions change the picture near the edges only") {
  const std::string common = "--hide-ui --view result --sigma 16 --order 3 --pattern steps ";
  const Rgba8Image zero = shoot("ext-zero", common + "--ext zero");
  const Rgba8Image mirror = shoot("ext-mirror", common + "--ext mirror");
  const Rgba8Image repeat = shoot("ext-repeat", common + "--ext repeat");
  const Box b = image_box();
  const int band = int(0.12 * (b.x1 - b.x0));
  const Box inner{b.x0 + 2 * band, b.y0 + 2 * band, b.x1 - 2 * band, b.y1 - 2 * band};
  const Box top{b.x0, b.y0, b.x1, b.y0 + band / 2};
  CHECK(mean_abs_diff(zero, mirror, top) > 20.0);  // zero padding darkens the edge
  CHECK(mean_abs_diff(repeat, mirror, top) > 5.0);
  CHECK(mean_abs_diff(zero, mirror, inner) < 1.0);  // the interior does not care
}

TEST_CASE("offscreen: the diff view lights up the border band when boundaries are ignored") {
  const Rgba8Image img =
      shoot("diff-ignore",
            "--hide-ui --view diff --sigma 6 --ext ignore --truth padded --truth-ext mirror");
  const Box b = find_image(img);
  CAPTURE(b.x0);
  CAPTURE(b.x1);
  CHECK(b.x1 - b.x0 == doctest::Approx(b.y1 - b.y0).epsilon(0.01));  // the square image
  const float zoom = float(b.x1 - b.x0) / 512.0f;
  const int band = int(2 * 6 * zoom);  // 2 sigma in screen pixels
  const Box inner{b.x0 + 5 * band, b.y0 + 5 * band, b.x1 - 5 * band, b.y1 - 5 * band};
  const Moments edge = moments(img, b, [&](int x, int y) {
    return x < b.x0 + band || y < b.y0 + band || x >= b.x1 - band || y >= b.y1 - band;
  });
  const Moments interior = moments(img, inner, all);
  CAPTURE(edge.mean);
  CAPTURE(interior.mean);
  CHECK(edge.mean > 120.0);
  CHECK(interior.mean < 40.0);
  // With the exact mirror extension the band goes dark as well.
  const Rgba8Image exact =
      shoot("diff-mirror", "--hide-ui --view diff --sigma 6 --ext mirror --truth padded");
  const Moments exact_edge = moments(exact, b, [&](int x, int y) {
    return x < b.x0 + band || y < b.y0 + band || x >= b.x1 - band || y >= b.y1 - band;
  });
  CHECK(exact_edge.mean < 60.0);
}

// The mean red minus blue over a box: a derivative's diverging scale is red above zero.
double red_over_blue(const Rgba8Image& img, Box b) {
  double s = 0;
  std::size_t n = 0;
  for (int y = b.y0; y < b.y1; ++y)
    for (int x = b.x0; x < b.x1; ++x, ++n) {
      const std::uint8_t* p = &img.pixels[(std::size_t(y) * img.width + x) * 4];
      s += double(p[0]) - double(p[2]);
    }
  return n ? s / n : 0.0;
}

TEST_CASE("offscreen: a derivative is drawn signed, near-white where it is zero") {
  // The astronaut: smooth areas (near zero: near-white), d/dx red where the image brightens to
  // the right and blue where it darkens; the gradient magnitude on inferno, dark where smooth.
  const std::string common = "--hide-ui --view result --sigma 4 ";
  const Rgba8Image dx = shoot("derivative-dx", common + "--derivative 1,0");
  const Rgba8Image grad = shoot("derivative-gradient", common + "--derivative gradient");
  const Box b = image_box();
  const Moments signed_view = moments(dx, b, all);
  const Moments magnitude = moments(grad, b, all);
  CAPTURE(signed_view.mean);
  CAPTURE(magnitude.mean);
  CHECK(signed_view.mean > 180.0);  // mostly flat: near-white
  CHECK(magnitude.mean < 80.0);     // mostly flat: dark
  double reddest = -255, bluest = 255;
  const int step = (b.x1 - b.x0) / 16;
  for (int y = b.y0; y + step <= b.y1; y += step)
    for (int x = b.x0; x + step <= b.x1; x += step) {
      const double rb = red_over_blue(dx, {x, y, x + step, y + step});
      reddest = std::max(reddest, rb);
      bluest = std::min(bluest, rb);
    }
  CHECK(reddest > 15.0);
  CHECK(bluest < -15.0);
}

TEST_CASE("offscreen: tiles, split, side by side, profile and impulse views render") {
  const Rgba8Image mirror = shoot("tiles-mirror", "--hide-ui --view tiles --ext mirror");
  const Rgba8Image repeat = shoot("tiles-repeat", "--hide-ui --view tiles --ext repeat");
  const Rgba8Image zero = shoot("tiles-zero", "--hide-ui --view tiles --ext zero");
  // The centre tile is the image in all three; the tiles around it differ.
  const Box whole{0, 0, kWidth, kHeight};
  CHECK(mean_abs_diff(mirror, repeat, whole) > 10.0);
  CHECK(moments(zero, whole, all).mean < moments(mirror, whole, all).mean - 20.0);
  // The shader continues the image as the filter does: reflect101 is not black beyond it, the
  // constant is its value there (white here), brighter than any reflection of the image.
  const Rgba8Image reflect101 =
      shoot("tiles-reflect101", "--hide-ui --view tiles --ext reflect101");
  const Rgba8Image white =
      shoot("tiles-constant", "--hide-ui --view tiles --ext constant --cval 1");
  CHECK(moments(reflect101, whole, all).mean > moments(zero, whole, all).mean + 20.0);
  CHECK(moments(white, whole, all).mean > moments(mirror, whole, all).mean + 20.0);
  for (const char* view : {"split", "side", "profile", "impulse", "original"}) {
    CAPTURE(view);
    const Rgba8Image img = shoot(std::string("view-") + view, std::string("--view ") + view);
    CHECK(moments(img, whole, all).stddev > 20.0);
  }
}

TEST_CASE("offscreen: the full interface, and bad inputs that must not stop it") {
  const Rgba8Image ui = shoot("ui", "--view split --sigma 5");
  // Panels on both sides: bright text somewhere in the left and right columns.
  const Moments left = moments(ui, {0, 0, kWidth / 5, kHeight}, all);
  const Moments right = moments(ui, {kWidth * 4 / 5, 0, kWidth, kHeight}, all);
  CHECK(left.stddev > 15.0);
  CHECK(right.stddev > 15.0);
  // Unreadable or truncated files: a message, the built-in image instead, a normal exit.
  const std::string truncated = shot_path("truncated-input");
  {
    const std::string_view png = embedded("assets/astronaut.png");
    std::ofstream(truncated, std::ios::binary).write(png.data(), 4000);  // header, then nothing
  }
  for (const std::string& path : {std::string("/nonexistent/picture.png"), truncated}) {
    CAPTURE(path);
    const Rgba8Image img = shoot("bad-input", "--hide-ui --image " + path);
    CHECK(moments(img, image_box(), all).stddev > 20.0);
  }
  // A parameter the filter refuses (an unstable pole) leaves the application running.
  CHECK(run_studio("bad-pole", "--filter exp --pole 1.5") == 0);
  CHECK(run_studio("bad-option", "--ext sideways") == 2);
}

TEST_CASE("window: rfstudio in a GLFW window under Xvfb") {
  if (!have_xvfb()) {
    std::printf("[skipped] xvfb-run is not installed\n");
    return;
  }
  const Rgba8Image result = shoot("window-result", "--hide-ui --view result --sigma 3", true);
  REQUIRE(result.width == kWidth);
  REQUIRE(result.height == kHeight);
  CHECK(moments(result, image_box(), all).stddev > 20.0);
  const Rgba8Image diff =
      shoot("window-diff", "--hide-ui --view diff --sigma 6 --ext ignore --truth padded", true);
  const Box b = find_image(diff);
  const Moments corner = moments(diff, {b.x0, b.y0, b.x0 + 8, b.y1}, all);
  const Moments centre = moments(diff,
                                 {(b.x0 + b.x1) / 2 - 20, (b.y0 + b.y1) / 2 - 20,
                                  (b.x0 + b.x1) / 2 + 20, (b.y0 + b.y1) / 2 + 20},
                                 all);
  CHECK(corner.mean > centre.mean + 60.0);
  const Rgba8Image ui = shoot("window-ui", "--view tiles --ext mirror", true);
  CHECK(moments(ui, {0, 0, kWidth, kHeight}, all).stddev > 20.0);
}

TEST_CASE("offscreen: export writes the exact result, a JSON sidecar and the view") {
  const std::string stem = std::string(RF_BINARY_DIR) + "/gui-shots/export";
  for (const char* suffix : {"-result.png", "-result.pfm", ".json", "-view.png"})
    std::filesystem::remove(stem + suffix);
  REQUIRE(run_studio("export-shot",
                     "--sigma 3.5 --order 4 --ext repeat --view diff --export " + stem) == 0);
  for (const char* suffix : {"-result.png", "-result.pfm", ".json", "-view.png"}) {
    CAPTURE(suffix);
    CHECK(std::filesystem::exists(stem + suffix));
  }
  std::ifstream f(stem + ".json");
  const nlohmann::json j = nlohmann::json::parse(f);
  CHECK(j.at("preset").at("filter").at("ext") == "repeat");
  CHECK(j.at("preset").at("filter").at("order") == 4);
  CHECK(j.at("timing").at("filter_ms").get<double>() > 0.0);
  CHECK(j.at("width") == 512);

  // The PFM holds the float result: the CPU engine on the built-in image, bit for bit.
  const rf::Image pfm = rf::io::read_image(stem + "-result.pfm");
  const Rgba8Image src = decode_image(embedded("assets/astronaut.png"), "astronaut.png");
  rf::Image in(src.width, src.height, 4);
  for (std::size_t i = 0; i < in.pixels.size(); ++i) in.pixels[i] = src.pixels[i] / 255.0f;
  rf::FilterSpec spec;
  spec.sigma = 3.5;
  spec.order = 4;
  spec.ext = rf::Extension::Repeat;
  const rf::Image expected = rf::filter_image(spec, in, rf::Backend::Cpu);
  REQUIRE(pfm.width == 512);
  REQUIRE(pfm.channels == 3);
  double max_err = 0;
  for (int y = 0; y < 512; ++y)
    for (int x = 0; x < 512; ++x)
      for (int c = 0; c < 3; ++c)
        max_err = std::max(max_err, double(std::abs(pfm.at(x, y, c) - expected.at(x, y, c))));
  CHECK(max_err < 1e-6);

  // The sidecar's error statistics are those of this result against the diff view's truth, the
  // FIR Gaussian in double with the same extension: largest differences within the border band
  // and inside it. The recursive filter only approximates that Gaussian, so neither is zero.
  const nlohmann::json& truth = j.at("truth");
  CHECK(truth.at("label").get<std::string>().rfind("FIR Gaussian in double (6 sigma), repeat", 0) ==
        0);
  const int band = truth.at("band_px").get<int>();
  CHECK(band == 11);  // ceil(3 sigma)
  const rf::Image fir = rf::ground_truth(spec, in);
  double border = 0, interior = 0;
  for (int y = 0; y < 512; ++y)
    for (int x = 0; x < 512; ++x) {
      const bool in_band = x < band || y < band || x >= 512 - band || y >= 512 - band;
      for (int c = 0; c < 3; ++c) {
        double& worst = in_band ? border : interior;
        worst = std::max(worst, std::abs(double(pfm.at(x, y, c)) - double(fir.at(x, y, c))));
      }
    }
  CAPTURE(border);
  CAPTURE(interior);
  CHECK(interior > 1e-5);
  CHECK(border > 1e-5);
  CHECK(border < 2.0 * interior);  // repeat is an exact extension: no artifact in the band
  CHECK(std::abs(truth.at("border").at("max_abs").get<double>() - border) < 2e-6);
  CHECK(std::abs(truth.at("interior").at("max_abs").get<double>() - interior) < 2e-6);
  const std::size_t inner = std::size_t(512 - 2 * band) * std::size_t(512 - 2 * band);
  CHECK(truth.at("border").at("samples").get<std::size_t>() == 3 * (512 * 512 - inner));
  CHECK(truth.at("interior").at("samples").get<std::size_t>() == 3 * inner);
}
