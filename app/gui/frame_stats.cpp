#include "app/gui/frame_stats.h"

#include <algorithm>

namespace rf::gui {
namespace {

void push_history(std::deque<float>& d, float v) {
  d.push_back(v);
  while (d.size() > FrameStats::kHistory) d.pop_front();
}

}  // namespace

void FrameStats::ui_frame(Clock::time_point now) {
  push_history(ui_ms_, std::chrono::duration<float, std::milli>(now - last_ui_frame_).count());
  last_ui_frame_ = now;
}

void FrameStats::finished(const FrameTiming& t, Clock::time_point now) {
  push_history(path_ms_, float(t.total_ms()));
  if (t.pipelined && t.interval_ms > 0.0) push_history(interval_ms_, float(t.interval_ms));
  if (t.uploaded) {
    push_history(latency_ms_, float(t.latency_ms));
    finish_times_.push_back(now);
  }
  if (keep_log_) log_.push_back(t);
}

void FrameStats::expire(Clock::time_point now) {
  while (!finish_times_.empty() && now - finish_times_.front() > std::chrono::seconds(1))
    finish_times_.pop_front();
}

double FrameStats::throughput_fps() const {
  if (finish_times_.size() < 2) return 0.0;
  const double span =
      std::chrono::duration<double>(finish_times_.back() - finish_times_.front()).count();
  return span > 0.0 ? double(finish_times_.size() - 1) / span : 0.0;
}

double FrameStats::ui_frame_ms() const {
  if (ui_ms_.empty()) return 0.0;
  const std::size_t n = std::min<std::size_t>(ui_ms_.size(), 60);
  double sum = 0;
  for (std::size_t i = ui_ms_.size() - n; i < ui_ms_.size(); ++i) sum += ui_ms_[i];
  return sum / double(n);
}

}  // namespace rf::gui
