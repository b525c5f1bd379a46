// The synthetic patterns behind open_pattern(), exposed for menus, figures and tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/sources/source.h"

namespace rf::app {

// impulses, steps, checkerboard, periodic, noise, moving-bar: in menu order.
const std::vector<std::string>& pattern_names();

constexpr int kMaxPatternSize = 16384;
constexpr double kMovingBarFps = 30.0;
constexpr std::uint64_t kPatternNoiseSeed = 0x5eed2016;

// The grid pitch of the impulses and checkerboard patterns: min(width, height) / 8, kept within
// 1..64 px. Impulses sit at (s/2 + i s, s/2 + j s) for s = pattern_cell_size(width, height).
int pattern_cell_size(int width, int height);

// Frame `frame` (0, 1, ...) of a pattern as RGBA8 with alpha 255; only moving-bar depends on the
// frame number. The result's index is left 0. Throws InvalidParameter for an unknown name or a
// size outside 1..kMaxPatternSize.
//   impulses:     white single pixels on black, on the grid above.
//   steps:        four flat coloured quadrants split at (width/2, height/2): step edges that run
//                 into every border.
//   checkerboard: squares of pattern_cell_size() in gray 0.15 and 0.85.
//   periodic:     cosines with whole periods across the image: it tiles seamlessly.
//   noise:        uniform RGB from a fixed seed.
//   moving-bar:   a white bar (width / 16 px) on dark gray moving right by max(1, width / 128) px
//                 a frame at kMovingBarFps, wrapping around.
Frame render_pattern(const std::string& name, int width, int height, std::int64_t frame = 0);
// The same frame in a camera's encoding (Yuyv or Nv12 at the smallest stride; Rgba as above), for
// exercising the camera formats' path without a camera.
Frame render_pattern(const std::string& name, int width, int height, std::int64_t frame,
                     Encoding encoding);

// An RGBA8 frame in a camera's encoding, at the smallest stride.
Frame encode_frame(const Frame& rgba, Encoding encoding);

}  // namespace rf::app
