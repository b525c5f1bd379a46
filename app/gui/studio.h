// The application's state and its per-frame work, between main()'s platform loop and the panels.
// Widgets change `spec`, `view` and `diff` only; frame() filters in one place (the Processor) and
// keeps the truth, the profiles and the impulse probe in step with them.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/compositor.h"
#include "app/gui/export.h"
#include "app/gui/gl_util.h"
#include "app/gui/lessons.h"
#include "app/gui/options.h"
#include "app/gui/platform.h"
#include "app/gui/processing.h"
#include "app/gui/race.h"
#include "app/gui/response_data.h"
#include "app/gui/source_slot.h"
#include "app/gui/truth.h"
#include "app/gui/video_out.h"
#include "app/gui/view_math.h"

namespace rf::gui {

struct Message {
  std::string text;
  bool error = false;
  double time = 0.0;  // ImGui::GetTime() when posted
};

// A line across the image: input, result, truth and the result under every extension.
struct ProfileData {
  std::uint64_t key = 0;
  bool vertical = false;
  int line = 0;
  std::vector<float> input, result, truth;
  std::vector<std::vector<float>> by_extension;  // indexed by int(Extension)
  std::string error;
};

// The response to one bright pixel at (x, y), for the log-scale impulse view.
struct ImpulseData {
  std::uint64_t key = 0;
  int x = 0, y = 0;
  Image response;  // 1 channel
  Texture texture;
  double min_nonzero = 0.0, max = 0.0;
  std::string error;
};

// The canvas rectangle in ImGui coordinates (points).
struct CanvasRect {
  float x = 0, y = 0, w = 0, h = 0;
};

class Studio {
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
  bool done() const { return run_done_; }
  // 0, or 1 when the recording asked for on the command line failed.
  int exit_code() const { return record_failed_ ? 1 : 0; }
  // Waits for the frames in flight and finishes the recording (its file complete); the
  // destructor does it too.
  void finish();

  // The state the panels read and change.
  FilterSpec spec;
  ViewSettings view;
  DiffSettings diff;
  bool filter_every_frame = false;  // live timing; off: filter only on change
  bool truth_enabled = true;

  SourceSlot source;
  Processor processor;
  TruthWorker truth_worker;
  // Declared after the processor: destroyed first, so a recording finishes while the frames it
  // holds are still valid.
  VideoOut video_out;

  // Truth as last computed for the current result (empty while computing or disabled).
  TruthResult truth;
  bool truth_current = false;  // truth matches the shown result and settings
  Texture truth_texture;
  ProfileData profile;
  ImpulseData impulse;
  ResponseData response;  // of `spec`, while the response view shows

  // The algorithm race: on request, on a worker thread; `race` is the last one finished.
  RaceWorker race_worker;
  RaceResult race;
  void request_race();
  // True when `race` was run on the current frame with the current spec and backend.
  bool race_current() const { return !race.entries.empty() && race.key == race_key(); }

  // Lessons: the deck, the preset whose card shows (lesson_index into the deck, -1 when the
  // preset is not in it), and whether the card was just opened (the panel unfolds).
  LessonDeck lessons;
  Preset lesson;
  int lesson_index = -1;
  bool lesson_opened = false;
  // Applies a preset's JSON over the current state. `origin` names it (a built-in name or a
  // path) for messages and the deck; a preset with a lesson card shows it.
  void apply_preset_json(const std::string& origin, const nlohmann::json& json);
  void open_lesson(int index);

  std::deque<float> frame_ms_history;   // the filter path's total per frame, newest last
  std::vector<FrameTiming> timing_log;  // every run of a --frames run, for its summary
  std::deque<float> ui_ms_history;      // whole UI frame time, wall clock
  std::deque<float> interval_history;   // GPU frame-to-frame times of pipelined frames
  std::deque<float> latency_history;    // arrival-to-display latencies
  // Source frames finished per second, wall clock, over the last second.
  double throughput_fps() const;
  // Mean of the recent UI frame times (wall clock: offscreen runs use a fixed ImGui clock).
  double ui_frame_ms() const;
  std::vector<Message> messages;
  std::string export_dir = "out";
  std::string last_export;            // the stem of the last export that wrote its files
  std::uint64_t exports_written = 0;  // exports that wrote their files
  bool open_dialog_requested = false;

  void post(std::string text, bool error = false);
  // Recording (the Record button, Ctrl+R): to the next free rfstudio-NNN file in export_dir.
  void toggle_recording();
  void start_recording(RecordSettings settings);
  void stop_recording();
  RecordSettings record_settings;  // codec and frame rate of the next recording
  // Camera out: the filtered frames to a V4L2 output device.
  void open_output_device(const std::string& device);
  void close_output_device();
  std::string output_device;  // the device the panel opens
  void open_source(const SourceChoice& choice);
  void open_path(const std::string& path);
  void fit_view() { auto_fit_ = true; }
  void one_to_one();
  // Written once the current frame is drawn.
  void request_screenshot(const std::string& path) { screenshot_paths_.push_back(path); }
  // STEM-result.png, STEM-result.pfm, STEM.json (parameters, timings, statistics) and, after
  // this frame is drawn, STEM-view.png. A relative stem lands in export_dir. The result and the
  // sidecar are written on the export thread: a later frame posts "exported" or the failure.
  void export_all(const std::string& stem);
  // Returns once the exports asked for are written, their messages posted.
  void wait_exports();
  // The next free "rfstudio-NNN" stem in export_dir.
  std::string next_export_stem() const;
  std::string sidecar_json() const;
  const Platform& platform() const { return platform_; }
  const CanvasRect& canvas() const { return canvas_; }
  const ViewTransform& transform() const { return transform_; }
  // Pixel under the mouse, -1 when outside the image.
  int hover_x = -1, hover_y = -1;
  float result_gain() const;
  int band() const;

 private:
  void apply_pace(SourceKind kind);
  std::string next_record_path(const char* extension) const;
  bool take_new_frame();
  void consume_finished();
  void handle_keys();
  void handle_canvas_mouse();
  void update_layout();
  float left_panel_width() const;
  float right_panel_width() const;
  void update_truth();
  void update_profile();
  void update_impulse();
  void show_lesson(const Preset& preset, LessonEntry entry);
  void update_response();
  void update_race();
  std::uint64_t race_key() const;
  void draw_overlays();
  Rect content_rect() const;
  std::vector<std::pair<CanvasRect, int>> panes() const;  // rect and shader mode

  StudioOptions options_;
  Platform& platform_;
  std::unique_ptr<Compositor> compositor_;
  CanvasRect canvas_;
  ViewTransform transform_;
  bool auto_fit_ = true;
  ViewMode fitted_mode_ = ViewMode::Result;
  int fitted_w_ = 0, fitted_h_ = 0;
  ViewMode mode_before_diff_ = ViewMode::Result;
  bool dragging_ = false, dragging_split_ = false;
  std::uint64_t truth_key_ = 0, requested_truth_key_ = 0;
  bool response_valid_ = false;
  bool race_requested_ = false;  // --race, once
  std::vector<std::string> screenshot_paths_;
  int frame_count_ = 0;
  std::chrono::steady_clock::time_point last_frame_time_ = std::chrono::steady_clock::now();
  int max_texture_size_ = 0;
  std::string title_;
  app::Frame scaled_frame_;  // the source's frame halved to the texture limit, when it exceeds it
  std::uint64_t last_source_index_ = ~0ull;
  // Source frames handed to the processor (--pace step counts these), and when new frames
  // finished over the last second (the throughput).
  std::uint64_t frames_taken_ = 0;
  std::deque<std::chrono::steady_clock::time_point> finish_times_;
  bool last_frame_ = false, run_done_ = false;
  bool record_failed_ = false, cli_recording_ = false;
  bool stalled_ = false, finished_ = false;
  std::chrono::steady_clock::time_point last_taken_ = std::chrono::steady_clock::now();
  std::string pending_device_;  // --output-device, opened once the frame size is known
  std::vector<std::string> pending_exports_;  // stems given to the writer, not yet written
  FileWriter writer_;                         // last: its thread finishes before the rest goes

  void collect_exports();
};

}  // namespace rf::gui
