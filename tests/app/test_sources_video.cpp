// Video through an ffmpeg child process: frames, pacing, looping, stepping, errors, and no child
// left behind. Skipped (with a message) where ffmpeg is not installed.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include "app/io/image_io.h"
#include "app/sources/child_process.h"
#include "app/sources/source.h"
#include "filters/core/errors.h"
#include "sources_test_util.h"
#include "tests/random_data.h"

using namespace rf;
using namespace rf::app;
using rf::app::test::seconds_since;
using rf::app::test::TempDir;
using rf::app::test::wait_for_frame;
using rf::app::test::wait_until;

namespace {

// A 64x48 clip of `frames` frames at `fps` from ffmpeg's test source.
std::string make_clip(const TempDir& dir, const std::string& name, int frames, int fps = 10) {
  const std::string ffmpeg = detail::find_program("ffmpeg");
  if (ffmpeg.empty()) return {};
  std::string out, err;
  const std::string path = dir.file(name);
  const int rc = detail::run_program({ffmpeg, "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                                      "testsrc=size=64x48:rate=" + std::to_string(fps), "-frames:v",
                                      std::to_string(frames), "-pix_fmt", "yuv420p", path},
                                     out, err, 60.0);
  INFO(err);
  REQUIRE(rc == 0);
  return path;
}

bool no_children_left() {
  return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

bool ffmpeg_missing() {
  if (!detail::find_program("ffmpeg").empty()) return false;
  MESSAGE("[skipped] ffmpeg is not installed");
  return true;
}

}  // namespace

TEST_CASE("a video plays its frames once, paced, then says it ended and keeps the last") {
  if (ffmpeg_missing()) return;
  TempDir dir;
  const std::string clip = make_clip(dir, "clip.mp4", 5);
  const auto start = std::chrono::steady_clock::now();
  {
    auto source = open_video(clip, false);
    CHECK(source->animated());
    CHECK(source->description() == "clip.mp4 64x48 10 fps");
    CHECK(source->fps() == 10.0);
    Frame f;
    std::vector<std::vector<std::uint8_t>> frames;
    std::vector<std::uint64_t> indices;
    std::vector<double> seen_at;
    auto take = [&] {
      if (!source->poll(f)) return;
      frames.push_back(f.bytes);
      indices.push_back(f.index);
      seen_at.push_back(seconds_since(start));
    };
    REQUIRE(wait_until([&] {
      take();
      return !source->status().empty();
    }));
    take();
    CHECK(source->status() == "end of clip.mp4: showing the last frame");
    // Frame indices count every frame the source published, including any this loop missed
    // on a busy machine.
    REQUIRE(frames.size() >= 2);
    CHECK(indices.back() - indices.front() + 1 == 5);
    CHECK(f.width == 64);
    CHECK(f.height == 48);
    CHECK(f.format == PixelFormat::RGBA8);
    CHECK(f.bytes.size() == 64 * 48 * 4);
    for (std::size_t i = 1; i < frames.size(); ++i) CHECK(frames[i] != frames[i - 1]);
    // Paced: playing time starts with the first picture, so frame n is shown no sooner than
    // n / 10 s after that, and after the source was opened.
    for (std::size_t i = 0; i < frames.size(); ++i) {
      CAPTURE(i);
      CHECK(seen_at[i] >= double(indices[i] - indices.front()) / 10.0 - 1e-6);
    }
    CHECK_FALSE(source->poll(f));
    Frame kept;  // empty: poll() hands over the source's newest frame
    REQUIRE(source->poll(kept));
    CHECK(kept.bytes == frames.back());
  }
  CHECK(no_children_left());
}

TEST_CASE("a looping video restarts, steps while paused, and reaps ffmpeg when closed") {
  if (ffmpeg_missing()) return;
  TempDir dir;
  // 2 fps: the pause below comes long before the second frame is due.
  const std::string clip = make_clip(dir, "loop.mkv", 3, 2);
  {
    auto source = open_video(clip, true);
    source->set_paused(true);
    Frame f;
    REQUIRE(wait_for_frame(*source, f));  // the first frame shows even when paused
    const auto first = f.bytes;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK_FALSE(source->poll(f));
    std::vector<std::vector<std::uint8_t>> stepped;
    for (int i = 0; i < 4; ++i) {
      source->step();
      REQUIRE(wait_for_frame(*source, f));
      stepped.push_back(f.bytes);
    }
    // 3 frames: steps show frames 1, 2, then 0 again (looped), then 1.
    CHECK(stepped[0] != first);
    CHECK(stepped[1] != stepped[0]);
    CHECK(stepped[2] == first);
    CHECK(stepped[3] == stepped[0]);
    CHECK(source->status().empty());
    source->set_paused(false);
    int more = 0;
    while (more < 2 && wait_for_frame(*source, f)) ++more;
    CHECK(more == 2);
  }
  CHECK(no_children_left());
}

TEST_CASE("open_path opens a video by its extension") {
  if (ffmpeg_missing()) return;
  TempDir dir;
  const std::string clip = make_clip(dir, "clip.webm", 2);
  auto source = open_path(clip);
  Frame f;
  REQUIRE(wait_for_frame(*source, f));
  CHECK(f.width == 64);
  CHECK(source->description().find("clip.webm") != std::string::npos);
}

TEST_CASE("a damaged or missing video is an IoError naming the file") {
  if (ffmpeg_missing()) return;
  TempDir dir;
  const std::string bad = dir.file("noise.mp4");
  {
    const std::vector<std::uint8_t> noise = rf::test::random_bytes(4096, 9);
    std::ofstream(bad, std::ios::binary)
        .write(reinterpret_cast<const char*>(noise.data()), std::streamsize(noise.size()));
  }
  try {
    open_video(bad);
    FAIL("random bytes opened as a video");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find("noise.mp4") != std::string::npos);
  }
  CHECK_THROWS_AS(open_video(dir.file("missing.mp4")), IoError);
  CHECK(no_children_left());
}

TEST_CASE("a video cut short plays what it has, then says it ended and keeps the last frame") {
  if (ffmpeg_missing()) return;
  TempDir dir;
  // MPEG-TS has no index at the end, so a cut file still opens.
  const std::string clip = make_clip(dir, "whole.ts", 20);
  std::string bytes;
  {
    std::ifstream in(clip, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string cut = dir.file("cut.ts");
  std::ofstream(cut, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() / 2));
  auto source = open_video(cut, false);
  Frame f;
  int frames = 0;
  REQUIRE(wait_until([&] {
    if (source->poll(f)) ++frames;
    return !source->status().empty();
  }));
  if (source->poll(f)) ++frames;
  CHECK(frames >= 1);
  CHECK(frames < 20);
  CHECK(source->status().find("showing the last frame") != std::string::npos);
  CHECK(f.bytes.size() == 64 * 48 * 4);
}

TEST_CASE("without ffmpeg a video says what is missing") {
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  TempDir dir;
  std::ofstream(dir.file("clip.mp4")) << "whatever";
  ::setenv("PATH", "/nonexistent-rfstudio-path", 1);
  std::string message;
  try {
    open_video(dir.file("clip.mp4"));
  } catch (const IoError& e) {
    message = e.what();
  }
  ::setenv("PATH", saved.c_str(), 1);
  CHECK(message == "video needs ffmpeg, which is not installed");
}

TEST_CASE("a video with damage in the middle plays on and says the file is damaged") {
  if (ffmpeg_missing()) return;
  TempDir dir;
  const std::string clip = make_clip(dir, "whole.ts", 30);
  std::string bytes;
  {
    std::ifstream in(clip, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::vector<std::uint8_t> damage = rf::test::random_bytes(3000, 44);
  std::copy(damage.begin(), damage.end(), bytes.begin() + std::ptrdiff_t(bytes.size() / 2));
  const std::string damaged = dir.file("damaged.ts");
  std::ofstream(damaged, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  auto source = open_video(damaged, false);
  source->set_paused(true);
  Frame f;
  REQUIRE(wait_for_frame(*source, f));
  int frames = 1;
  std::string damage_message;
  // Steps through the file as fast as it decodes, until a step brings no frame but the end.
  auto ended = [&] { return source->status().find("showing the last frame") != std::string::npos; };
  while (frames < 100) {
    source->step();
    bool stepped = false;
    REQUIRE(wait_until([&] { return (stepped = source->poll(f)) || ended(); }));
    if (!stepped) break;
    ++frames;
    if (damage_message.empty()) damage_message = source->status();
  }
  CHECK(frames >= 20);
  CHECK(damage_message.find("damaged.ts: damaged data, playing on (") == 0);
  CHECK(damage_message.find(" @ 0x") == std::string::npos);
}

TEST_CASE("without ffprobe the stream's size and rate come from ffmpeg's own report") {
  if (ffmpeg_missing()) return;
  TempDir dir;
  const std::string clip = make_clip(dir, "clip.mkv", 3, 5);
  // A PATH holding ffmpeg alone.
  const std::string bin = dir.file("bin");
  std::filesystem::create_directory(bin);
  std::filesystem::create_symlink(detail::find_program("ffmpeg"), bin + "/ffmpeg");
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", bin.c_str(), 1);
  std::string description, error;
  Frame f;
  bool got = false;
  try {
    auto source = open_video(clip, false);
    description = source->description();
    got = wait_for_frame(*source, f);
  } catch (const IoError& e) {
    error = e.what();
  }
  ::setenv("PATH", saved.c_str(), 1);
  CHECK(error.empty());
  CHECK(description == "clip.mkv 64x48 5 fps");
  CHECK(got);
  CHECK(f.width == 64);
}

TEST_CASE("a video with a display rotation plays upright") {
  if (ffmpeg_missing()) return;
  TempDir dir;
  const std::string clip = make_clip(dir, "coded.mp4", 3);
  // What a phone writes when held upright: landscape pixels and a 90 degree display rotation.
  const std::string rotated = dir.file("rotated.mp4");
  std::string out, err;
  REQUIRE(detail::run_program({detail::find_program("ffmpeg"), "-nostdin", "-v", "error", "-i",
                               clip, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated},
                              out, err, 60.0) == 0);
  if (detail::find_program("ffprobe").empty()) {
    MESSAGE("[skipped] ffprobe is not installed: rotation is not detected without it");
    return;
  }
  auto source = open_video(rotated, false);
  CHECK(source->description() == "rotated.mp4 48x64 10 fps");
  Frame f;
  REQUIRE(wait_for_frame(*source, f));
  CHECK(f.width == 48);
  CHECK(f.height == 64);
  CHECK(f.bytes.size() == 48 * 64 * 4);
}

TEST_CASE("open_image keeps a 16-bit PNG in float") {
  if (ffmpeg_missing()) return;
  TempDir dir;
  // ffmpeg writes 16-bit PNGs; rf::io::write_image writes 8-bit ones only.
  const std::string deep = dir.file("deep.png");
  std::string out, err;
  REQUIRE(detail::run_program(
              {detail::find_program("ffmpeg"), "-nostdin", "-v", "error", "-f", "lavfi", "-i",
               "gradients=size=33x17:seed=5", "-frames:v", "1", "-pix_fmt", "rgb48be", deep},
              out, err, 60.0) == 0);
  Frame f;
  REQUIRE(open_image(deep)->poll(f));
  CHECK(f.format == PixelFormat::RGBA32F);
  REQUIRE(f.bytes.size() == 33 * 17 * 16);
  // Some sample is not a multiple of 1/255: the precision beyond 8 bits survived.
  const float* px = reinterpret_cast<const float*>(f.bytes.data());
  int finer = 0;
  for (int i = 0; i < 33 * 17 * 4; ++i) {
    const float v = px[i] * 255.0f;
    if (std::abs(v - std::round(v)) > 0.01f) ++finer;
  }
  CHECK(finer > 100);
  io::write_image(dir.file("shallow.png"), Image(4, 4, 3));
  REQUIRE(open_image(dir.file("shallow.png"))->poll(f));
  CHECK(f.format == PixelFormat::RGBA8);
}
