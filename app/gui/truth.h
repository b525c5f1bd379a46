// Ground truth for the diff view, computed off the UI thread: long FIR convolutions in double must
// not freeze the interface. One job at a time; a newer request replaces a pending one and cancels
// the running one. The UI shows progress and can cancel.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "app/gui/diff_stats.h"
#include "app/gui/latest_job_worker.h"
#include "app/gui/view_settings.h"
#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf::gui {

struct TruthRequest {
  FilterSpec spec;  // the spec of the result being judged
  TruthMode mode = TruthMode::Fir;
  Extension truth_ext = Extension::Mirror;
  Image input;   // float RGBA
  Image result;  // float RGBA, the result to compare
  int band = 12;
  std::uint64_t key = 0;  // the caller's identity of (frame, spec, settings)
};

struct TruthResult {
  Image truth;
  DiffStats stats;
  std::string label;  // "FIR Gaussian in double, mirror", ...
  std::string error;  // non-empty when the truth could not be computed
  double ms = 0.0;
  std::uint64_t key = 0;
};

// Whether the truth modes apply to `spec`: the edge-aware filter has one truth, its own double
// reference, whatever the mode (the diff panel greys the choice).
bool truth_modes_apply(const FilterSpec& spec);

// What the truth of `request` is called, for the UI, and the spec it is computed for: Ignore is
// not an extension, so its truth uses `truth_ext`.
std::string truth_label(const TruthRequest& request);

// The extension the truth of `request` is computed with, as the diff panel's box shows it, and
// whether `truth_ext` chose it (the filter ignores boundaries, or the truth is the same filter
// under another extension) rather than the filter's own extension.
Extension truth_extension(const TruthRequest& request, bool* chosen = nullptr);

// Computes synchronously; `progress` in [0, 1] is updated and `cancel` polled between lines or
// channels (returns an empty truth with error "cancelled").
TruthResult compute_truth(const TruthRequest& request, std::atomic<float>* progress,
                          const std::atomic<bool>* cancel);

// The truth on a worker thread, the newest request winning (offscreen screenshots wait_idle()).
class TruthWorker : public LatestJobWorker<TruthRequest, TruthResult> {
 public:
  TruthWorker() : LatestJobWorker(compute_truth) {}
};

}  // namespace rf::gui
