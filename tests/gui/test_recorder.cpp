// The recorder on its own: frames in, a video file out through ffmpeg, read back with ffprobe and
// ffmpeg. Lossless FFV1 gives back the very bytes sent; H.264 in fragmented MP4 the right frames,
// sizes and near values. Then what goes wrong: ffmpeg missing, no directory, a full disk, a file
// size limit that cuts ffmpeg off (what was recorded still plays), the source changing size.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "app/gui/recorder.h"
#include "filters/core/errors.h"
#include "recording_util.h"
#include "tests/random_data.h"

using namespace rf;
using namespace rf::gui;
using rf::gui::test::TempDir;

namespace {

// Frame k of a test clip: seeded noise over a moving gradient, distinct in every frame.
std::shared_ptr<app::OutputFrame> clip_frame(app::OutputFramePool& pool, int w, int h, int k,
                                             bool noise = true) {
  std::shared_ptr<app::OutputFrame> f;
  while (!(f = pool.acquire(w, h))) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::vector<std::uint8_t> red_blue =
      rf::test::random_bytes(2 * std::size_t(w) * std::size_t(h), 1000u + unsigned(k));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t i = std::size_t(y) * w + x;
      std::uint8_t* p = f->data + i * 4;
      const int base = (x * 3 + y + 9 * k) & 255;
      p[0] = noise ? red_blue[2 * i] : std::uint8_t(base);
      p[1] = std::uint8_t(base);
      p[2] = noise ? red_blue[2 * i + 1] : std::uint8_t(255 - base);
      p[3] = 255;
    }
  f->fps = 25.0;
  return f;
}

// Pushes, waiting for room as the pipeline does (it holds frames back, never drops them).
void push(Recorder& r, std::shared_ptr<app::OutputFrame> f) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!r.push(f) && r.active() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

std::string notes_text(Recorder& r) {
  std::string all;
  for (const RecorderNote& n : r.take_notes()) all += (n.error ? "E: " : "") + n.text + "\n";
  return all;
}

}  // namespace

TEST_CASE("recording FFV1 gives back every frame sent, byte for byte, in order") {
  if (!gui::test::have_ffmpeg()) {
    MESSAGE("[skipped] ffmpeg and ffprobe are not installed");
    return;
  }
  TempDir dir;
  const std::string path = dir.file("clip.mkv");
  const int w = 37, h = 23, n = 12;  // odd sizes
  app::OutputFramePool pool(4);
  std::vector<std::vector<std::uint8_t>> sent;
  {
    Recorder r({path, RecordCodec::Ffv1});
    for (int k = 0; k < n; ++k) {
      auto f = clip_frame(pool, w, h, k);
      sent.emplace_back(f->data, f->data + f->bytes());
      push(r, f);
    }
    r.finish();
    CHECK(r.frames_written() == n);
    CHECK(notes_text(r) == "recorded 12 frames in " + path + "\n");
  }
  const auto facts = gui::test::probe(path);
  CHECK(facts.frames == n);
  CHECK(facts.width == w);
  CHECK(facts.height == h);
  CHECK(facts.codec == "ffv1");
  const auto frames = gui::test::decode_rgba(path, w, h);
  REQUIRE(frames.size() == std::size_t(n));
  for (int k = 0; k < n; ++k) {
    CAPTURE(k);
    int wrong = 0;
    for (std::size_t i = 0; i < sent[k].size(); i += 4)
      for (int c = 0; c < 3; ++c) wrong += frames[k][i + c] != sent[k][i + c];
    CHECK(wrong == 0);
  }
}

TEST_CASE("recording H.264 to MP4 keeps the size, the count and the pictures") {
  if (!gui::test::have_ffmpeg()) {
    MESSAGE("[skipped] ffmpeg and ffprobe are not installed");
    return;
  }
  TempDir dir;
  app::OutputFramePool pool(4);
  for (auto [w, h] : {std::pair{64, 48}, std::pair{33, 17}}) {  // 4:2:0, and 4:4:4 for odd sizes
    CAPTURE(w);
    const std::string path = dir.file("clip" + std::to_string(w) + ".mp4");
    std::vector<std::vector<std::uint8_t>> sent;
    {
      Recorder r({path, RecordCodec::H264});
      for (int k = 0; k < 20; ++k) {
        auto f = clip_frame(pool, w, h, k, false);
        sent.emplace_back(f->data, f->data + f->bytes());
        push(r, f);
      }
    }
    const auto facts = gui::test::probe(path);
    CHECK(facts.frames == 20);
    CHECK(facts.width == w);
    CHECK(facts.height == h);
    CHECK(facts.codec == "h264");
    const auto frames = gui::test::decode_rgba(path, w, h);
    REQUIRE(frames.size() == 20);
    // Each decoded frame is near its own source frame (and far from its neighbours').
    for (int k = 0; k < 20; ++k) {
      auto mean_abs = [&](int j) {
        double s = 0;
        for (std::size_t i = 0; i < sent[j].size(); i += 4)
          s += std::abs(frames[k][i + 1] - sent[j][i + 1]);
        return s / double(w * h);
      };
      CAPTURE(k);
      CHECK(mean_abs(k) < 3.0);
      if (k > 0) CHECK(mean_abs(k - 1) > mean_abs(k));
    }
  }
}

TEST_CASE("a source that changes size mid-recording continues in a second file") {
  if (!gui::test::have_ffmpeg()) {
    MESSAGE("[skipped] ffmpeg and ffprobe are not installed");
    return;
  }
  TempDir dir;
  const std::string path = dir.file("live.mkv");
  app::OutputFramePool pool(4);
  Recorder r({path, RecordCodec::Ffv1});
  for (int k = 0; k < 5; ++k) push(r, clip_frame(pool, 32, 24, k));
  for (int k = 0; k < 7; ++k) push(r, clip_frame(pool, 40, 30, k));
  r.finish();
  const std::string second = dir.file("live-2.mkv");
  CHECK(r.files() == std::vector<std::string>{path, second});
  CHECK(notes_text(r) == "the source changed to 40x30: 5 frames in " + path +
                             ", recording goes on in " + second + "\nrecorded 7 frames in " +
                             second + "\n");
  const auto a = gui::test::probe(path), b = gui::test::probe(second);
  CHECK(a.frames == 5);
  CHECK(a.width == 32);
  CHECK(b.frames == 7);
  CHECK(b.height == 30);
}

TEST_CASE("recording problems before the first frame are one line naming them") {
  TempDir dir;
  auto error_of = [](RecordSettings s) {
    try {
      Recorder r(s);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("(started)");
  };
  CHECK(error_of({dir.file("a.avi")}) ==
        "cannot record to " + dir.file("a.avi") + ": the file must end in .mp4 or .mkv");
  CHECK(error_of({dir.file("a.mp4"), RecordCodec::Ffv1}) ==
        "cannot record to " + dir.file("a.mp4") + ": FFV1 goes into .mkv files, not .mp4");
  CHECK(error_of({dir.file("no/such/dir/a.mkv")}) ==
        "cannot record to " + dir.file("no/such/dir/a.mkv") + ": no directory " +
            dir.file("no/such/dir"));
  // ffmpeg missing: the search path holds no ffmpeg.
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", dir.path().c_str(), 1);
  const std::string missing = error_of({dir.file("a.mkv")});
  ::setenv("PATH", saved.c_str(), 1);
  CHECK(missing == "recording needs ffmpeg, which is not installed");
  CHECK_FALSE(std::filesystem::exists(dir.file("a.mkv")));
}

TEST_CASE("a full disk stops the recording with ffmpeg's reason, and the caller goes on") {
  if (!gui::test::have_ffmpeg() || !std::filesystem::exists("/dev/full")) {
    MESSAGE("[skipped] ffmpeg or /dev/full missing");
    return;
  }
  app::OutputFramePool pool(4);
  RecordSettings s{"/dev/full", RecordCodec::Ffv1};
  s.container = "matroska";
  Recorder r(s);
  for (int k = 0; k < 200 && r.active(); ++k) push(r, clip_frame(pool, 320, 240, k));
  r.finish();
  CHECK_FALSE(r.active());
  const std::string notes = notes_text(r);
  CAPTURE(notes);
  CHECK(notes.rfind("E: recording stopped after ", 0) == 0);
  CHECK(notes.find("No space left on device") != std::string::npos);
  CHECK_FALSE(r.push(clip_frame(pool, 320, 240, 0)));
}

TEST_CASE("a recording cut off mid-file (file size limit) still plays what it holds") {
  if (!gui::test::have_ffmpeg()) {
    MESSAGE("[skipped] ffmpeg and ffprobe are not installed");
    return;
  }
  TempDir dir;
  app::OutputFramePool pool(4);
  for (const std::string name : {"cut.mkv", "cut.mp4"}) {
    CAPTURE(name);
    const std::string path = dir.file(name);
    // ffmpeg inherits the limit: past 96 KiB its writes fail and SIGXFSZ ends it, as a full disk
    // or a crash would.
    rlimit saved{};
    ::getrlimit(RLIMIT_FSIZE, &saved);
    rlimit limit = saved;
    limit.rlim_cur = 96 * 1024;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
    std::string notes;
    {
      Recorder r(
          {path, name.find(".mkv") != std::string::npos ? RecordCodec::Ffv1 : RecordCodec::H264});
      for (int k = 0; k < 400 && r.active(); ++k) push(r, clip_frame(pool, 96, 64, k));
      r.finish();
      notes = notes_text(r);
    }
    ::setrlimit(RLIMIT_FSIZE, &saved);
    CAPTURE(notes);
    CHECK(notes.rfind("E: recording stopped after ", 0) == 0);
    const auto facts = gui::test::probe(path);
    CHECK(facts.frames > 0);
    CHECK(facts.width == 96);
    // A decoder may conceal a last partial frame; what matters is that the frames decode.
    const auto decoded = gui::test::decode_rgba(path, 96, 64);
    CHECK(decoded.size() >= std::size_t(facts.frames));
    CHECK(decoded.size() <= std::size_t(facts.frames) + 1);
  }
}
