// Utilities shared by the source implementations (and their tests); not part of the GUI's API.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "app/sources/source.h"
#include "filters/core/image.h"

namespace rf::app::detail {

// Frame indices come from one process-wide counter, so a frame of a source opened later is always
// "newer" than any frame the GUI kept from the previous source. The first index is 1.
std::uint64_t next_frame_index();

// Natural order for file names: digit runs compare as numbers ("frame2" < "frame10"), letters
// case-insensitively; ties fall back to plain byte order so the order is total.
bool natural_less(const std::string& a, const std::string& b);

// The file name's extension, lower case, with its dot (".png"); empty when there is none.
std::string lower_extension(const std::string& path);
// The last path component ("dir/a.png" -> "a.png").
std::string base_name(const std::string& path);

// True for the extensions rf::io::read_image understands.
bool is_image_extension(const std::string& ext);
// True for the extensions played through ffmpeg.
bool is_video_extension(const std::string& ext);

// A float image of 1 to 4 channels as an RGBA frame: gray is replicated to RGB, a missing alpha
// is 1. RGBA8 rounds and clamps [0, 1] to 0..255; RGBA32F keeps the values as they are (HDR).
Frame image_to_frame(const Image& img, PixelFormat format);

// A still: `frame` delivered once, described as "NAME WxH" (" float" for RGBA32F).
std::unique_ptr<Source> still_source(const std::string& path, Frame frame);
// A .tif/.tiff file: a still when it holds one page, its pages played at `fps` when it holds more
// (pages_source.cpp). Throws IoError naming the file.
std::unique_ptr<Source> open_tiff(const std::string& path, double fps = 10.0);

// Reads an image file into a frame: RGBA32F for the float formats (PFM, HDR), RGBA8 otherwise.
// Throws IoError naming the file.
Frame read_frame(const std::string& path);

// Playback time of a sequence: runs at `fps` while playing, stands still while paused, and
// counts frames from 0. Frame n is due at n / fps seconds of playing time.
class FrameClock {
 public:
  using clock = std::chrono::steady_clock;
  explicit FrameClock(double fps);
  double fps() const { return fps_; }
  void set_paused(bool paused, clock::time_point now = clock::now());
  bool paused() const { return paused_; }
  // Seconds of playing time at `now`.
  double seconds(clock::time_point now = clock::now()) const;
  // The number of the frame due at `now`.
  std::int64_t frame(clock::time_point now = clock::now()) const;
  // When frame `n` falls due; meaningless while paused.
  clock::time_point due(std::int64_t n) const;
  // Moves playing time to the start of frame `n` (a step while paused, a restart after a loop).
  void seek(std::int64_t n, clock::time_point now = clock::now());

 private:
  double fps_;
  bool paused_ = false;
  clock::time_point start_;   // when playing time 0 was (valid while playing)
  double paused_at_s_ = 0.0;  // playing time frozen while paused
};

// A sequence drawn on demand by its clock, with no worker thread (the moving bar, a TIFF's pages):
// poll() renders frame n = clock.frame() with `render` when n changes and delivers it as
// Source::poll does; paused, step() moves one frame on. Thread-safe.
class ClockedFrames {
 public:
  using Render = std::function<Frame(std::int64_t n)>;
  ClockedFrames(double fps, Render render);  // renders frame 0 here
  bool poll(Frame& frame);
  void set_paused(bool paused);
  void step();
  double fps() const { return clock_.fps(); }
  std::int64_t shown() const;

 private:
  mutable std::mutex mutex_;
  FrameClock clock_;
  Render render_;
  std::int64_t shown_ = 0;
  Frame frame_;
};

// How a sequence's worker thread paces its frames (folders, videos): the next frame is shown when
// its time comes while playing, or at once on a step while paused, and a producer slower than the
// frame rate plays slower rather than in bursts. The source's mutex guards it: set_paused() and
// step() take that mutex themselves (UI thread) and wake the worker; the rest run on the worker
// with the mutex held.
class Pacer {
 public:
  // `first`: the sequence number of the first frame the worker shows.
  Pacer(double fps, std::int64_t first, std::mutex& mutex, std::condition_variable& wake)
      : clock(fps), mutex_(mutex), wake_(wake), next_(first) {}

  void set_paused(bool paused);
  void step();

  // Waits, releasing `lock` meanwhile, until the next frame may be shown; false once `stop` is
  // set (the source sets it under the mutex and notifies `wake`).
  bool wait_for_turn(std::unique_lock<std::mutex>& lock, const bool& stop);
  // Starts playing time at the next frame (when the first picture arrives).
  void start_here() { clock.seek(next_); }
  // The next frame has been shown.
  void shown();

  FrameClock clock;

 private:
  std::mutex& mutex_;
  std::condition_variable& wake_;
  std::int64_t next_;  // sequence number of the next frame shown
  bool step_requested_ = false;
};

}  // namespace rf::app::detail
