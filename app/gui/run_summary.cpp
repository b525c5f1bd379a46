#include "app/gui/run_summary.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace rf::gui {
namespace {

// printf into a string of any length.
std::string format(const char* fmt, ...) {
  va_list args, copy;
  va_start(args, fmt);
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(std::size_t(std::max(n, 0)), '\0');
  std::vsnprintf(out.data(), out.size() + 1, fmt, args);
  va_end(args);
  return out;
}

// Over every run, the runs with a new frame, or the runs the view drew.
enum class Runs { All, Uploads, Drawn };

// The median of `get` over the runs of the log after the first.
template <class Get>
double median_of(const std::vector<FrameTiming>& log, Get get, Runs runs) {
  std::vector<double> v;
  for (std::size_t i = 1; i < log.size(); ++i)
    if (runs == Runs::All || (runs == Runs::Uploads ? log[i].uploaded : log[i].drawn))
      v.push_back(get(log[i]));
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The median over the runs with a new frame, "-" where none after the first had one (a still
// image without --upload-every-frame).
template <class Get>
std::string upload_median(const std::vector<FrameTiming>& log, Get get, std::size_t uploads) {
  return uploads ? format("%.3f ms", median_of(log, get, Runs::Uploads)) : "-";
}

std::string wall_clock_line(const std::vector<double>& frame_ms, int width, int height) {
  std::vector<double> steady(frame_ms.begin() + 1, frame_ms.end() - 1);
  std::sort(steady.begin(), steady.end());
  const double median = steady[steady.size() / 2];
  return format(
      "rfstudio: %zu frames at %dx%d, median %.2f ms per frame (%.1f fps) wall clock, "
      "UI and filter path included\n",
      steady.size(), width, height, median, 1000.0 / median);
}

// Upload over the runs that moved a new frame.
std::string filter_path_line(const std::vector<FrameTiming>& log, const std::string& path,
                             std::size_t uploads) {
  const std::string with_frames =
      uploads ? format("%zu runs with a new frame", uploads)
              : "no run with a new frame; --upload-every-frame sends the frame again each run";
  return format(
      "rfstudio: filter path over %zu runs (%s, %s): median upload %s (%s), filter %.3f ms, "
      "interop %.3f ms; median total %s with upload, %.3f ms without\n",
      log.size() - 1, log.back().gpu_events ? "CUDA events" : "host clock", path.c_str(),
      upload_median(
          log, [](const FrameTiming& t) { return t.upload_ms; }, uploads)
          .c_str(),
      with_frames.c_str(),
      median_of(
          log, [](const FrameTiming& t) { return t.filter_ms; }, Runs::All),
      median_of(
          log, [](const FrameTiming& t) { return t.interop_ms; }, Runs::Drawn),
      upload_median(
          log, [](const FrameTiming& t) { return t.total_ms(); }, uploads)
          .c_str(),
      median_of(
          log, [](const FrameTiming& t) { return t.filter_ms + t.interop_ms; }, Runs::All));
}

// The pipelined path: frames overlap, so the time per frame is the interval between completions,
// not the sum of the stages. Several frames can be queued in one UI frame, so the intervals come
// in bursts: their mean is the GPU time per frame the path sustains (its throughput), their
// median the pace within a burst. Only the newest finished frame is drawn.
std::string pipelined_line(const std::vector<FrameTiming>& log, std::size_t uploads) {
  std::size_t drawn = 0;
  double interval_sum = 0.0;
  for (std::size_t i = 1; i < log.size(); ++i) {
    drawn += log[i].drawn;
    interval_sum += log[i].interval_ms;
  }
  const double mean = interval_sum / double(log.size() - 1);
  return format(
      "rfstudio: pipelined frames (%zu with a new frame, %zu drawn): median convert %s, "
      "readback %s, present %.3f ms, GPU frame to frame %.3f ms mean (%.0f frames per "
      "second), median %.3f ms, arrival to display %s\n",
      uploads, drawn,
      upload_median(
          log, [](const FrameTiming& t) { return t.convert_ms; }, uploads)
          .c_str(),
      upload_median(
          log, [](const FrameTiming& t) { return t.readback_ms; }, uploads)
          .c_str(),
      median_of(
          log, [](const FrameTiming& t) { return t.interop_ms; }, Runs::Drawn),
      mean, mean > 0.0 ? 1000.0 / mean : 0.0,
      median_of(
          log, [](const FrameTiming& t) { return t.interval_ms; }, Runs::All),
      upload_median(
          log, [](const FrameTiming& t) { return t.latency_ms; }, uploads)
          .c_str());
}

}  // namespace

std::string run_summary(const std::vector<double>& frame_ms, int width, int height,
                        const std::vector<FrameTiming>& log, const std::string& path) {
  if (frame_ms.size() <= 3) return {};
  std::string out = wall_clock_line(frame_ms, width, height);
  if (log.size() <= 2) return out;
  std::size_t uploads = 0;
  for (std::size_t i = 1; i < log.size(); ++i) uploads += log[i].uploaded;
  out += filter_path_line(log, path, uploads);
  if (log.back().pipelined) out += pipelined_line(log, uploads);
  return out;
}

}  // namespace rf::gui
