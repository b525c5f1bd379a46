// What one filtered frame cost, stage by stage, as the Timing panel and the JSON sidecar show it.
#pragma once

#include <string>
#include <vector>

#include "filters/core/engine.h"

namespace rf::gui {

struct FrameTiming {
  double upload_ms = 0.0;   // host frame to where the filter reads it (CPU: 8-bit to float)
  double filter_ms = 0.0;   // the engine's run, all stages
  double interop_ms = 0.0;  // map/unmap of the GL texture, or glTexSubImage2D on the copy path
  std::vector<StageTime> stages;  // the engine's own breakdown
  bool gpu_events = false;        // CUDA events (GPU time) rather than host timers
  bool interop = false;           // the CUDA-GL interop path (upload and interop are ours)
  bool uploaded = true;           // this run moved a new frame to where the filter reads it
  double total_ms() const { return upload_ms + filter_ms + interop_ms; }
};

}  // namespace rf::gui
