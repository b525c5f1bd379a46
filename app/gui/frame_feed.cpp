#include "app/gui/frame_feed.h"

#include <algorithm>
#include <string>

namespace rf::gui {
namespace {

app::Frame halve(const app::Frame& cur) {
  app::Frame half;
  half.width = std::max(1, cur.width / 2);
  half.height = std::max(1, cur.height / 2);
  half.format = cur.format;
  half.index = cur.index;
  half.bytes.resize(std::size_t(half.width) * half.height * bytes_per_pixel(cur.format));
  auto sample = [&](std::size_t i, int c) {
    return cur.format == PixelFormat::RGBA8
               ? float(cur.bytes[i * 4 + c])
               : reinterpret_cast<const float*>(cur.bytes.data())[i * 4 + c];
  };
  for (int y = 0; y < half.height; ++y)
    for (int x = 0; x < half.width; ++x)
      for (int c = 0; c < 4; ++c) {
        float sum = 0;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx)
            sum += sample(std::size_t(std::min(2 * y + dy, cur.height - 1)) * cur.width +
                              std::min(2 * x + dx, cur.width - 1),
                          c);
        const std::size_t o = std::size_t(y) * half.width + x;
        // An average of bytes stays a byte, rounded.
        if (cur.format == PixelFormat::RGBA8)
          half.bytes[o * 4 + c] = std::uint8_t(sum * 0.25f + 0.5f);
        else
          reinterpret_cast<float*>(half.bytes.data())[o * 4 + c] = sum * 0.25f;
      }
  return half;
}

}  // namespace

app::Frame downscale_to_fit(const app::Frame& in, int limit) {
  app::Frame cur = in;
  while (cur.width > limit || cur.height > limit) cur = halve(cur);
  return cur;
}

bool FrameFeed::fresh_frame(SourceSlot& source) {
  bool fresh = source.poll();
  // Stepped, a still counts as a new frame every time.
  if (!fresh && stepped() && !source.animated() && source.has_frame()) fresh = true;
  if (fresh) return true;
  if (stepped() && frames_ > 0 &&
      std::chrono::duration<double>(Clock::now() - last_taken_).count() > kStallSeconds) {
    log_.post("the source delivered no new frame for " + std::to_string(int(kStallSeconds)) +
                  " s: stopping after " + std::to_string(taken_) + " frames",
              true);
    stalled_ = true;
  }
  return false;
}

const app::Frame& FrameFeed::fitted(app::Frame& f) {
  if (f.width <= max_texture_size_ && f.height <= max_texture_size_) return f;
  if (f.index != last_source_index_)
    log_.post("frame " + std::to_string(f.width) + "x" + std::to_string(f.height) +
                  " exceeds this GPU's texture limit of " + std::to_string(max_texture_size_) +
                  " px: filtering a downscaled copy",
              true);
  if (f.encoding != app::Encoding::Rgba) {
    app::Frame rgba;
    app::to_rgba(f, rgba);
    scaled_ = downscale_to_fit(rgba, max_texture_size_);
  } else {
    scaled_ = downscale_to_fit(f, max_texture_size_);
  }
  return scaled_;
}

bool FrameFeed::take(SourceSlot& source, Processor& processor, bool outputs_accept) {
  if (!processor.accepts_frame() || !outputs_accept) return false;
  if (stepped() && frames_ > 0 && taken_ >= std::uint64_t(frames_)) return false;
  if (!fresh_frame(source)) return false;
  last_taken_ = Clock::now();
  app::Frame& f = source.frame();
  // The source keeps the full-size original.
  processor.set_frame(fitted(f));
  last_source_index_ = f.index;
  ++taken_;
  if (stepped() && source.animated()) source.step();
  return true;
}

}  // namespace rf::gui
