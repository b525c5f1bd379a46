// What one filtered frame cost, stage by stage, as the Timing panel and the JSON sidecar show it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "filters/core/engine.h"

namespace rf::gui {

struct FrameTiming {
  double upload_ms = 0.0;    // host frame to where the filter reads it (CPU: 8-bit to float)
  double convert_ms = 0.0;   // GPU: the frame as it came (RGBA8, YUYV, NV12) to float RGBA
  double filter_ms = 0.0;    // the engine's run, all stages
  double interop_ms = 0.0;   // pipelined: the present (map, copy into the view's textures, unmap,
                             // GL's wait included); copy path: glTexSubImage2D
  double readback_ms = 0.0;  // the 8-bit result to pinned host memory, for recording and camera
                             // out (its own stream: it delays neither the next frame nor the view)
  // Pipelined GPU path: GPU time from the previous frame's completion to this one's, the
  // frame-to-frame time (with uploads overlapping filters it is less than total_ms()).
  double interval_ms = 0.0;
  // Wall clock from the frame's arrival from the source to the moment the UI saw it finished
  // (the next drawn frame shows it).
  double latency_ms = 0.0;
  std::vector<StageTime> stages;  // the engine's own breakdown
  bool gpu_events = false;        // CUDA events (GPU time) rather than host timers
  bool interop = false;           // the CUDA-GL interop path (upload and interop are ours)
  bool pipelined = false;         // frames overlap: interval_ms is the frame-to-frame time
  bool uploaded = true;           // this run moved a new frame to where the filter reads it
  bool drawn = true;  // the view showed it (the pipelined path presents only the newest finished)
  // The frame's stages one after another (its GPU latency on the pipelined path).
  double total_ms() const { return upload_ms + convert_ms + filter_ms + interop_ms; }
};

}  // namespace rf::gui
