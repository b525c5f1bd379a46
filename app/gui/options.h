// rfstudio's command line: rfcli's filter options, a source, the view, and offscreen rendering.
#pragma once

#include <optional>
#include <string>

#include "app/gui/recorder.h"
#include "app/gui/view_settings.h"
#include "app/sources/source.h"
#include "filters/core/spec.h"

namespace rf::gui {

enum class SourceKind { Default, Image, Folder, Video, Camera, Pattern };

struct SourceChoice {
  SourceKind kind = SourceKind::Default;         // Default: the embedded astronaut
  std::string path;                              // file, folder, device or pattern name
  int width = 512, height = 512;                 // pattern size
  double fps = 10.0;                             // folder playback rate
  bool loop = true;                              // folders and videos start over at the end
  app::Encoding encoding = app::Encoding::Rgba;  // patterns: delivered as a YUYV or NV12 camera
};

// How sources advance. Realtime: at their own rate (a camera, a video's clock); whatever arrives
// is shown, filtered and recorded. Step: one source frame after the other as the filter takes
// them, none skipped (sequences are stepped, cameras waited for, stills repeated; the GPU path
// takes several per rendered frame), so a --frames N run covers exactly N frames.
enum class Pace { Realtime, Step };

struct StudioOptions {
  FilterSpec spec;
  SourceChoice source;
  ViewSettings view;
  DiffSettings diff;
  std::string preset;  // applied first; explicit options override it
  bool offscreen = false;
  int frames = 0;  // 0: run until closed (window); offscreen defaults to 3
  std::string screenshot;
  int width = 1600, height = 960;
  float ui_scale = 0.0f;  // 0: the monitor's content scale
  bool hide_ui = false;
  bool live = false;          // filter every frame even when nothing changed (live timing)
  bool no_truth = false;      // start with the ground truth off
  bool gpu_stages = false;    // per-stage CUDA times (launches each stage, no CUDA graph)
  std::string export_stem;    // after the last frame: result PNG + PFM, JSON sidecar, view PNG
  bool race = false;          // run the algorithm race once the first frame is in
  std::string lessons_dir;    // lesson presets added to the built-in ones
  RecordSettings record;      // record.path non-empty: record from the first frame
  std::string output_device;  // a V4L2 output (v4l2loopback) the filtered frames are written to
  // Step by default for an offscreen --frames run that records, else realtime.
  Pace pace = Pace::Realtime;
  // Upload and convert the current frame on every rendered frame, as if it were new (timing).
  bool upload_every_frame = false;
};

// Parses argv. Returns an exit code when the program should stop (help printed: 0, an error
// printed: 2), nothing when it should run. Explicit options override the preset's values.
std::optional<int> parse_options(int argc, char** argv, StudioOptions* options);

}  // namespace rf::gui
