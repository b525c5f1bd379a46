// The processing path's ordering, driven in-process offscreen: on every drawn frame the result
// texture holds the filter of the original texture beside it (no frame is shown before it is
// filtered, and never with another frame's original), and while recording every source frame
// taken reaches the file, in order. On the CPU backend here; the same cases run the pipelined
// CUDA-GL path on a GPU machine (and report themselves skipped elsewhere).
#include <doctest/doctest.h>

#include <cmath>

#include "app/gui/studio.h"
#include "app/sources/pattern.h"
#include "app/sources/yuv.h"
#include "filters/core/engine.h"
#include "recording_util.h"
#include "studio_harness.h"

using namespace rf;
using namespace rf::gui;
using rf::gui::test::TempDir;

namespace {

using Harness = rf::gui::test::StudioHarness;

// The original texture the view shows, as float RGBA on [0, 1].
Image read_original(GLuint texture, int w, int h) {
  std::vector<std::uint8_t> bytes(std::size_t(w) * h * 4);
  glBindTexture(GL_TEXTURE_2D, texture);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, bytes.data());
  Image img(w, h, 4);
  for (std::size_t i = 0; i < bytes.size(); ++i) img.pixels[i] = bytes[i] / 255.0f;
  return img;
}

StudioOptions moving_bar(Backend backend, app::Encoding encoding) {
  StudioOptions o;
  o.spec.sigma = 4.0;
  o.spec.ext = Extension::Mirror;
  o.spec.backend = backend;
  o.source = {SourceKind::Pattern, "moving-bar", 96, 64};
  o.source.encoding = encoding;
  o.pace = Pace::Step;
  o.no_truth = true;
  o.view.show_ui = false;
  return o;
}

// Draws frames until at least `wanted` source frames were taken (a recording holds frames back
// while its encoder starts), checking on each that the shown result is the filter of the shown
// original (within `tolerance`); returns how many frames were taken.
std::uint64_t run_and_check(Harness& h, std::uint64_t wanted, double tolerance) {
  Studio& st = *h.studio;
  int checked = 0;
  for (int i = 0; i < 3000 && st.processor.frame_version() < wanted; ++i) {
    h.frame();
    if (!st.processor.result_texture()) continue;
    const Image original =
        read_original(st.processor.original_texture(), st.processor.width(), st.processor.height());
    const Image& result = st.processor.result();
    const Image truth = filter_image(st.spec, original, Backend::Cpu);
    double worst = 0;
    for (std::size_t k = 0; k < truth.pixels.size(); ++k)
      worst = std::max(worst, double(std::fabs(truth.pixels[k] - result.pixels[k])));
    CAPTURE(i);
    CHECK(worst <= tolerance);
    ++checked;
  }
  CHECK(checked > 0);
  // The GPU path takes several source frames in one drawn frame when it has free slots.
  CHECK(st.processor.frame_version() >= wanted);
  return st.processor.frame_version();
}

// The recording holds the pattern's frames 0, 1, 2, ... each filtered, none missing or repeated.
void check_recording(const std::string& path, int expected_frames, const FilterSpec& spec,
                     app::Encoding encoding, int max_level_difference) {
  const auto facts = test::probe(path);
  CHECK(facts.frames == expected_frames);
  const auto frames = test::decode_rgba(path, 96, 64);
  REQUIRE(frames.size() == std::size_t(expected_frames));
  for (int k = 0; k < expected_frames; ++k) {
    app::Frame f = app::render_pattern("moving-bar", 96, 64, k, encoding), rgba;
    app::to_rgba(f, rgba);
    Image in(96, 64, 4);
    for (std::size_t i = 0; i < in.pixels.size(); ++i) in.pixels[i] = rgba.bytes[i] / 255.0f;
    const Image out = filter_image(spec, in, Backend::Cpu);
    int worst = 0;
    for (std::size_t i = 0; i < out.pixels.size(); i += 4)
      for (int c = 0; c < 3; ++c)
        worst = std::max(worst,
                         std::abs(int(frames[k][i + c]) - int(rf::to_unorm8(out.pixels[i + c]))));
    CAPTURE(k);
    CHECK(worst <= max_level_difference);
  }
}

}  // namespace

TEST_CASE(
    "pipeline: every shown result is its own original filtered, and recording drops nothing") {
  if (!test::have_ffmpeg()) {
    MESSAGE("[skipped] ffmpeg and ffprobe are not installed");
    return;
  }
  TempDir dir;
  StudioOptions o = moving_bar(Backend::Cpu, app::Encoding::Rgba);
  o.record = {dir.file("run.mkv"), RecordCodec::Ffv1};
  std::uint64_t taken = 0;
  {
    Harness h(o, {}, 320, 240);
    taken = run_and_check(h, 20, 1e-6);
    CHECK(h.studio->stream_out.recording());
    h.studio->finish();
    CHECK(h.studio->stream_out.recorded_frames() == taken);
  }
  check_recording(dir.file("run.mkv"), int(taken), o.spec, app::Encoding::Rgba, 0);
}

TEST_CASE("processing: the first run of each plan is told apart from the steady runs after it") {
  StudioOptions o = moving_bar(Backend::Cpu, app::Encoding::Rgba);
  o.source = {SourceKind::Pattern, "noise", 96, 64};  // a still: nothing runs unless asked
  o.pace = Pace::Realtime;
  Harness h(o, {}, 320, 240);
  Studio& st = *h.studio;
  Processor& p = st.processor;
  CHECK(p.first_run_of_plan());
  h.frame();
  CHECK(p.first_run_of_plan());  // nothing changed, nothing ran again
  st.spec.sigma = 7.0;           // a new plan
  h.frame();
  CHECK(p.first_run_of_plan());
  st.filter_every_frame = true;  // live timing: the same plan runs again
  h.frame();
  CHECK_FALSE(p.first_run_of_plan());
  st.spec.ext = Extension::Zero;
  h.frame();
  CHECK(p.first_run_of_plan());
  h.frame();
  CHECK_FALSE(p.first_run_of_plan());
}

TEST_CASE("pipeline: Ctrl+R starts and stops a recording in the export folder") {
  if (!test::have_ffmpeg()) {
    MESSAGE("[skipped] ffmpeg and ffprobe are not installed");
    return;
  }
  TempDir dir;
  Harness h(moving_bar(Backend::Cpu, app::Encoding::Rgba), {}, 320, 240);
  h.studio->export_dir = dir.path();
  h.frame();
  CHECK_FALSE(h.studio->stream_out.recording());
  h.press('R', true);
  CHECK(h.studio->stream_out.recording());
  for (int i = 0; i < 5; ++i) h.frame();
  h.press('R', true);
  CHECK_FALSE(h.studio->stream_out.recording());
  h.studio->finish();
  const auto facts = test::probe(dir.file("rfstudio-001.mp4"));
  CHECK(facts.frames >= 5);
  CHECK(facts.width == 96);
}

TEST_CASE("pipeline on the GPU: frames in flight, YUYV and NV12 converted on the GPU, in order") {
  for (app::Encoding e : {app::Encoding::Rgba, app::Encoding::Yuyv, app::Encoding::Nv12}) {
    const std::string format = app::to_string(e);
    CAPTURE(format);
    TempDir dir;
    StudioOptions o = moving_bar(Backend::Auto, e);
    const bool record = test::have_ffmpeg();
    if (record) o.record = {dir.file("gpu.mkv"), RecordCodec::Ffv1};
    std::uint64_t taken = 0;
    {
      Harness h(o, {}, 320, 240);
      h.frame();
      if (h.studio->processor.path_line().find("pipelined") == std::string::npos) {
        MESSAGE("[skipped] no pipelined CUDA-GL path here: " << h.studio->processor.path_line());
        return;
      }
      // The GPU converts camera formats as the CPU does: the original texture equals the CPU's
      // conversion of the same frame to within float rounding (the kernels scale 8-bit samples by
      // 1/255, the CPU divides: the H100 showed one ulp, 7.5e-9; an 8-bit step is 3.9e-3).
      h.frame();
      h.studio->processor.settle();
      const Image original = read_original(h.studio->processor.original_texture(), 96, 64);
      const Image& cpu = h.studio->processor.input();
      double worst = 0;
      for (std::size_t k = 0; k < cpu.pixels.size(); ++k)
        worst = std::max(worst, double(std::fabs(cpu.pixels[k] - original.pixels[k])));
      CHECK(worst <= 1e-6);
      taken = run_and_check(h, 40, 5e-5);
      h.studio->finish();
      if (record) CHECK(h.studio->stream_out.recorded_frames() == taken);
    }
    if (record) check_recording(dir.file("gpu.mkv"), int(taken), o.spec, e, 1);
  }
}
