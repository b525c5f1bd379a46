// What the panels edit: plain values, as Dear ImGui's examples keep an application's state.
// Widgets, keys, presets and the command line change these; Studio::frame() and the services read
// them, and filtering happens in one place per frame.
#pragma once

#include <string>

#include "app/gui/options.h"
#include "app/gui/recorder.h"
#include "app/gui/view_settings.h"
#include "filters/core/spec.h"

namespace rf::gui {

struct StudioState {
  FilterSpec spec;
  bool filter_every_frame = false;  // live timing; off: filter only on change
  ViewSettings view;
  DiffSettings diff;
  bool truth_enabled = true;
  RecordSettings record_settings;      // codec and frame rate of the next recording
  std::string output_device;           // the camera-out device the panel opens
  std::string export_dir = "out";      // exports, screenshots and recordings go here
  bool open_dialog_requested = false;  // Ctrl+O or its button: the dialog opens
};

// The state a run starts from: the command line's filter, view and diff settings (a preset
// applied already), live timing, the truth on or off, the recording's codec and frame rate (its
// file is the command line's own), the camera-out device.
StudioState initial_state(const StudioOptions& options);

}  // namespace rf::gui
