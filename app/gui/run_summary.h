// What a --frames run prints when it ends: the wall-clock time per rendered frame, and the
// medians of the filter path's parts over the frames it finished (and, pipelined, the GPU's
// frame-to-frame time). No GL.
#pragma once

#include <string>
#include <vector>

#include "app/gui/frame_timing.h"

namespace rf::gui {

// `frame_ms`: each rendered frame's wall-clock time (the first, set-up, and the last, truth wait
// and capture, are left out); `width` x `height`: the framebuffer; `log`: every finished frame's
// timing (the first run, planning and graph capture, left out); `path`: the processor's path
// line. Lines of "rfstudio: ..." each ending in a newline; empty for runs of 3 frames or fewer.
std::string run_summary(const std::vector<double>& frame_ms, int width, int height,
                        const std::vector<FrameTiming>& log, const std::string& path);

}  // namespace rf::gui
