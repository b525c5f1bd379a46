// What the Timing panel plots and a --frames run sums up: the filter path's time per finished
// frame, GPU frame-to-frame intervals, arrival-to-display latencies, new frames per second, and
// the UI's own frame time (wall clock). No GL.
#pragma once

#include <chrono>
#include <deque>
#include <vector>

#include "app/gui/frame_timing.h"

namespace rf::gui {

class FrameStats {
 public:
  using Clock = std::chrono::steady_clock;
  // Each history keeps its newest kHistory values.
  static constexpr std::size_t kHistory = 240;

  // `keep_log`: every finished frame's timing is kept for the summary of a --frames run.
  explicit FrameStats(bool keep_log = false) : keep_log_(keep_log) {}

  // Once per UI frame: the wall-clock time since the previous one.
  void ui_frame(Clock::time_point now);
  // A frame the processor finished, at `now`.
  void finished(const FrameTiming& t, Clock::time_point now);
  // Forgets finish times more than a second before `now` (throughput is over the last second).
  void expire(Clock::time_point now);

  // Source frames finished per second, wall clock, over the last second.
  double throughput_fps() const;
  // Mean of the recent UI frame times (wall clock: offscreen runs use a fixed ImGui clock).
  double ui_frame_ms() const;

  const std::deque<float>& path_ms() const { return path_ms_; }          // newest last
  const std::deque<float>& interval_ms() const { return interval_ms_; }  // pipelined frames
  const std::deque<float>& latency_ms() const { return latency_ms_; }    // new frames
  const std::vector<FrameTiming>& log() const { return log_; }

 private:
  bool keep_log_ = false;
  std::deque<float> path_ms_, interval_ms_, latency_ms_, ui_ms_;
  std::vector<FrameTiming> log_;
  std::deque<Clock::time_point> finish_times_;  // of new frames, over the last second
  Clock::time_point last_ui_frame_ = Clock::now();
};

}  // namespace rf::gui
