// Source frames into the processor. One is taken when the processor and the outputs can take it
// (a frame they cannot take yet stays with the source, so none is lost between them); a frame
// beyond the GPU's texture limit is filtered halved until it fits, and the UI says so; with
// --pace step a --frames run takes exactly its frames, and ends when the source stops delivering.
#pragma once

#include <chrono>
#include <cstdint>

#include "app/gui/messages.h"
#include "app/gui/options.h"
#include "app/gui/processing.h"
#include "app/gui/source_slot.h"
#include "app/sources/source.h"

namespace rf::gui {

// Halves (2x2 box average, the last row or column repeated for odd sides) until both sides fit
// `limit`. RGBA8 and RGBA32F frames.
app::Frame downscale_to_fit(const app::Frame& in, int limit);

class FrameFeed {
 public:
  using Clock = std::chrono::steady_clock;
  // A stepped run whose source delivers nothing new for this long ends (a video that does not
  // loop, a camera unplugged) instead of waiting for ever.
  static constexpr double kStallSeconds = 10.0;

  // `frames`: the frames of a --frames run (0: no end).
  FrameFeed(Pace pace, int frames, MessageLog& log) : pace_(pace), frames_(frames), log_(log) {}
  void set_texture_limit(int max_texture_size) { max_texture_size_ = max_texture_size; }

  // One new source frame into the processor, when it and the outputs (`outputs_accept`) can
  // take one. True when it took one.
  bool take(SourceSlot& source, Processor& processor, bool outputs_accept);
  // Source frames handed to the processor (a stepped --frames run counts these).
  std::uint64_t taken() const { return taken_; }
  // A stepped --frames run's source delivered nothing for kStallSeconds.
  bool stalled() const { return stalled_; }

 private:
  bool stepped() const { return pace_ == Pace::Step; }
  // A new frame, or false (and, stepped, a stall noticed).
  bool fresh_frame(SourceSlot& source);
  // The frame as the processor can hold it: halved past the texture limit, the UI told once.
  const app::Frame& fitted(app::Frame& f);

  Pace pace_;
  int frames_;
  MessageLog& log_;
  int max_texture_size_ = 0;
  app::Frame scaled_;  // the source's frame halved to the texture limit, when it exceeds it
  std::uint64_t last_source_index_ = ~0ull;
  std::uint64_t taken_ = 0;
  Clock::time_point last_taken_ = Clock::now();
  bool stalled_ = false;
};

}  // namespace rf::gui
