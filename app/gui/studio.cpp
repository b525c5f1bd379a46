#include "app/gui/studio.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include "app/gui/colormap.h"
#include "app/gui/export.h"
#include "app/gui/panels/panels.h"
#include "app/gui/presets.h"
#include "filters/core/engine.h"

namespace rf::gui {
namespace {

constexpr std::size_t kHistory = 240;
// The colour scales' titles; the heat maps' strip on the right is as wide as their boxes.
constexpr const char* kDiffLegendTitle = "|result - truth|";
constexpr const char* kResponseLegendTitle = "|response|";
// A stepped run whose source delivers nothing new for this long ends (a video that does not
// loop, a camera unplugged) instead of waiting for ever.
constexpr double kStepStallSeconds = 10.0;

// How long one UI frame may spend taking several new frames for the pipelined GPU path.
constexpr std::chrono::milliseconds kTakeBudget{4};

std::uint64_t hash_combine(std::uint64_t h, std::uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

std::uint64_t hash_spec(const FilterSpec& s) {
  std::uint64_t h = 0;
  const std::hash<double> hd;
  h = hash_combine(h, std::uint64_t(s.kind));
  h = hash_combine(h, hd(s.sigma));
  h = hash_combine(h, std::uint64_t(s.order));
  h = hash_combine(h, hd(s.pole));
  h = hash_combine(h, std::uint64_t(s.ext));
  h = hash_combine(h, hd(s.sigma_r));
  h = hash_combine(h, hd(s.kappa));
  h = hash_combine(h, std::uint64_t(s.iterations));
  h = hash_combine(h, std::uint64_t(s.algo));
  return h;
}

float luma(const Image& img, int x, int y) {
  return 0.299f * img.at(x, y, 0) + 0.587f * img.at(x, y, 1) + 0.114f * img.at(x, y, 2);
}

// Halves (2x2 box average) until both sides fit `limit`.
app::Frame downscale_to_fit(const app::Frame& in, int limit) {
  app::Frame cur = in;
  const std::size_t bpp = bytes_per_pixel(in.format);
  while (cur.width > limit || cur.height > limit) {
    app::Frame half;
    half.width = std::max(1, cur.width / 2);
    half.height = std::max(1, cur.height / 2);
    half.format = cur.format;
    half.index = cur.index;
    half.bytes.resize(std::size_t(half.width) * half.height * bpp);
    for (int y = 0; y < half.height; ++y)
      for (int x = 0; x < half.width; ++x)
        for (int c = 0; c < 4; ++c) {
          float sum = 0;
          for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) {
              const std::size_t i = (std::size_t(std::min(2 * y + dy, cur.height - 1)) * cur.width +
                                     std::min(2 * x + dx, cur.width - 1));
              sum += cur.format == PixelFormat::RGBA8
                         ? float(cur.bytes[i * 4 + c])
                         : reinterpret_cast<const float*>(cur.bytes.data())[i * 4 + c];
            }
          const std::size_t o = std::size_t(y) * half.width + x;
          if (cur.format == PixelFormat::RGBA8)
            half.bytes[o * 4 + c] = std::uint8_t(sum * 0.25f + 0.5f);
          else
            reinterpret_cast<float*>(half.bytes.data())[o * 4 + c] = sum * 0.25f;
        }
    cur = std::move(half);
  }
  return cur;
}

void push_history(std::deque<float>& d, float v) {
  d.push_back(v);
  while (d.size() > kHistory) d.pop_front();
}

ImU32 to_u32(Rgb c) {
  return IM_COL32(to_unorm8(c.r), to_unorm8(c.g), to_unorm8(c.b), 255);
}

// The width of a colour scale's box: the bar and its labels, or the title.
float legend_box_width(const char* title) {
  const float w = ImGui::GetFontSize() * 0.9f;
  const float pad = ImGui::GetFontSize() * 0.4f;
  const float label_w = ImGui::CalcTextSize("1e-10").x;
  return std::max(w + label_w + 3 * pad, ImGui::CalcTextSize(title).x + 2 * pad);
}

// The gap between the canvas and a colour scale's bar.
float legend_gap() {
  return 0.8f * ImGui::GetFontSize();
}

// A vertical colour bar with decade (or linear) labels: the fixed scale of the heat maps.
void draw_legend(ImDrawList* dl, ImVec2 pos, float height, float low, float high, bool log_scale,
                 float amplification, const char* title) {
  const float w = ImGui::GetFontSize() * 0.9f;
  const float pad = ImGui::GetFontSize() * 0.4f;
  const int steps = 64;
  const float box_w = legend_box_width(title);
  const ImVec2 box0(pos.x - pad, pos.y - ImGui::GetFontSize() - 2 * pad);
  const ImVec2 box1(pos.x - pad + box_w, pos.y + height + pad);
  dl->AddRectFilled(box0, box1, IM_COL32(20, 20, 20, 210), 4.0f);
  dl->AddText(ImVec2(pos.x, pos.y - ImGui::GetFontSize() - pad), IM_COL32(230, 230, 230, 255),
              title);
  for (int i = 0; i < steps; ++i) {
    const float t0 = float(i) / steps, t1 = float(i + 1) / steps;
    dl->AddRectFilled(ImVec2(pos.x, pos.y + height * (1 - t1)),
                      ImVec2(pos.x + w, pos.y + height * (1 - t0)),
                      to_u32(inferno(0.5f * (t0 + t1))));
  }
  char buf[32];
  const int labels = log_scale ? int(high - low) : 4;
  for (int i = 0; i <= labels; ++i) {
    const float t = float(i) / labels;
    if (log_scale) {
      // With amplification a, colour t shows |d| = 10^(low + t (high - low)) / a.
      const double v = std::pow(10.0, low + t * (high - low)) / amplification;
      const int decade = int(std::lround(std::log10(v)));
      if (std::abs(std::log10(v) - decade) < 1e-6)
        std::snprintf(buf, sizeof buf, decade == 0 ? "1" : "1e%d", decade);
      else
        std::snprintf(buf, sizeof buf, "%.1e", v);
    } else {
      std::snprintf(buf, sizeof buf, "%.3g", t / amplification);
    }
    const float y = pos.y + height * (1 - t);
    dl->AddLine(ImVec2(pos.x + w, y), ImVec2(pos.x + w + pad * 0.5f, y),
                IM_COL32(230, 230, 230, 255));
    dl->AddText(ImVec2(pos.x + w + pad * 1.5f, y - ImGui::GetFontSize() * 0.5f),
                IM_COL32(230, 230, 230, 255), buf);
  }
}

}  // namespace

Studio::Studio(const StudioOptions& options, Platform& platform)
    : spec(options.spec),
      view(options.view),
      diff(options.diff),
      options_(options),
      platform_(platform) {
  compositor_ = std::make_unique<Compositor>();
  mode_before_diff_ = view.mode == ViewMode::Diff ? ViewMode::Result : view.mode;
  filter_every_frame = options.live;
  truth_enabled = !options.no_truth;
  processor.stage_timing = options.gpu_stages;
  processor.upload_every_frame = options.upload_every_frame;
  record_settings = options.record;
  record_settings.path.clear();
  output_device = options.output_device;
  pending_device_ = options.output_device;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture_size_);
  apply_pace(options.source.kind);
  std::string err = source.open(options.source);
  if (!err.empty()) {
    post("cannot open the source: " + err + "; showing the built-in image", true);
    apply_pace(SourceKind::Default);
    source.open({SourceKind::Default, {}});
  }
  try {
    lessons = LessonDeck::built_in();
    if (!options.lessons_dir.empty()) lessons.add_folder(options.lessons_dir);
  } catch (const std::exception& e) {
    post(std::string("lessons: ") + e.what(), true);
  }
  // The command line applied the preset already; its lesson card shows from the first frame.
  if (!options.preset.empty()) {
    try {
      LessonEntry e = load_lesson_file(options.preset);
      const Preset p = e.preset;
      show_lesson(p, std::move(e));
    } catch (const std::exception& e) {
      post(e.what(), true);
    }
  }
  if (!options.record.path.empty()) {
    cli_recording_ = true;
    start_recording(options.record);
  }
}

void Studio::show_lesson(const Preset& p, LessonEntry entry) {
  // The card belongs to the file (the current state carries none): a preset without one
  // closes the previous card.
  lesson = p;
  lesson_index = p.lesson.empty() ? -1 : lessons.add(std::move(entry));
  lesson_opened = true;
  const std::string what = p.name + (p.description.empty() ? "" : " - " + p.description);
  if (lesson_index >= 0)
    post("lesson " + std::to_string(lesson_index + 1) + "/" + std::to_string(lessons.size()) +
         ": " + what);
  else
    post("preset: " + what);
}

Studio::~Studio() {
  finish();
}

// Stepped runs pause sequences and step them one frame per rendered frame; cameras keep running
// and are waited for.
void Studio::apply_pace(SourceKind kind) {
  if (options_.pace == Pace::Step) source.set_paused(kind != SourceKind::Camera);
}

void Studio::finish() {
  if (finished_) return;
  finished_ = true;
  processor.settle();
  consume_finished();
  wait_exports();
  for (const RecorderNote& n : video_out.finish()) {
    if (n.error && cli_recording_) record_failed_ = true;
    post(n.text, n.error);
  }
}

void Studio::post(std::string text, bool error) {
  std::fprintf(error ? stderr : stdout, "rfstudio: %s\n", text.c_str());
  messages.push_back({std::move(text), error, ImGui::GetTime()});
  if (messages.size() > 50) messages.erase(messages.begin());
}

void Studio::open_source(const SourceChoice& choice) {
  apply_pace(choice.kind);
  const std::string err = source.open(choice);
  if (err.empty())
    post("opened " + source.description());
  else
    post("cannot open: " + err, true);
}

void Studio::open_path(const std::string& path) {
  apply_pace(SourceKind::Image);
  const std::string err = source.open_path(path);
  if (err.empty())
    post("opened " + source.description());
  else
    post("cannot open: " + err, true);
}

void Studio::apply_preset_json(const std::string& origin, const nlohmann::json& json) {
  Preset p;
  try {
    p = preset_from_json(json, make_preset("current", spec, view, diff, source.choice()));
  } catch (const std::exception& e) {
    post(origin + ": " + e.what(), true);
    return;
  }
  spec = p.spec;
  const bool show_ui = view.show_ui;
  view = p.view;
  view.show_ui = show_ui;
  diff = p.diff;
  if (p.source) open_source(*p.source);
  fit_view();
  LessonEntry e;
  e.source = origin;
  e.json = json;
  e.preset = p;
  show_lesson(p, std::move(e));
}

void Studio::open_lesson(int index) {
  if (index < 0 || index >= lessons.size()) return;
  const LessonEntry e = lessons.entries()[index];
  apply_preset_json(e.source, e.json);
}

double Studio::throughput_fps() const {
  if (finish_times_.size() < 2) return 0.0;
  const double span =
      std::chrono::duration<double>(finish_times_.back() - finish_times_.front()).count();
  return span > 0.0 ? double(finish_times_.size() - 1) / span : 0.0;
}

std::string Studio::next_record_path(const char* extension) const {
  for (int i = 1;; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "rfstudio-%03d%s", i, extension);
    const std::filesystem::path p = std::filesystem::path(export_dir) / name;
    if (!std::filesystem::exists(p)) return p.string();
  }
}

void Studio::start_recording(RecordSettings settings) {
  if (settings.path.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(export_dir, ec);
    settings.path = next_record_path(settings.codec == RecordCodec::Ffv1 ? ".mkv" : ".mp4");
  }
  const std::string err = video_out.start_recording(settings);
  if (!err.empty()) {
    if (cli_recording_) record_failed_ = true;
    post("cannot record: " + err, true);
    return;
  }
  post("recording to " + settings.path + " (" + to_string(settings.codec) + ")");
}

void Studio::stop_recording() {
  video_out.stop_recording();
}

void Studio::toggle_recording() {
  if (video_out.recording())
    stop_recording();
  else
    start_recording(record_settings);
}

void Studio::open_output_device(const std::string& device) {
  if (!processor.has_frame()) {
    pending_device_ = device;
    return;
  }
  const std::string err = video_out.open_device(device, processor.width(), processor.height());
  if (err.empty())
    post("camera out: " + video_out.device()->description());
  else
    post(err, true);
}

void Studio::close_output_device() {
  video_out.close_device();
  pending_device_.clear();
}

// Finished frames, in order: timing, throughput, and their 8-bit results to the recording and
// the camera output.
void Studio::consume_finished() {
  const auto now = std::chrono::steady_clock::now();
  for (PipelineFrame& f : processor.take_finished()) {
    push_history(frame_ms_history, float(f.timing.total_ms()));
    if (f.timing.pipelined && f.timing.interval_ms > 0.0)
      push_history(interval_history, float(f.timing.interval_ms));
    if (f.timing.uploaded) {
      push_history(latency_history, float(f.timing.latency_ms));
      finish_times_.push_back(now);
    }
    if (options_.frames > 0) timing_log.push_back(f.timing);
    if (f.output) video_out.offer(std::move(f.output));
  }
  while (!finish_times_.empty() && now - finish_times_.front() > std::chrono::seconds(1))
    finish_times_.pop_front();
  for (const RecorderNote& n : video_out.pump()) {
    if (n.error && cli_recording_) record_failed_ = true;
    post(n.text, n.error);
  }
}

// One new source frame into the processor, when it and the outputs can take one (a frame they
// cannot take yet stays with the source, so none is lost between them). True when it took one.
bool Studio::take_new_frame() {
  if (!processor.accepts_frame() || !video_out.accepts_frame()) return false;
  const bool step = options_.pace == Pace::Step;
  if (step && options_.frames > 0 && frames_taken_ >= std::uint64_t(options_.frames)) return false;
  bool fresh = source.poll();
  // Stepped, a still counts as a new frame every time.
  if (!fresh && step && !source.animated() && source.has_frame()) fresh = true;
  const auto now = std::chrono::steady_clock::now();
  if (!fresh) {
    if (step && options_.frames > 0 &&
        std::chrono::duration<double>(now - last_taken_).count() > kStepStallSeconds) {
      post("the source delivered no new frame for " + std::to_string(int(kStepStallSeconds)) +
               " s: stopping after " + std::to_string(frames_taken_) + " frames",
           true);
      stalled_ = true;
    }
    return false;
  }
  last_taken_ = now;
  app::Frame& f = source.frame();
  // A frame beyond the GPU's texture limit is shown halved until it fits, and the UI says so;
  // the source keeps the full-size original.
  if (f.width > max_texture_size_ || f.height > max_texture_size_) {
    if (f.index != last_source_index_)
      post("frame " + std::to_string(f.width) + "x" + std::to_string(f.height) +
               " exceeds this GPU's texture limit of " + std::to_string(max_texture_size_) +
               " px: filtering a downscaled copy",
           true);
    if (f.encoding != app::Encoding::Rgba) {
      app::Frame rgba;
      app::to_rgba(f, rgba);
      scaled_frame_ = downscale_to_fit(rgba, max_texture_size_);
    } else {
      scaled_frame_ = downscale_to_fit(f, max_texture_size_);
    }
    processor.set_frame(scaled_frame_);
  } else {
    processor.set_frame(f);
  }
  last_source_index_ = f.index;
  ++frames_taken_;
  if (step && source.animated()) source.step();
  return true;
}

double Studio::ui_frame_ms() const {
  if (ui_ms_history.empty()) return 0.0;
  const std::size_t n = std::min<std::size_t>(ui_ms_history.size(), 60);
  double sum = 0;
  for (std::size_t i = ui_ms_history.size() - n; i < ui_ms_history.size(); ++i)
    sum += ui_ms_history[i];
  return sum / double(n);
}

float Studio::result_gain() const {
  // A summed-area table grows with the area summed; shown divided by the image area it becomes
  // a ramp whose brightness is the running mean.
  if (spec.kind == FilterKind::Sat && processor.width() > 0)
    return 1.0f / (float(processor.width()) * float(processor.height()));
  return 1.0f;
}

int Studio::band() const {
  return diff.auto_band ? default_band(spec.sigma) : std::max(1, diff.band);
}

void Studio::one_to_one() {
  transform_ = rf::gui::one_to_one(transform_, {canvas_.w, canvas_.h});
  auto_fit_ = false;
}

Rect Studio::content_rect() const {
  const float w = float(processor.width()), h = float(processor.height());
  if (view.mode == ViewMode::Tiles) return {-w, -h, 3 * w, 3 * h};
  return {0, 0, w, h};
}

std::vector<std::pair<CanvasRect, int>> Studio::panes() const {
  std::vector<std::pair<CanvasRect, int>> out;
  // The response and race views draw plots, not the image.
  if (view.mode == ViewMode::Response || view.mode == ViewMode::Race) return out;
  CanvasRect c = canvas_;
  if (view.mode == ViewMode::SideBySide) {
    CanvasRect a = c, b = c;
    a.w = b.w = std::floor(c.w * 0.5f);
    b.x = c.x + a.w;
    out.push_back({a, 0});
    out.push_back({b, 1});
    return out;
  }
  if (view.mode == ViewMode::Profile) c.h = std::floor(c.h * 0.6f);
  out.push_back({c, shader_mode(view.mode)});
  return out;
}

// The panels take at most a quarter of the width each, so small windows keep a canvas.
float Studio::left_panel_width() const {
  return std::min(24.0f * ImGui::GetFontSize(), 0.27f * ImGui::GetIO().DisplaySize.x);
}
float Studio::right_panel_width() const {
  return std::min(21.0f * ImGui::GetFontSize(), 0.25f * ImGui::GetIO().DisplaySize.x);
}

void Studio::update_layout() {
  const ImGuiIO& io = ImGui::GetIO();
  const float left = view.show_ui ? left_panel_width() : 0.0f;
  const float right = view.show_ui ? right_panel_width() : 0.0f;
  const float bottom = view.show_ui ? ImGui::GetFrameHeight() + 2.0f : 0.0f;
  // Heat maps keep a strip on the right for their colour scale, so it never covers the data.
  const char* legend = view.mode == ViewMode::Diff      ? kDiffLegendTitle
                       : view.mode == ViewMode::Impulse ? kResponseLegendTitle
                                                        : nullptr;
  const float legend_w =
      legend ? legend_gap() + legend_box_width(legend) + 0.4f * ImGui::GetFontSize() : 0.0f;
  canvas_ = {left, 0.0f, std::max(1.0f, io.DisplaySize.x - left - right - legend_w),
             std::max(1.0f, io.DisplaySize.y - bottom)};
  // Fit on the first frame, when the image size or the kind of view changes, and on F.
  const bool tiles_changed = (fitted_mode_ == ViewMode::Tiles) != (view.mode == ViewMode::Tiles);
  const bool legend_changed =
      (fitted_mode_ == ViewMode::Diff || fitted_mode_ == ViewMode::Impulse) != (legend != nullptr);
  const bool panes_changed =
      legend_changed ||
      (fitted_mode_ == ViewMode::SideBySide) != (view.mode == ViewMode::SideBySide) ||
      (fitted_mode_ == ViewMode::Profile) != (view.mode == ViewMode::Profile);
  const auto image_panes = panes();
  if (image_panes.empty()) return;
  if (auto_fit_ || tiles_changed || panes_changed || fitted_w_ != processor.width() ||
      fitted_h_ != processor.height()) {
    const CanvasRect pane = image_panes.front().first;
    transform_ = fit(content_rect(), {pane.w, pane.h});
    fitted_mode_ = view.mode;
    fitted_w_ = processor.width();
    fitted_h_ = processor.height();
  }
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
    if (ImGui::IsKeyPressed('R', false)) toggle_recording();
    return;
  }
  if (ImGui::IsKeyPressed('F', false)) fit_view();
  if (ImGui::IsKeyPressed('1', false)) one_to_one();
  if (ImGui::IsKeyPressed('D', false)) {
    if (view.mode == ViewMode::Diff) {
      view.mode = mode_before_diff_;
    } else {
      mode_before_diff_ = view.mode;
      view.mode = ViewMode::Diff;
    }
  }
}

void Studio::handle_canvas_mouse() {
  ImGuiIO& io = ImGui::GetIO();
  hover_x = hover_y = -1;
  if (!processor.has_frame()) return;
  const ImVec2 m = io.MousePos;
  const auto ps = panes();
  const CanvasRect* pane = nullptr;
  for (const auto& p : ps)
    if (m.x >= p.first.x && m.x < p.first.x + p.first.w && m.y >= p.first.y &&
        m.y < p.first.y + p.first.h)
      pane = &p.first;
  if (!io.MouseDown[0] && !io.MouseDown[1] && !io.MouseDown[2]) dragging_ = dragging_split_ = false;
  if (dragging_ || dragging_split_) {
    if (dragging_split_ && pane) {
      const Vec2 q = transform_.to_image({m.x - pane->x, m.y - pane->y});
      view.split = std::clamp(q.x / float(processor.width()), 0.0f, 1.0f);
    } else if (dragging_) {
      transform_ = pan(transform_, {io.MouseDelta.x, io.MouseDelta.y});
      auto_fit_ = false;
    }
    return;
  }
  if (!pane || io.WantCaptureMouse) return;
  const Vec2 local{m.x - pane->x, m.y - pane->y};
  int px = -1, py = -1;
  const bool on_image =
      pixel_at(transform_, local, processor.width(), processor.height(), &px, &py);
  if (on_image) {
    hover_x = px;
    hover_y = py;
  }
  if (io.MouseWheel != 0.0f) {
    transform_ = zoom_at(transform_, local, std::pow(1.2f, io.MouseWheel));
    auto_fit_ = false;
  }
  if (ImGui::IsMouseClicked(0)) {
    const float split_x = transform_.to_canvas({view.split * processor.width(), 0}).x;
    if (view.mode == ViewMode::Split && std::abs(local.x - split_x) < 0.5f * ImGui::GetFontSize()) {
      dragging_split_ = true;
    } else if (view.mode == ViewMode::Profile && on_image) {
      view.profile_line = view.profile_vertical ? px : py;
    } else if (view.mode == ViewMode::Impulse && on_image) {
      view.probe_x = px;
      view.probe_y = py;
    } else {
      dragging_ = true;
    }
  }
  if (ImGui::IsMouseClicked(1) || ImGui::IsMouseClicked(2)) dragging_ = true;
}

void Studio::update_truth() {
  if (!truth_enabled || !processor.has_frame()) {
    // The kept truth may be of another frame, even of another size, by the time it is read.
    truth_current = false;
    return;
  }
  // The same spec on the same frame gives the same result: live re-filtering asks for nothing.
  std::uint64_t key = hash_combine(hash_spec(spec), processor.frame_version());
  key = hash_combine(key, std::uint64_t(diff.truth) << 8 | std::uint64_t(diff.truth_ext));
  key = hash_combine(key, std::uint64_t(processor.running_backend()));
  const bool live = source.animated() && !source.paused();
  // The result on screen must be the current frame's: frames still in flight wait.
  if (key != requested_truth_key_ && (!live || !truth_worker.busy()) && processor.settled()) {
    TruthRequest r;
    r.spec = spec;
    r.mode = diff.truth;
    r.truth_ext = diff.truth_ext;
    r.input = processor.input();
    r.result = processor.result();
    r.band = band();
    r.key = key;
    truth_worker.request(std::move(r));
    requested_truth_key_ = key;
  }
  // Offscreen and --frames runs capture a finished picture: wait for the truth on the last frame.
  if (last_frame_) truth_worker.wait_idle();
  if (auto done = truth_worker.take()) {
    if (!done->error.empty() && done->error != "cancelled")
      post("ground truth: " + done->error, true);
    if (done->truth.empty()) return;
    truth = std::move(*done);
    truth_texture.allocate(GL_RGBA32F, truth.truth.width, truth.truth.height);
    truth_texture.upload(GL_RGBA, GL_FLOAT, truth.truth.pixels.data());
    truth_key_ = truth.key;
  }
  truth_current = !truth.truth.empty() && truth_key_ == requested_truth_key_ &&
                  truth.truth.width == processor.width() &&
                  truth.truth.height == processor.height();
  // The band is a statistic only: a new width recomputes the numbers, not the truth.
  if (truth_current && truth.stats.band != band())
    truth.stats = diff_stats(processor.result(), truth.truth, band());
}

void Studio::update_profile() {
  if (view.mode != ViewMode::Profile || !processor.has_frame() || !processor.settled()) return;
  const int w = processor.width(), h = processor.height();
  const int n_lines = view.profile_vertical ? w : h;
  const int line = view.profile_line < 0 ? n_lines / 2 : std::min(view.profile_line, n_lines - 1);
  std::uint64_t key = hash_combine(hash_spec(spec), processor.frame_version());
  key = hash_combine(key, std::uint64_t(line));
  key = hash_combine(key, view.profile_vertical);
  key = hash_combine(key, truth_current ? truth_key_ : 0);
  if (key == profile.key) return;
  profile = ProfileData();
  profile.key = key;
  profile.vertical = view.profile_vertical;
  profile.line = line;
  const int len = view.profile_vertical ? h : w;
  auto sample = [&](const Image& img, std::vector<float>& out) {
    out.resize(len);
    for (int i = 0; i < len; ++i)
      out[i] = view.profile_vertical ? luma(img, line, i) : luma(img, i, line);
  };
  sample(processor.input(), profile.input);
  sample(processor.result(), profile.result);
  if (truth_current) sample(truth.truth, profile.truth);
  // The same filter under every extension, on the CPU (exact, and independent of the backend).
  // An extension the filter refuses (the summed-area table takes zero only) has no curve; the
  // filter's own refusal is what the profile reports.
  profile.by_extension.resize(std::size(kAllExtensions));
  for (Extension e : kAllExtensions) {
    FilterSpec s = spec;
    s.ext = e;
    try {
      sample(filter_image(s, processor.input(), Backend::Cpu), profile.by_extension[int(e)]);
    } catch (const std::exception& ex) {
      profile.by_extension[int(e)].clear();
      if (e == spec.ext) profile.error = ex.what();
    }
  }
}

void Studio::update_impulse() {
  if (view.mode != ViewMode::Impulse || !processor.has_frame()) return;
  const int w = processor.width(), h = processor.height();
  const int x = view.probe_x < 0 ? std::min(w - 1, w / 16) : std::min(view.probe_x, w - 1);
  const int y = view.probe_y < 0 ? std::min(h - 1, h / 16) : std::min(view.probe_y, h - 1);
  std::uint64_t key = hash_combine(hash_spec(spec), std::uint64_t(x) << 32 | std::uint64_t(y));
  key = hash_combine(key, std::uint64_t(w) << 32 | std::uint64_t(h));
  if (key == impulse.key) return;
  impulse.key = key;
  impulse.x = x;
  impulse.y = y;
  impulse.error.clear();
  Image probe(w, h, 1);
  probe.at(x, y) = 1.0f;
  try {
    impulse.response = filter_image(spec, probe, Backend::Cpu);
  } catch (const std::exception& e) {
    impulse.error = e.what();
    impulse.response = Image();
    return;
  }
  impulse.max = 0.0;
  impulse.min_nonzero = 1e300;
  for (float v : impulse.response.pixels) {
    const double a = std::abs(double(v));
    impulse.max = std::max(impulse.max, a);
    if (a > 0) impulse.min_nonzero = std::min(impulse.min_nonzero, a);
  }
  impulse.texture.allocate(GL_R32F, w, h);
  impulse.texture.upload(GL_RED, GL_FLOAT, impulse.response.pixels.data());
}

void Studio::update_response() {
  if (view.mode != ViewMode::Response) return;
  if (response_valid_ && response.spec == spec) return;
  response = compute_response(spec);
  response_valid_ = true;
}

std::uint64_t Studio::race_key() const {
  std::uint64_t key = hash_combine(hash_spec(spec), processor.frame_version());
  return hash_combine(key, std::uint64_t(processor.running_backend()) + 1);
}

void Studio::request_race() {
  if (!processor.has_frame()) return;
  RaceRequest r;
  r.spec = spec;
  r.backend = processor.running_backend();
  r.frame = processor.input();
  r.key = race_key();
  race_worker.request(std::move(r));
}

void Studio::update_race() {
  if (options_.race && !race_requested_ && processor.has_frame()) {
    request_race();
    race_requested_ = true;
  }
  // A --frames run captures the finished race on its last frame.
  if (last_frame_) race_worker.wait_idle();
  if (auto done = race_worker.take()) {
    if (!done->error.empty()) {
      if (done->error != "cancelled") post("algorithm race: " + done->error, true);
      return;
    }
    race = std::move(*done);
    // One line for the log: what ran, on what, and how long each took.
    char buf[96];
    std::string line = "algorithm race on " + std::to_string(race.width) + "x" +
                       std::to_string(race.height) + ", " + race.device + " (" + race.clock +
                       ", median ms):";
    for (const RaceEntry& e : race.entries) {
      if (e.runs == 0) continue;
      std::snprintf(buf, sizeof buf, " %s %.4g (%.3g GiP/s),", e.name.c_str(), e.ms, e.gips);
      line += buf;
    }
    std::snprintf(buf, sizeof buf, " copy floor %.4g (%.3g GiP/s)", race.floor.ms, race.floor.gips);
    post(line + buf);
  }
}

void Studio::frame() {
  const ImGuiIO& io = ImGui::GetIO();
  const auto now = std::chrono::steady_clock::now();
  push_history(ui_ms_history,
               std::chrono::duration<float, std::milli>(now - last_frame_time_).count());
  last_frame_time_ = now;
  for (const std::string& path : platform_.take_dropped_paths()) open_path(path);
  collect_exports();

  // Finished frames first (their slots take the next ones), then new frames and the filter. On
  // the pipelined GPU path, as many new frames as the source has and the pipeline takes (one per
  // free slot): the view draws the newest, and the source is filtered at the GPU's pace, not the
  // UI's. A frame sent again for timing (--upload-every-frame) counts as new each time. Frames
  // that cost the host time (a pattern rendered at 4K, a decoded video) stop the loop after
  // kTakeBudget, so that the UI keeps answering.
  consume_finished();
  processor.want_output = video_out.wants_frames();
  source.set_raw_yuv(processor.converts_yuv());
  const auto take_start = std::chrono::steady_clock::now();
  for (int i = 0; i < GpuPipeline::kMaxSlots; ++i) {
    const bool fresh = take_new_frame();
    if (!processor.process(spec, filter_every_frame)) break;
    if (!processor.pipelined() || !(fresh || options_.upload_every_frame)) break;
    if (std::chrono::steady_clock::now() - take_start > kTakeBudget) break;
  }
  for (std::string& notice : processor.take_notices()) post(std::move(notice), true);
  consume_finished();
  if (!pending_device_.empty() && processor.has_frame()) {
    const std::string device = pending_device_;
    pending_device_.clear();
    open_output_device(device);
  }
  // The last frame of a --frames run: stepped runs end once their frames are taken and none is
  // in flight (a frame the filter refused counts too), others after that many rendered frames;
  // what is in flight is waited for, so the screenshot and the export show the last frame.
  if (options_.frames > 0) {
    last_frame_ =
        stalled_ || (options_.pace == Pace::Step
                         ? frames_taken_ >= std::uint64_t(options_.frames) && processor.settled()
                         : frame_count_ + 1 >= options_.frames);
    if (last_frame_) {
      processor.settle();
      consume_finished();
    }
  }

  const std::string title =
      "Recursive Filter Studio - " + source.description() + " - " + describe(spec);
  if (title != title_) platform_.set_title(title_ = title);

  handle_keys();
  update_layout();
  handle_canvas_mouse();
  update_truth();
  update_profile();
  update_impulse();
  update_response();
  update_race();

  if (view.show_ui) {
    const float left = left_panel_width(), right = right_panel_width();
    const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings;
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(left, canvas_.h));
    if (ImGui::Begin("Recursive Filter Studio", nullptr, fixed)) {
      source_panel(*this);
      filter_panel(*this);
      view_panel(*this);
      record_panel(*this);
      export_panel(*this);
    }
    ImGui::End();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - right, 0));
    ImGui::SetNextWindowSize(ImVec2(right, canvas_.h));
    if (ImGui::Begin("Measurements", nullptr, fixed)) {
      lesson_panel(*this);
      timing_panel(*this);
      diff_panel(*this);
      inspector_panel(*this);
    }
    ImGui::End();
    status_bar(*this, 0, canvas_.h, io.DisplaySize.x, io.DisplaySize.y - canvas_.h);
  }
  if (view.mode == ViewMode::Profile) {
    const float top = canvas_.y + std::floor(canvas_.h * 0.6f);
    profile_window(*this, canvas_.x, top, canvas_.w, canvas_.y + canvas_.h - top);
  }
  if (view.mode == ViewMode::Response)
    response_view(*this, canvas_.x, canvas_.y, canvas_.w, canvas_.h);
  if (view.mode == ViewMode::Race) race_view(*this, canvas_.x, canvas_.y, canvas_.w, canvas_.h);
  open_dialog(*this);
  draw_overlays();
}

void Studio::draw_overlays() {
  if (!processor.has_frame()) return;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  const float s = ImGui::GetFontSize();
  const float w = float(processor.width()), h = float(processor.height());
  const ImU32 yellow = IM_COL32(255, 210, 60, 255), white = IM_COL32(235, 235, 235, 255);
  for (const auto& [pane, mode] : panes()) {
    dl->PushClipRect(ImVec2(pane.x, pane.y), ImVec2(pane.x + pane.w, pane.y + pane.h), true);
    auto at = [&](float u, float v) {
      const Vec2 c = transform_.to_canvas({u, v});
      return ImVec2(pane.x + c.x, pane.y + c.y);
    };
    if (view.mode == ViewMode::Tiles) {
      dl->AddRect(at(0, 0), at(w, h), yellow, 0.0f, 0, 2.0f);
      char buf[96];
      std::snprintf(buf, sizeof buf, "extension: %s%s", to_string(spec.ext),
                    spec.ext == Extension::Ignore ? " (nothing assumed: zero feedback)" : "");
      dl->AddText(ImVec2(at(0, 0).x, at(0, 0).y - s * 1.3f), yellow, buf);
    }
    if (view.mode == ViewMode::Split) {
      const ImVec2 top = at(view.split * w, 0), bottom = at(view.split * w, h);
      dl->AddCircleFilled(ImVec2(top.x, 0.5f * (top.y + bottom.y)), 0.45f * s, yellow);
      dl->AddText(ImVec2(top.x - s * 4.6f, top.y - s * 1.3f), white, "original");
      dl->AddText(ImVec2(top.x + s * 0.5f, top.y - s * 1.3f), white, "result");
    }
    if (view.mode == ViewMode::SideBySide)
      dl->AddText(ImVec2(pane.x + s * 0.6f, pane.y + s * 0.4f), white,
                  mode == 0 ? "original" : "result");
    if (view.mode == ViewMode::Profile && profile.line >= 0) {
      const float l = float(profile.line) + 0.5f;
      if (profile.vertical)
        dl->AddLine(at(l, 0), at(l, h), IM_COL32(80, 220, 255, 255), 1.5f);
      else
        dl->AddLine(at(0, l), at(w, l), IM_COL32(80, 220, 255, 255), 1.5f);
    }
    if (view.mode == ViewMode::Impulse) {
      const ImVec2 c = at(impulse.x + 0.5f, impulse.y + 0.5f);
      dl->AddCircle(c, 0.8f * s, IM_COL32(80, 220, 255, 255), 0, 1.5f);
    }
    dl->PopClipRect();
  }
  const float legend_h = std::min(canvas_.h * 0.4f, 16.0f * s);
  const ImVec2 legend_pos(canvas_.x + canvas_.w + legend_gap(),
                          canvas_.y + canvas_.h - legend_h - 1.2f * s);
  if (view.mode == ViewMode::Diff) {
    if (truth_current) {
      draw_legend(dl, legend_pos, legend_h, kLogScaleLowDecade, kLogScaleHighDecade,
                  view.diff_scale == DiffScale::Log, view.amplification, kDiffLegendTitle);
    } else {
      char buf[80];
      std::snprintf(buf, sizeof buf, "computing ground truth... %d%%",
                    int(100.0f * truth_worker.progress()));
      dl->AddText(ImVec2(canvas_.x + s, canvas_.y + s), yellow,
                  truth_enabled ? buf : "ground truth is off");
    }
  }
  if (view.mode == ViewMode::Impulse)
    draw_legend(dl, legend_pos, legend_h, kImpulseLowDecade, 0.0f, true, 1.0f,
                kResponseLegendTitle);
}

void Studio::render() {
  const int fb_w = platform_.framebuffer_width(), fb_h = platform_.framebuffer_height();
  glBindFramebuffer(GL_FRAMEBUFFER, platform_.framebuffer());
  glViewport(0, 0, fb_w, fb_h);
  glClearColor(0.11f, 0.11f, 0.12f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  if (!processor.has_frame() || !processor.original_texture()) return;
  const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
  for (const auto& [pane, mode] : panes()) {
    PaneContent c;
    c.shader_mode = mode;
    c.original = processor.original_texture();
    // Until a first result exists (a refused parameter, say), the original stands in for it.
    c.result =
        processor.result_texture() ? processor.result_texture() : processor.original_texture();
    c.truth = truth_current ? truth_texture.id() : 0;
    c.width = processor.width();
    c.height = processor.height();
    c.transform.zoom = transform_.zoom * scale.x;
    c.transform.offset = {transform_.offset.x * scale.x, transform_.offset.y * scale.y};
    c.split = view.split * float(processor.width());
    c.diff_log = view.diff_scale == DiffScale::Log;
    c.amplification = view.amplification;
    c.low_decade = kLogScaleLowDecade;
    c.high_decade = kLogScaleHighDecade;
    c.extension = spec.ext;
    c.tiles_result = view.tiles_show_result;
    c.result_gain = result_gain();
    if (view.mode == ViewMode::Impulse) {
      c.result = impulse.texture.id();
      c.low_decade = kImpulseLowDecade;
      c.high_decade = 0.0f;
      if (!c.result) continue;
    }
    const Pane p{int(pane.x * scale.x), int(pane.y * scale.y), int(pane.w * scale.x),
                 int(pane.h * scale.y)};
    compositor_->draw(p, fb_h, c);
  }
  glViewport(0, 0, fb_w, fb_h);
}

void Studio::after_render() {
  ++frame_count_;
  const bool last = last_frame_;
  if (last) run_done_ = true;
  if (last && !options_.export_stem.empty()) export_all(options_.export_stem);
  std::vector<std::string> paths;
  paths.swap(screenshot_paths_);
  if (last && !options_.screenshot.empty()) paths.push_back(options_.screenshot);
  if (paths.empty()) return;
  try {
    const Rgba8Image shot = read_framebuffer(platform_.framebuffer(), platform_.framebuffer_width(),
                                             platform_.framebuffer_height());
    for (const std::string& path : paths) {
      write_png(path, shot);
      post("screenshot: " + path);
    }
  } catch (const std::exception& e) {
    post(e.what(), true);
  }
}

std::string Studio::sidecar_json() const {
  nlohmann::json j;
  j["preset"] = to_json(make_preset("export", spec, view, diff, source.choice()));
  j["filter"] = describe(spec);
  j["source"] = source.description();
  j["width"] = processor.width();
  j["height"] = processor.height();
  j["backend"] = processor.backend_line();
  j["path"] = processor.path_line();
  const FrameTiming& t = processor.timing();
  nlohmann::json stages = nlohmann::json::array();
  for (const StageTime& st : t.stages) stages.push_back({{"stage", st.stage}, {"ms", st.ms}});
  j["timing"] = {{"upload_ms", t.upload_ms},
                 {"convert_ms", t.convert_ms},
                 {"filter_ms", t.filter_ms},
                 {"interop_ms", t.interop_ms},
                 {"readback_ms", t.readback_ms},
                 {"total_ms", t.total_ms()},
                 {"frame_to_frame_ms", t.interval_ms},
                 {"latency_ms", t.latency_ms},
                 {"pipelined", t.pipelined},
                 {"clock", t.gpu_events ? "CUDA events" : "host steady clock"},
                 {"stages", stages},
                 {"ui_frame_ms_wall", ui_frame_ms()}};
  if (truth_current) {
    auto stats = [](const ErrorStats& e) {
      return nlohmann::json{
          {"max_abs", e.max_abs}, {"rmse", e.rmse}, {"psnr_db", e.psnr}, {"samples", e.samples}};
    };
    j["truth"] = {{"label", truth.label},
                  {"band_px", truth.stats.band},
                  {"whole", stats(truth.stats.whole)},
                  {"border", stats(truth.stats.border)},
                  {"interior", stats(truth.stats.interior)},
                  {"ms", truth.ms}};
  }
  return j.dump(2);
}

std::string Studio::next_export_stem() const {
  for (int i = 1;; ++i) {
    char stem[32];
    std::snprintf(stem, sizeof stem, "rfstudio-%03d", i);
    const std::filesystem::path base = std::filesystem::path(export_dir) / stem;
    const bool pending = std::find(pending_exports_.begin(), pending_exports_.end(),
                                   base.string()) != pending_exports_.end();
    if (!pending && !std::filesystem::exists(base.string() + ".json")) return stem;
  }
}

void Studio::export_all(const std::string& stem) {
  if (!processor.has_frame()) return;
  processor.settle();
  try {
    const std::filesystem::path path = std::filesystem::path(export_dir) / stem;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    const std::string base = path.string();
    // The writer gets copies: the studio goes on with the next frames meanwhile.
    writer_.add(base, [base, result = processor.result(), json = sidecar_json()] {
      write_result(base + "-result.png", result);
      write_result(base + "-result.pfm", result);
      write_text(base + ".json", json);
    });
    pending_exports_.push_back(base);
    screenshot_paths_.push_back(base + "-view.png");
  } catch (const std::exception& e) {
    post(std::string("export failed: ") + e.what(), true);
  }
}

void Studio::collect_exports() {
  for (FileWriter::Done& d : writer_.take_done()) {
    // One entry per export given: the same stem may be written twice in a row.
    const auto it = std::find(pending_exports_.begin(), pending_exports_.end(), d.name);
    if (it != pending_exports_.end()) pending_exports_.erase(it);
    if (!d.error.empty()) {
      post("export failed: " + d.error, true);
      continue;
    }
    last_export = d.name;
    ++exports_written;
    post("exported " + d.name + "-result.png, -result.pfm, .json and -view.png");
  }
}

void Studio::wait_exports() {
  writer_.wait_idle();
  collect_exports();
}

}  // namespace rf::gui
