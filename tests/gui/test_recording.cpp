// rfstudio --record, run as a person would run it: the video holds one frame per source frame, at
// source resolution, each the filter of that source frame (decoded with ffmpeg and compared with
// the CPU engine's result on the same pattern frame). And what goes wrong says so while the
// application runs on.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "app/gui/image_codec.h"
#include "app/sources/pattern.h"
#include "app/sources/yuv.h"
#include "filters/core/engine.h"
#include "recording_util.h"

using namespace rf;
using namespace rf::gui;
using rf::gui::test::TempDir;

namespace {

struct Run {
  int status = -1;
  std::string log;
};

// rfstudio offscreen with `args`; its output is kept in `dir`.
Run studio(const TempDir& dir, const std::string& args, const std::string& env = "") {
  const std::string log = dir.file("rfstudio.log");
  const std::string cmd = "cd " + dir.path() + " && " + env + " " + RFSTUDIO_PATH +
                          " --offscreen " + args + " > " + log + " 2>&1";
  const int status = std::system(cmd.c_str());
  Run r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(log);
  std::stringstream s;
  s << in.rdbuf();
  r.log = s.str();
  return r;
}

// The filtered pattern frame k as rfstudio records it: the frame as its source delivers it
// (converted to RGBA8 the way the CPU path converts it), filtered by the CPU engine on [0, 1],
// quantised to 8 bits.
std::vector<std::uint8_t> expected_frame(const FilterSpec& spec, int w, int h, int k,
                                         app::Encoding encoding) {
  app::Frame f = app::render_pattern("moving-bar", w, h, k, encoding), rgba;
  app::to_rgba(f, rgba);
  Image in(w, h, 4);
  for (std::size_t i = 0; i < in.pixels.size(); ++i) in.pixels[i] = rgba.bytes[i] / 255.0f;
  const Image out = filter_image(spec, in, Backend::Cpu);
  std::vector<std::uint8_t> bytes(out.pixels.size());
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = rf::to_unorm8(out.pixels[i]);
  return bytes;
}

double psnr(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  double se = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); i += 4)
    for (int c = 0; c < 3; ++c, ++n) se += std::pow(double(a[i + c]) - b[i + c], 2);
  const double mse = se / double(n);
  return mse == 0 ? 99.0 : 10.0 * std::log10(255.0 * 255.0 / mse);
}

int rgb_differences(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  int wrong = 0;
  for (std::size_t i = 0; i < a.size(); i += 4)
    for (int c = 0; c < 3; ++c) wrong += a[i + c] != b[i + c];
  return wrong;
}

}  // namespace

TEST_CASE("rfstudio --record: 60 frames of 320x240 H.264, each the filtered source frame") {
  if (!test::have_ffmpeg()) {
    MESSAGE("[skipped] ffmpeg and ffprobe are not installed");
    return;
  }
  TempDir dir;
  // The command, as is.
  const Run run = studio(dir,
                         "--frames 60 --pattern moving-bar --pattern-size 320x240 --sigma 16 "
                         "--ext mirror --record out.mp4");
  CAPTURE(run.log);
  REQUIRE(run.status == 0);
  CHECK(run.log.find("rfstudio: recorded 60 frames in out.mp4") != std::string::npos);
  const std::string path = dir.file("out.mp4");
  const auto facts = test::probe(path);
  CHECK(facts.frames == 60);
  CHECK(facts.width == 320);
  CHECK(facts.height == 240);
  CHECK(facts.codec == "h264");
  const auto frames = test::decode_rgba(path, 320, 240);
  REQUIRE(frames.size() == 60);
  FilterSpec spec;
  spec.sigma = 16;
  spec.ext = Extension::Mirror;
  std::vector<std::vector<std::uint8_t>> expected;
  for (int k = 0; k < 60; ++k)
    expected.push_back(expected_frame(spec, 320, 240, k, app::Encoding::Rgba));
  for (int k = 0; k < 60; ++k) {
    CAPTURE(k);
    // Lossy, but near its own filtered frame, and nearer to it than to the neighbours (the bar
    // moves 2 px a frame): frames are in order, none repeated or skipped.
    const double own = psnr(frames[k], expected[k]);
    CHECK(own > 38.0);
    if (k > 0) CHECK(psnr(frames[k], expected[k - 1]) < own);
    if (k + 1 < 60) CHECK(psnr(frames[k], expected[k + 1]) < own);
  }
}

TEST_CASE("rfstudio --record-codec ffv1: every frame exactly the filter of its source frame") {
  if (!test::have_ffmpeg()) {
    MESSAGE("[skipped] ffmpeg and ffprobe are not installed");
    return;
  }
  const int w = 97, h = 61, n = 16;  // odd sizes
  FilterSpec spec;
  spec.sigma = 5;
  spec.ext = Extension::Mirror;
  for (auto [format, encoding] :
       {std::pair{"rgba8", app::Encoding::Rgba}, std::pair{"yuyv", app::Encoding::Yuyv},
        std::pair{"nv12", app::Encoding::Nv12}}) {
    const std::string name = format;
    CAPTURE(name);
    TempDir dir;
    const Run run =
        studio(dir, "--frames " + std::to_string(n) +
                        " --width 320 --height 240 --hide-ui --no-truth --backend cpu"
                        " --pattern moving-bar --pattern-size 97x61 --pattern-format " +
                        format + " --sigma 5 --ext mirror --record clip.mkv --record-codec ffv1");
    CAPTURE(run.log);
    REQUIRE(run.status == 0);
    const auto facts = test::probe(dir.file("clip.mkv"));
    CHECK(facts.frames == n);
    CHECK(facts.width == w);
    CHECK(facts.height == h);
    const auto frames = test::decode_rgba(dir.file("clip.mkv"), w, h);
    REQUIRE(frames.size() == std::size_t(n));
    for (int k = 0; k < n; ++k) {
      CAPTURE(k);
      CHECK(rgb_differences(frames[k], expected_frame(spec, w, h, k, encoding)) == 0);
    }
  }
}

TEST_CASE("rfstudio records a source that changes size into a second file") {
  if (!test::have_ffmpeg()) {
    MESSAGE("[skipped] ffmpeg and ffprobe are not installed");
    return;
  }
  TempDir dir;
  std::filesystem::create_directories(dir.file("frames"));
  for (int k = 0; k < 6; ++k) {
    Rgba8Image img;
    img.width = k < 3 ? 40 : 56;
    img.height = k < 3 ? 30 : 42;
    img.pixels.assign(std::size_t(img.width) * img.height * 4, 255);
    for (std::size_t i = 0; i < img.pixels.size(); i += 4) img.pixels[i] = std::uint8_t(i * 7 + k);
    char name[32];
    std::snprintf(name, sizeof name, "frames/f%02d.png", k);
    write_png(dir.file(name), img);
  }
  const Run run = studio(dir,
                         "--frames 6 --width 320 --height 240 --hide-ui --no-truth --folder frames "
                         "--record-codec ffv1 --record clip.mkv");
  CAPTURE(run.log);
  CHECK(run.status == 0);
  CHECK(run.log.find("the source changed to 56x42: 3 frames in clip.mkv, recording goes on in "
                     "clip-2.mkv") != std::string::npos);
  const auto a = test::probe(dir.file("clip.mkv")), b = test::probe(dir.file("clip-2.mkv"));
  CHECK(a.frames == 3);
  CHECK(a.width == 40);
  CHECK(b.frames == 3);
  CHECK(b.width == 56);
}

TEST_CASE("rfstudio keeps running when it cannot record, says why and exits 1 after its frames") {
  TempDir dir;
  const Run nodir = studio(dir,
                           "--frames 3 --width 320 --height 240 --hide-ui --no-truth --pattern "
                           "steps --record missing/out.mp4 --screenshot shot.png");
  CHECK(nodir.status == 1);
  CHECK(nodir.log.find("rfstudio: cannot record: cannot record to missing/out.mp4: no directory "
                       "missing") != std::string::npos);
  CHECK(std::filesystem::exists(dir.file("shot.png")));  // it rendered its frames regardless

  const Run no_ffmpeg = studio(dir,
                               "--frames 3 --width 320 --height 240 --hide-ui --no-truth "
                               "--pattern steps --record out.mkv",
                               "PATH=" + dir.path());
  CHECK(no_ffmpeg.status == 1);
  CHECK(no_ffmpeg.log.find("rfstudio: cannot record: recording needs ffmpeg, which is not "
                           "installed") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.file("out.mkv")));

  // A filter that refuses its parameters (a summed-area table takes the zero extension only)
  // leaves nothing to record: the run still ends after its frames, and says so.
  const Run refused =
      studio(dir,
             "--frames 3 --width 320 --height 240 --hide-ui --no-truth --pattern "
             "steps --filter sat --ext mirror --record none.mkv --record-codec ffv1");
  CHECK(refused.status == 1);
  CHECK(refused.log.find("rfstudio: nothing recorded to none.mkv: no filtered frame came") !=
        std::string::npos);

  // Options are checked before anything starts: one line, exit status 2.
  const Run avi = studio(dir, "--frames 3 --record out.avi");
  CHECK(avi.status == 2);
  CHECK(avi.log == "rfstudio: cannot record to out.avi: the file must end in .mp4 or .mkv\n");
  const Run codec = studio(dir, "--frames 3 --record out.mkv --record-codec vp9");
  CHECK(codec.status == 2);
  CHECK(codec.log == "rfstudio: --record-codec wants h264 or ffv1, got 'vp9'\n");
}

TEST_CASE("rfstudio --output-device that is missing or not an output: one line, frames go on") {
  TempDir dir;
  const Run missing = studio(dir,
                             "--frames 3 --width 320 --height 240 --hide-ui --no-truth --pattern "
                             "steps --output-device /dev/video-none --screenshot shot.png");
  CHECK(missing.status == 0);
  CHECK(missing.log.find("rfstudio: output device /dev/video-none: no such device (load "
                         "v4l2loopback: sudo modprobe v4l2loopback)") != std::string::npos);
  CHECK(std::filesystem::exists(dir.file("shot.png")));
  const Run not_v4l2 = studio(dir,
                              "--frames 3 --width 320 --height 240 --hide-ui --no-truth "
                              "--pattern steps --output-device /dev/null");
  CHECK(not_v4l2.status == 0);
  CHECK(not_v4l2.log.find("rfstudio: output device /dev/null is not a V4L2 video device") !=
        std::string::npos);
}
