#include "app/gui/ground_truth.h"

#include <algorithm>

#include "app/gui/diff_stats.h"
#include "app/gui/spec_key.h"

namespace rf::gui {

int band_width(const FilterSpec& spec, const DiffSettings& diff) {
  // The border band holds the wider of the two axes' Gaussians.
  return diff.auto_band ? default_band(std::max(spec.sigma, sigma_along(spec, Axis::Y)))
                        : std::max(1, diff.band);
}

void GroundTruth::request(const FilterSpec& spec, const DiffSettings& diff, Processor& processor,
                          std::uint64_t key) {
  TruthRequest r;
  r.spec = spec;
  r.mode = diff.truth;
  r.truth_ext = diff.truth_ext;
  r.input = processor.input();
  r.result = processor.result();
  r.band = band_width(spec, diff);
  r.key = key;
  worker_.request(std::move(r));
  requested_key_ = key;
}

bool GroundTruth::take(MessageLog& log) {
  auto done = worker_.take();
  if (!done) return true;
  if (!done->error.empty() && done->error != "cancelled")
    log.post("ground truth: " + done->error, true);
  if (done->truth.empty()) return false;
  result_ = std::move(*done);
  texture_.allocate(GL_RGBA32F, result_.truth.width, result_.truth.height);
  texture_.upload(GL_RGBA, GL_FLOAT, result_.truth.pixels.data());
  key_ = result_.key;
  return true;
}

void GroundTruth::update(const FilterSpec& spec, const DiffSettings& diff, bool enabled, bool live,
                         Processor& processor, bool wait, MessageLog& log) {
  if (!enabled || !processor.has_frame()) {
    // The kept truth may be of another frame, even of another size, by the time it is read.
    current_ = false;
    return;
  }
  // The same spec on the same frame gives the same result: live re-filtering asks for nothing.
  std::uint64_t key = hash_combine(hash_spec(spec), processor.frame_version());
  key = hash_combine(key, std::uint64_t(diff.truth) << 8 | std::uint64_t(diff.truth_ext));
  key = hash_combine(key, std::uint64_t(processor.running_backend()));
  // The result on screen must be the current frame's: frames still in flight wait.
  if (key != requested_key_ && (!live || !worker_.busy()) && processor.settled())
    request(spec, diff, processor, key);
  if (wait) worker_.wait_idle();
  // A job that ended without a truth leaves the state as it was.
  if (!take(log)) return;
  current_ = !result_.truth.empty() && key_ == requested_key_ &&
             result_.truth.width == processor.width() && result_.truth.height == processor.height();
  // The band is a statistic only: a new width recomputes the numbers, not the truth.
  const int band = band_width(spec, diff);
  if (current_ && result_.stats.band != band)
    result_.stats = diff_stats(processor.result(), result_.truth, band);
}

}  // namespace rf::gui
