// The source's current frame as the filter paths take it: as it came (the pipelined GPU path
// converts camera formats itself), as RGBA for the copy path, and as float RGBA on [0, 1] for what
// on the host needs it (the CPU engine, the truth, the inspector). Each conversion is made on
// first use after a new frame. No GL.
#pragma once

#include <chrono>
#include <cstdint>

#include "app/sources/source.h"
#include "filters/core/image.h"

namespace rf::gui {

class FrameInput {
 public:
  using Clock = std::chrono::steady_clock;

  // A new frame from the source; it must stay alive and unchanged until the next set().
  void set(const app::Frame& frame);
  bool has_frame() const { return frame_ != nullptr && frame_->width > 0; }
  int width() const { return has_frame() ? frame_->width : 0; }
  int height() const { return has_frame() ? frame_->height : 0; }
  // Increases with every set(): the identity of the current frame.
  std::uint64_t version() const { return version_; }

  // When the frame arrived from the source.
  Clock::time_point arrival() const { return arrival_; }
  // The current frame sent again as if new (timing): it arrives now, and the conversion a path
  // uploads from (prepared) is made again on its next use. The version stays.
  void resend();

  // The frame as a path takes it. The GPU path: RGBA8, RGBA32F or a camera format as it came (a
  // one-channel float frame widened to RGBA); the copy path: RGBA (camera formats converted here).
  const app::Frame& prepared(bool for_gpu);

  // Float RGBA on [0, 1], 8-bit samples by the library's from_unorm8.
  const Image& input();
  // A host view of input(), for the engine.
  FrameView input_view();
  // The next input() converts the frame again: the copy path's upload of a frame sent again.
  // The host's other readers (truth, inspector) go by the version and need not.
  void reconvert_input() { input_version_ = ~0ull; }
  // input() holds the current frame already (no conversion on the next call).
  bool input_ready() const { return input_version_ == version_; }

 private:
  const app::Frame* frame_ = nullptr;  // the source's frame, as it came
  std::uint64_t version_ = 0;
  Clock::time_point arrival_;
  app::Frame converted_;  // the frame as the current path takes it, when it differs
  std::uint64_t converted_version_ = ~0ull;
  bool converted_for_gpu_ = false;
  Image input_;
  std::uint64_t input_version_ = ~0ull;
};

}  // namespace rf::gui
