// The studio's state and services on their own, without GL: the state a run starts from, the
// message log, the frame statistics, the downscale past the texture limit, presets and lessons
// applied over the state, the recording's failures, the export stems and sidecar, and the summary
// of a --frames run.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/gui/classroom.h"
#include "app/gui/embedded.h"
#include "app/gui/exporter.h"
#include "app/gui/frame_feed.h"
#include "app/gui/frame_stats.h"
#include "app/gui/messages.h"
#include "app/gui/run_summary.h"
#include "app/gui/stream_out.h"
#include "app/gui/studio_state.h"
#include "tests/temp_dir.h"

using namespace rf;
using namespace rf::gui;
using rf::test_util::TempDir;

namespace {

bool any_message(const MessageLog& log, const std::string& needle, bool error) {
  for (const Message& m : log)
    if (m.text.find(needle) != std::string::npos && m.error == error) return true;
  return false;
}

}  // namespace

TEST_CASE("studio state: a run starts from the command line's filter, view and outputs") {
  const StudioState plain = initial_state(StudioOptions());
  CHECK(plain.spec == FilterSpec());
  CHECK(plain.view.mode == ViewMode::Result);
  CHECK(plain.view.show_ui);
  CHECK_FALSE(plain.filter_every_frame);
  CHECK(plain.truth_enabled);
  CHECK(plain.export_dir == "out");
  CHECK(plain.output_device.empty());
  CHECK_FALSE(plain.open_dialog_requested);

  StudioOptions o;
  o.spec.sigma = 7.5;
  o.view.mode = ViewMode::Tiles;
  o.diff.truth = TruthMode::Padded;
  o.live = true;
  o.no_truth = true;
  o.record = {"run.mkv", RecordCodec::Ffv1};
  o.record.fps = 12.0;
  o.output_device = "/dev/video10";
  const StudioState s = initial_state(o);
  CHECK(s.spec.sigma == 7.5);
  CHECK(s.view.mode == ViewMode::Tiles);
  CHECK(s.diff.truth == TruthMode::Padded);
  CHECK(s.filter_every_frame);
  CHECK_FALSE(s.truth_enabled);
  // The panel's recordings take the codec and rate; the file is the command line's own.
  CHECK(s.record_settings.codec == RecordCodec::Ffv1);
  CHECK(s.record_settings.fps == 12.0);
  CHECK(s.record_settings.path.empty());
  CHECK(s.output_device == "/dev/video10");
}

TEST_CASE("message log: newest last, errors marked, the oldest dropped past the limit") {
  MessageLog log;
  CHECK(log.empty());
  log.post("first");
  log.post("broken", true);
  REQUIRE(log.size() == 2);
  CHECK(log.back().text == "broken");
  CHECK(log.back().error);
  log.dismiss_newest();
  CHECK(log.back().text == "first");
  for (int i = 0; i < 60; ++i) log.post("n" + std::to_string(i));
  CHECK(log.size() == MessageLog::kMaxMessages);
  CHECK(log.back().text == "n59");
  CHECK(log.begin()->text == "n10");
}

TEST_CASE("frame stats: histories, throughput over the last second, the summary's log") {
  using Clock = FrameStats::Clock;
  FrameStats stats(true);
  const Clock::time_point t0 = Clock::now();
  FrameTiming t;
  t.upload_ms = 1.0;
  t.filter_ms = 2.0;
  t.latency_ms = 5.0;
  t.pipelined = true;
  t.interval_ms = 0.5;
  for (int i = 0; i < 11; ++i) stats.finished(t, t0 + std::chrono::milliseconds(50 * i));
  CHECK(stats.path_ms().size() == 11);
  CHECK(stats.path_ms().back() == 3.0f);
  CHECK(stats.latency_ms().back() == 5.0f);
  CHECK(stats.interval_ms().size() == 11);
  CHECK(stats.log().size() == 11);
  // 11 frames 50 ms apart: 20 per second.
  CHECK(stats.throughput_fps() == doctest::Approx(20.0));
  stats.expire(t0 + std::chrono::milliseconds(1400));
  CHECK(stats.throughput_fps() == doctest::Approx(20.0));  // 8..10 remain: 2 intervals of 50 ms
  // A frame filtered again without a new frame counts for the path's time, not the throughput.
  t.uploaded = false;
  stats.finished(t, t0 + std::chrono::milliseconds(1450));
  CHECK(stats.latency_ms().size() == 11);
  for (std::size_t i = 0; i < FrameStats::kHistory + 10; ++i) stats.finished(t, t0);
  CHECK(stats.path_ms().size() == FrameStats::kHistory);

  FrameStats quiet;
  quiet.finished(t, t0);
  CHECK(quiet.log().empty());
  CHECK(quiet.ui_frame_ms() == 0.0);
  quiet.ui_frame(Clock::now());
  CHECK(quiet.ui_frame_ms() >= 0.0);
}

TEST_CASE("frame feed: frames past the texture limit are halved, 2x2 means") {
  app::Frame f;
  f.width = 5;
  f.height = 2;
  f.format = PixelFormat::RGBA8;
  f.index = 3;
  f.bytes.resize(5 * 2 * 4);
  for (std::size_t i = 0; i < f.bytes.size(); ++i) f.bytes[i] = std::uint8_t(10 * (i / 4));
  const app::Frame same = downscale_to_fit(f, 8);
  CHECK(same.width == 5);
  CHECK(same.bytes == f.bytes);
  const app::Frame half = downscale_to_fit(f, 4);
  REQUIRE(half.width == 2);
  REQUIRE(half.height == 1);
  CHECK(half.index == 3);
  // Pixel (0, 0) averages pixels 0, 1, 5 and 6: (0 + 10 + 50 + 60) / 4 = 30.
  CHECK(half.bytes[0] == 30);
  CHECK(half.bytes[4] == 50);  // (20 + 30 + 70 + 80) / 4
  const app::Frame tiny = downscale_to_fit(f, 1);
  CHECK(tiny.width == 1);
  CHECK(tiny.height == 1);
}

TEST_CASE("classroom: a preset over the state, its source opened, its lesson card shown") {
  StudioState state = initial_state(StudioOptions());
  state.view.show_ui = false;
  SourceSlot source;
  Canvas canvas;
  MessageLog log;
  Classroom classroom(state, source, canvas, log);
  classroom.load_deck("");
  REQUIRE(classroom.size() >= 9);
  CHECK(classroom.index() == -1);
  CHECK_FALSE(classroom.take_opened());

  classroom.open_lesson(0);
  CHECK(classroom.index() == 0);
  CHECK_FALSE(classroom.card().lesson.empty());
  CHECK(classroom.take_opened());
  CHECK_FALSE(classroom.take_opened());
  CHECK_FALSE(state.view.show_ui);  // the panels stay as they are
  CHECK(any_message(log, "lesson 1/", false));

  const nlohmann::json plain = {{"name", "wide"},
                                {"filter", {{"kind", "gaussian"}, {"sigma", 9}}},
                                {"view", {{"mode", "diff"}}},
                                {"source", {{"pattern", "steps"}}}};
  classroom.apply_preset_json("mine.json", plain);
  CHECK(state.spec.sigma == 9.0);
  CHECK(state.view.mode == ViewMode::Diff);
  CHECK(classroom.index() == -1);  // no card: the previous one closes
  CHECK(classroom.current("now").spec.sigma == 9.0);
  CHECK(any_message(log, "preset: wide", false));
  CHECK(source.choice().kind == SourceKind::Pattern);
  CHECK(source.choice().path == "steps");

  const std::size_t before = log.size();
  classroom.apply_preset_json("bad.json", {{"filter", {{"kind", "no-such-kind"}}}});
  CHECK(log.size() == before + 1);
  CHECK(any_message(log, "bad.json: ", true));
  CHECK(state.spec.sigma == 9.0);
  classroom.open_lesson(1000);  // outside the deck: nothing
  CHECK(log.size() == before + 1);
}

TEST_CASE("stream out: the command line's recording failing fails the run; camera out waits") {
  TempDir dir;
  MessageLog log;
  StreamOut out(log);
  Processor processor;
  out.open_device("/dev/video-none", processor);  // no frame yet: it waits, quietly
  CHECK(log.empty());
  out.start_recording({dir.file("missing/a.mp4")}, dir.path());
  CHECK_FALSE(out.failed());
  CHECK(any_message(log, "cannot record: ", true));
  out.start_command_line_recording({dir.file("missing/b.mp4")}, dir.path());
  CHECK(out.failed());
  CHECK_FALSE(out.recording());
  CHECK_FALSE(out.wants_frames());
  CHECK(out.accepts_frame());
}

TEST_CASE("exporter: stems count what is on disk; the sidecar names what was shown") {
  TempDir dir;
  MessageLog log;
  Processor processor;
  GroundTruth truth;
  Exporter exporter(
      processor, [] { return std::string("{}"); }, log);
  CHECK(exporter.next_stem(dir.path()) == "rfstudio-001");
  std::ofstream(dir.file("rfstudio-001.json")) << "{}";
  CHECK(exporter.next_stem(dir.path()) == "rfstudio-002");
  // Without a frame there is nothing to export.
  exporter.export_all("x", dir.path());
  CHECK(exporter.wait() == 0);
  CHECK(exporter.take_screenshots().empty());
  exporter.request_screenshot("a.png");
  CHECK(exporter.take_screenshots() == std::vector<std::string>{"a.png"});

  Preset p;
  p.spec.sigma = 3.0;
  const nlohmann::json j =
      nlohmann::json::parse(sidecar_json(p, "a source", processor, truth, 4.5));
  CHECK(j["filter"] == describe(p.spec));
  CHECK(j["source"] == "a source");
  CHECK(j["width"] == 0);
  CHECK(j["timing"]["ui_frame_ms_wall"] == 4.5);
  CHECK(j["timing"]["clock"] == "host steady clock");
  CHECK_FALSE(j.contains("truth"));
}

TEST_CASE("run summary: wall clock, the filter path's medians, the pipelined path's pace") {
  CHECK(run_summary({1, 2, 3}, 640, 480, {}, "copy path").empty());
  const std::string wall = run_summary({100, 10, 30, 20, 100}, 640, 480, {}, "copy path");
  CHECK(wall ==
        "rfstudio: 3 frames at 640x480, median 20.00 ms per frame (50.0 fps) wall clock, UI and "
        "filter path included\n");
  std::vector<FrameTiming> log(4);
  for (int i = 0; i < 4; ++i) {
    log[i].filter_ms = 1.0 + i;
    log[i].upload_ms = 0.5;
    log[i].pipelined = true;
    log[i].gpu_events = true;
    log[i].interval_ms = 2.0;
  }
  log[0].filter_ms = 100.0;  // the first run plans: left out
  const std::string s = run_summary({1, 2, 3, 4}, 8, 8, log, "CUDA-GL interop");
  CHECK(s.find("rfstudio: filter path over 3 runs (CUDA events, CUDA-GL interop): median upload "
               "0.500 ms (3 runs with a new frame), filter 3.000 ms") != std::string::npos);
  CHECK(s.find("rfstudio: pipelined frames (3 with a new frame, 3 drawn)") != std::string::npos);
  CHECK(s.find("GPU frame to frame 2.000 ms mean (500 frames per second)") != std::string::npos);
  // A still image: no run after the first moves a new frame, so no upload has a median.
  for (FrameTiming& t : log) t.uploaded = false;
  log[0].uploaded = true;
  const std::string still = run_summary({1, 2, 3, 4}, 8, 8, log, "CUDA-GL interop");
  CHECK(still.find("median upload - (no run with a new frame; --upload-every-frame sends the "
                   "frame again each run), filter 3.000 ms") != std::string::npos);
  CHECK(still.find("median total - with upload") != std::string::npos);
  CHECK(still.find("median convert -, readback -,") != std::string::npos);
  CHECK(still.find("arrival to display -\n") != std::string::npos);
}
