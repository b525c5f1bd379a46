// Ground truth for the diff view, its statistics and the profile: asked of the worker (truth.h)
// when the frame, the spec or the truth settings change, and current while it belongs to the
// result on screen.
#pragma once

#include <cstdint>

#include "app/gui/gl_util.h"
#include "app/gui/messages.h"
#include "app/gui/processing.h"
#include "app/gui/truth.h"
#include "app/gui/view_settings.h"
#include "filters/core/spec.h"

namespace rf::gui {

// The border band of the statistics: 3 sigma, or the width the diff panel sets.
int band_width(const FilterSpec& spec, const DiffSettings& diff);

class GroundTruth {
 public:
  // Asks for the truth of the result on screen when it changed (once nothing is in flight, and
  // while a `live` source plays only when the worker is free), takes a finished one into its
  // texture, and keeps current() true while it matches. `wait`: waits for the worker first (the
  // last frame of a --frames run captures a finished picture). Off (`enabled` false), nothing is
  // current.
  void update(const FilterSpec& spec, const DiffSettings& diff, bool enabled, bool live,
              Processor& processor, bool wait, MessageLog& log);

  // The truth belongs to the shown result and the settings.
  bool current() const { return current_; }
  // As last computed (empty while computing or off).
  const TruthResult& result() const { return result_; }
  // Its key while current, else 0: what depends on the truth (the profile) keys on it.
  std::uint64_t key() const { return current_ ? key_ : 0; }
  GLuint texture() const { return texture_.id(); }

  bool busy() const { return worker_.busy(); }
  float progress() const { return worker_.progress(); }
  void cancel() { worker_.cancel(); }
  void wait_idle() { worker_.wait_idle(); }

 private:
  void request(const FilterSpec& spec, const DiffSettings& diff, Processor& processor,
               std::uint64_t key);
  // A finished job into the texture; false when it finished without a truth (cancelled, failed).
  bool take(MessageLog& log);

  TruthWorker worker_;
  TruthResult result_;
  bool current_ = false;
  Texture texture_;
  std::uint64_t key_ = 0, requested_key_ = 0;
};

}  // namespace rf::gui
