// Export of what the studio shows: the result as PNG and PFM with a JSON sidecar, written on the
// export thread (export.h) while the studio goes on, and screenshots of the finished framebuffer.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/gui/export.h"
#include "app/gui/ground_truth.h"
#include "app/gui/messages.h"
#include "app/gui/presets.h"
#include "app/gui/processing.h"

namespace rf::gui {

// The sidecar of an export: the preset of the state, the filter, the source, the size, the
// backend and path, the newest frame's timing, and the truth's statistics when current.
std::string sidecar_json(const Preset& preset, const std::string& source,
                         const Processor& processor, const GroundTruth& truth, double ui_frame_ms);

class Exporter {
 public:
  // `sidecar` gives the JSON written beside each result; messages for people go to `log`.
  Exporter(Processor& processor, std::function<std::string()> sidecar, MessageLog& log)
      : processor_(processor), sidecar_(std::move(sidecar)), log_(log) {}

  // STEM-result.png, STEM-result.pfm, STEM.json and, after this frame is drawn, STEM-view.png. A
  // relative stem lands in `dir`. The frames in flight finish first; the result and the sidecar
  // are written on the export thread, and a later collect() posts "exported" or the failure.
  void export_all(const std::string& stem, const std::string& dir);
  // The next free "rfstudio-NNN" stem in `dir`, exports still being written counted.
  std::string next_stem(const std::string& dir) const;
  // Posts what the export thread finished since the last call; returns how many exports wrote
  // their files.
  int collect();
  // Returns once the exports asked for are written, their messages posted; returns as collect().
  int wait();

  // Written once the current frame is drawn.
  void request_screenshot(const std::string& path) { screenshots_.push_back(path); }
  // The screenshots asked for this frame (taken: the next frame asks anew).
  std::vector<std::string> take_screenshots();

 private:
  Processor& processor_;
  std::function<std::string()> sidecar_;
  MessageLog& log_;
  std::vector<std::string> pending_;      // stems given to the writer, not yet written
  std::vector<std::string> screenshots_;  // paths, written after this frame is drawn
  FileWriter writer_;                     // last: its thread finishes before the rest goes
};

}  // namespace rf::gui
