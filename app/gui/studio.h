// The application between main()'s platform loop and the panels: the state the panels edit
// (StudioState, plain values) and the services they call, each with one job, and the frame that
// runs them in order. Widgets change the state only; frame() filters in one place (the Processor)
// and keeps the truth, the probes and the race in step with it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "app/gui/algorithm_race.h"
#include "app/gui/canvas.h"
#include "app/gui/classroom.h"
#include "app/gui/compositor.h"
#include "app/gui/exporter.h"
#include "app/gui/frame_feed.h"
#include "app/gui/frame_stats.h"
#include "app/gui/ground_truth.h"
#include "app/gui/messages.h"
#include "app/gui/options.h"
#include "app/gui/platform.h"
#include "app/gui/processing.h"
#include "app/gui/source_slot.h"
#include "app/gui/stream_out.h"
#include "app/gui/studio_state.h"
#include "app/gui/view_probes.h"

namespace rf::gui {

class Studio : public StudioState {
 public:
  Studio(const StudioOptions& options, Platform& platform);
  ~Studio();

  // Input, sources, filtering, truth, panels: between ImGui::NewFrame() and ImGui::Render().
  void frame();
  // Draws the canvas into the platform's framebuffer, before ImGui's draw data.
  void render();
  // Work that needs the finished framebuffer (screenshots); before present().
  void after_render();
  // True once a --frames run has rendered its frames (with --pace step: once that many source
  // frames are filtered; finish() then completes their recording).
  bool done() const { return run_.done; }
  // 0, or 1 when the recording asked for on the command line failed.
  int exit_code() const { return stream_out.failed() ? 1 : 0; }
  // Waits for the frames in flight and finishes the recording (its file complete); the
  // destructor does it too.
  void finish();

  // What a person's actions do, for programs that drive the studio (tests, the soak).
  void open_source(const SourceChoice& choice);
  void open_path(const std::string& path);
  void export_all(const std::string& stem) { exporter.export_all(stem, export_dir); }
  std::string next_export_stem() const { return exporter.next_stem(export_dir); }
  // Returns once the exports asked for are written, their messages posted.
  void wait_exports() { exports_written += exporter.wait(); }

  // The services.
  MessageLog messages;
  SourceSlot source;
  Canvas canvas;
  Processor processor;
  GroundTruth truth;
  ViewProbes probes;
  AlgorithmRace race;
  Classroom classroom;
  FrameStats stats;
  // Declared after the processor: destroyed first, so a recording finishes while the frames it
  // holds are still valid.
  StreamOut stream_out;
  std::uint64_t exports_written = 0;  // exports that wrote their files

 private:
  // A --frames run: the frames rendered, and whether this one is the last (it waits for what is
  // in flight, the truth and the race, so that its screenshot and export show them).
  struct Run {
    int rendered = 0;
    bool last = false, done = false, finished = false;
  };

  void open_first_source();
  void pump_frames();
  void consume_finished();
  void check_last_frame();
  void update_title();
  void handle_keys();
  void toggle_diff_view();
  void draw_panels();
  void draw_canvas_windows();
  PaneContent pane_content(int shader_mode, float scale_x, float scale_y) const;
  void write_screenshots(const std::vector<std::string>& paths);
  std::string sidecar() const;

  StudioOptions options_;
  Platform& platform_;
  std::unique_ptr<Compositor> compositor_;
  FrameFeed feed_;
  ViewMode mode_before_diff_ = ViewMode::Result;  // where D returns to
  Run run_;
  std::string title_;

 public:
  // Last: its thread finishes before the rest goes.
  Exporter exporter;
};

}  // namespace rf::gui
