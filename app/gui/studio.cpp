#include "app/gui/studio.h"

#include <imgui.h>

#include <chrono>
#include <cmath>
#include <exception>

#include "app/gui/colormap.h"
#include "app/gui/export.h"
#include "app/gui/overlays.h"
#include "app/gui/panels/panels.h"

namespace rf::gui {
namespace {

using Clock = std::chrono::steady_clock;

// How long one UI frame may spend taking several new frames for the pipelined GPU path.
constexpr std::chrono::milliseconds kTakeBudget{4};

// The fixed windows of the panels.
constexpr ImGuiWindowFlags kPanelFlags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                         ImGuiWindowFlags_NoCollapse |
                                         ImGuiWindowFlags_NoSavedSettings;

}  // namespace

Studio::Studio(const StudioOptions& options, Platform& platform)
    : StudioState(initial_state(options)),
      classroom(*this, source, canvas, messages),
      stats(options.frames > 0),
      stream_out(messages),
      options_(options),
      platform_(platform),
      feed_(options.pace, options.frames, messages),
      exporter(
          processor, [this] { return sidecar(); }, messages) {
  compositor_ = std::make_unique<Compositor>();
  mode_before_diff_ = view.mode == ViewMode::Diff ? ViewMode::Result : view.mode;
  processor.stage_timing = options.gpu_stages;
  processor.upload_every_frame = options.upload_every_frame;
  int max_texture_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture_size);
  feed_.set_texture_limit(max_texture_size);
  open_first_source();
  classroom.load_deck(options.lessons_dir);
  // The command line applied the preset already; its lesson card shows from the first frame.
  if (!options.preset.empty()) classroom.show_preset_file(options.preset);
  // Camera out opens once the frame size is known.
  if (!options.output_device.empty()) stream_out.open_device(options.output_device, processor);
  if (!options.record.path.empty())
    stream_out.start_command_line_recording(options.record, export_dir);
}

Studio::~Studio() {
  finish();
}

// Stepped runs pause sequences and step them one frame per rendered frame; cameras keep running
// and are waited for.
void Studio::open_first_source() {
  source.set_pace(options_.pace);
  const std::string err = source.open(options_.source);
  if (err.empty()) return;
  messages.post("cannot open the source: " + err + "; showing the built-in image", true);
  source.open({SourceKind::Default, {}});
}

void Studio::finish() {
  if (run_.finished) return;
  run_.finished = true;
  processor.settle();
  consume_finished();
  wait_exports();
  stream_out.finish();
}

void Studio::open_source(const SourceChoice& choice) {
  rf::gui::open_source(source, messages, choice);
}

void Studio::open_path(const std::string& path) {
  rf::gui::open_path(source, messages, path);
}

std::string Studio::sidecar() const {
  return sidecar_json(classroom.current("export"), source.description(), processor, truth,
                      stats.ui_frame_ms());
}

// Finished frames, in order: timing, throughput, and their 8-bit results to the recording and
// the camera output.
void Studio::consume_finished() {
  const auto now = Clock::now();
  for (PipelineFrame& f : processor.take_finished()) {
    stats.finished(f.timing, now);
    if (f.output) stream_out.offer(std::move(f.output));
  }
  stats.expire(now);
  stream_out.pump();
}

// Finished frames first (their slots take the next ones), then new frames and the filter. On
// the pipelined GPU path, as many new frames as the source has and the pipeline takes (one per
// free slot): the view draws the newest, and the source is filtered at the GPU's pace, not the
// UI's. A frame sent again for timing (--upload-every-frame) counts as new each time. Frames
// that cost the host time (a pattern rendered at 4K, a decoded video) stop the loop after
// kTakeBudget, so that the UI keeps answering.
void Studio::pump_frames() {
  consume_finished();
  processor.want_output = stream_out.wants_frames();
  source.set_raw_yuv(processor.converts_yuv());
  const auto take_start = Clock::now();
  for (int i = 0; i < GpuPipeline::kMaxSlots; ++i) {
    const bool fresh = feed_.take(source, processor, stream_out.accepts_frame());
    if (!processor.process(spec, filter_every_frame)) break;
    if (!processor.pipelined() || !(fresh || options_.upload_every_frame)) break;
    if (Clock::now() - take_start > kTakeBudget) break;
  }
  for (std::string& notice : processor.take_notices()) messages.post(std::move(notice), true);
  consume_finished();
  stream_out.open_waiting_device(processor);
  check_last_frame();
}

// The last frame of a --frames run: stepped runs end once their frames are taken and none is in
// flight (a frame the filter refused counts too), others after that many rendered frames; what is
// in flight is waited for, so the screenshot and the export show the last frame.
void Studio::check_last_frame() {
  if (options_.frames <= 0) return;
  run_.last = feed_.stalled() ||
              (options_.pace == Pace::Step
                   ? feed_.taken() >= std::uint64_t(options_.frames) && processor.settled()
                   : run_.rendered + 1 >= options_.frames);
  if (!run_.last) return;
  processor.settle();
  consume_finished();
}

void Studio::update_title() {
  const std::string title =
      "Recursive Filter Studio - " + source.description() + " - " + describe(spec);
  if (title != title_) platform_.set_title(title_ = title);
}

void Studio::frame() {
  stats.ui_frame(Clock::now());
  for (const std::string& path : platform_.take_dropped_paths()) open_path(path);
  exports_written += exporter.collect();
  pump_frames();
  update_title();

  handle_keys();
  const int w = processor.width(), h = processor.height();
  canvas.update_layout(view, w, h);
  canvas.handle_mouse(view, w, h);
  const bool live = source.animated() && !source.paused();
  truth.update(spec, diff, truth_enabled, live, processor, run_.last, messages);
  probes.update(spec, view, processor, truth);
  race.update(spec, processor, options_.race, run_.last, messages);

  if (view.show_ui) draw_panels();
  draw_canvas_windows();
  open_dialog(open_dialog_requested, source, messages);
  draw_overlays(canvas, view, spec.ext, w, h, probes, truth, truth_enabled);
}

void Studio::draw_panels() {
  const ImGuiIO& io = ImGui::GetIO();
  const float left = left_panel_width(), right = right_panel_width();
  const float canvas_h = canvas.rect().h;
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(left, canvas_h));
  if (ImGui::Begin("Recursive Filter Studio", nullptr, kPanelFlags)) {
    source_panel(source, messages, open_dialog_requested, processor);
    filter_panel(spec, filter_every_frame, processor);
    view_panel(view, canvas, probes.impulse(), race, spec, processor);
    record_panel(record_settings, output_device, export_dir, stream_out, processor);
    export_panel(export_dir, exporter, classroom, messages);
  }
  ImGui::End();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - right, 0));
  ImGui::SetNextWindowSize(ImVec2(right, canvas_h));
  if (ImGui::Begin("Measurements", nullptr, kPanelFlags)) {
    lesson_panel(classroom);
    timing_panel(processor, stats, truth);
    diff_panel(diff, truth_enabled, spec, truth);
    inspector_panel(canvas, processor, truth, view.mode, probes.impulse());
  }
  ImGui::End();
  status_bar(processor, platform_, source, messages, 0, canvas_h, io.DisplaySize.x,
             io.DisplaySize.y - canvas_h);
}

// The windows over the canvas: the profile plot below the image, the response and race views.
void Studio::draw_canvas_windows() {
  const CanvasRect& c = canvas.rect();
  if (view.mode == ViewMode::Profile) {
    const float top = c.y + std::floor(c.h * 0.6f);
    profile_window(probes.profile(), spec.ext, spec.derivative.any(), c.x, top, c.w,
                   c.y + c.h - top);
  }
  if (view.mode == ViewMode::Response) response_view(probes.response(), c.x, c.y, c.w, c.h);
  if (view.mode == ViewMode::Race) race_view(race, spec, processor, c.x, c.y, c.w, c.h);
}

void Studio::handle_keys() {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  // Dear ImGui 1.86 indexes KeysDown by the GLFW key code, which is ASCII for letters and digits.
  const bool any_popup = ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId);
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false) && !any_popup)
    platform_.request_close();
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Tab), false)) view.show_ui = !view.show_ui;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space), false))
    source.set_paused(!source.paused());
  if (io.KeyCtrl) {
    if (ImGui::IsKeyPressed('O', false)) open_dialog_requested = true;
    if (ImGui::IsKeyPressed('S', false)) export_all(next_export_stem());
    if (ImGui::IsKeyPressed('R', false)) stream_out.toggle_recording(record_settings, export_dir);
    return;
  }
  if (ImGui::IsKeyPressed('F', false)) canvas.fit();
  if (ImGui::IsKeyPressed('1', false)) canvas.one_to_one();
  if (ImGui::IsKeyPressed('D', false)) toggle_diff_view();
}

// D shows the diff, and D again the view before it.
void Studio::toggle_diff_view() {
  if (view.mode == ViewMode::Diff) {
    view.mode = mode_before_diff_;
  } else {
    mode_before_diff_ = view.mode;
    view.mode = ViewMode::Diff;
  }
}

PaneContent Studio::pane_content(int shader_mode, float scale_x, float scale_y) const {
  PaneContent c;
  c.shader_mode = shader_mode;
  c.original = processor.original_texture();
  // Until a first result exists (a refused parameter, say), the original stands in for it.
  c.result = processor.result_texture() ? processor.result_texture() : c.original;
  c.truth = truth.current() ? truth.texture() : 0;
  c.width = processor.width();
  c.height = processor.height();
  const ViewTransform& t = canvas.transform();
  c.transform.zoom = t.zoom * scale_x;
  c.transform.offset = {t.offset.x * scale_x, t.offset.y * scale_y};
  c.split = view.split * float(processor.width());
  c.diff_log = view.diff_scale == DiffScale::Log;
  c.amplification = view.amplification;
  c.low_decade = kLogScaleLowDecade;
  c.high_decade = kLogScaleHighDecade;
  c.extension = spec.ext;
  c.cval = float(spec.cval);
  c.tiles_result = view.tiles_show_result;
  // A summed-area table grows with the area summed; shown divided by the image area it becomes
  // a ramp whose brightness is the running mean.
  if (spec.kind == FilterKind::Sat && processor.width() > 0)
    c.result_gain = 1.0f / (float(processor.width()) * float(processor.height()));
  c.derivative = derivative_view(spec, view.derivative_gain);
  if (view.mode == ViewMode::Impulse) {
    c.derivative = DerivativeView{};
    c.result = probes.impulse().texture.id();
    c.low_decade = kImpulseLowDecade;
    c.high_decade = 0.0f;
  }
  return c;
}

void Studio::render() {
  const int fb_w = platform_.framebuffer_width(), fb_h = platform_.framebuffer_height();
  glBindFramebuffer(GL_FRAMEBUFFER, platform_.framebuffer());
  glViewport(0, 0, fb_w, fb_h);
  glClearColor(0.11f, 0.11f, 0.12f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  if (!processor.has_frame() || !processor.original_texture()) return;
  const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
  for (const auto& [pane, mode] : canvas.panes(view.mode)) {
    const PaneContent c = pane_content(mode, scale.x, scale.y);
    if (!c.result) continue;  // the impulse view before its first response
    const Pane p{int(pane.x * scale.x), int(pane.y * scale.y), int(pane.w * scale.x),
                 int(pane.h * scale.y)};
    compositor_->draw(p, fb_h, c);
  }
  glViewport(0, 0, fb_w, fb_h);
}

void Studio::after_render() {
  ++run_.rendered;
  const bool last = run_.last;
  if (last) run_.done = true;
  if (last && !options_.export_stem.empty()) export_all(options_.export_stem);
  std::vector<std::string> paths = exporter.take_screenshots();
  if (last && !options_.screenshot.empty()) paths.push_back(options_.screenshot);
  if (!paths.empty()) write_screenshots(paths);
}

void Studio::write_screenshots(const std::vector<std::string>& paths) {
  try {
    const Rgba8Image shot = read_framebuffer(platform_.framebuffer(), platform_.framebuffer_width(),
                                             platform_.framebuffer_height());
    for (const std::string& path : paths) {
      write_png(path, shot);
      messages.post("screenshot: " + path);
    }
  } catch (const std::exception& e) {
    messages.post(e.what(), true);
  }
}

}  // namespace rf::gui
