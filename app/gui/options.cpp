#include "app/gui/options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/panels/filter_choices.h"
#include "app/gui/presets.h"
#include "filters/core/errors.h"
#include "filters/core/filter_table.h"

namespace rf::gui {
namespace {

// What the command line gives as text, checked and applied after CLI11's parse with messages of
// our own; options bound straight to StudioOptions are written only when given.
struct GivenText {
  FilterArgs filter;  // rfcli's filter options, over the spec the preset made
  std::string kind;
  std::optional<int> order;
  std::optional<std::string> ext;
  std::optional<double> cval;
  std::optional<std::string> derivative;
  bool normalized = false;
  std::string view, truth, truth_ext;
  std::string image, folder, video, camera, pattern, pattern_size, pattern_format;
  std::string record_codec, pace;
};

// The extensions the truth can be computed with, as --truth-ext lists them.
std::string truth_extension_names() {
  std::string names;
  for (Extension e : truth_extension_choices())
    names += std::string(names.empty() ? "" : "|") + to_string(e);
  return names;
}

int fail(const std::string& what) {
  std::fprintf(stderr, "rfstudio: %s\n", what.c_str());
  return 2;
}

// An empty argument sends CLI11 2.1 (Debian 12's) into an endless loop when the app has option
// groups, as this one has; none of rfstudio's options has a use for one.
std::optional<int> refuse_empty_arguments(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] == '\0') {
      std::fprintf(stderr, "rfstudio: argument %d is empty\n", i);
      return 2;
    }
  return std::nullopt;
}

// The preset first: options bound later are written only when given, so they override it.
std::optional<int> apply_preset_options(int argc, char** argv, StudioOptions* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    std::string path;
    if (a == "--preset" && i + 1 < argc) path = argv[i + 1];
    if (a.rfind("--preset=", 0) == 0) path = a.substr(9);
    if (path.empty()) continue;
    try {
      apply_preset(load_preset_file(path, make_preset("", o->spec, o->view, o->diff, o->source)),
                   o);
    } catch (const std::exception& e) {
      return fail(e.what());
    }
  }
  return std::nullopt;
}

// rfcli's filter options, with its help.
void add_filter_options(CLI::App& app, GivenText& t) {
  const OptionHelp& help = option_help();
  app.add_option("--filter", t.kind, help.filter);
  // A sigma of no blur at all cannot be shown, so it is refused here, not in the panel.
  app.add_option_function<std::string>(
         "--sigma",
         [&t](const std::string& text) {
           set_sigmas(t.filter, text);
           if (!(t.filter.sigma > 0.0) || !(t.filter.sigma_y.value_or(1.0) > 0.0))
             throw InvalidParameter("--sigma: must be positive (got " + text + ")");
         },
         help.sigma)
      ->type_name("SIGMA|SX,SY");
  app.add_option("--order", t.order, help.order);
  app.add_option("--pole", t.filter.pole, help.pole);
  app.add_option("--ext", t.ext, help.ext);
  app.add_option("--cval", t.cval, help.cval);
  app.add_option("--derivative", t.derivative, help.derivative)
      ->type_name("DX,DY|gradient|laplacian");
  app.add_flag("--normalized", t.normalized,
               "scale-normalised derivatives: each partial times sigma^order along its axis");
  app.add_option("--sigma-r", t.filter.sigma_r, help.sigma_r);
  app.add_option("--kappa", t.filter.kappa, help.kappa);
  app.add_option("--iterations", t.filter.iterations, help.iterations);
  app.add_option("--algo", t.filter.algo, help.algo);
  app.add_option("--gaussian-method", t.filter.gaussian_method, help.gaussian_method);
  app.add_option("--backend", t.filter.backend, help.backend);
}

// One frame source at most, and the size of a pattern.
void add_source_options(CLI::App& app, GivenText& t) {
  auto* sources = app.add_option_group("source", "one frame source (default: the astronaut)");
  sources->add_option("--image", t.image,
                      "a still image (PNG, JPEG, PFM, ...); a multi-page TIFF plays its pages");
  sources->add_option("--folder", t.folder, "a folder of images played as a sequence");
  sources->add_option("--video", t.video, "a video file, decoded by ffmpeg");
  sources->add_option("--camera", t.camera, "a V4L2 camera, e.g. /dev/video0");
  sources->add_option("--pattern", t.pattern,
                      "impulses|steps|checkerboard|periodic|noise|moving-bar");
  sources->require_option(0, 1);
  app.add_option("--pattern-size", t.pattern_size, "pattern size WxH (default 512x512)");
}

// The view and the diff against the truth.
void add_view_options(CLI::App& app, GivenText& t, StudioOptions* o) {
  app.add_option("--view", t.view,
                 "original|result|diff|split|side|tiles|profile|impulse|response|race");
  app.add_option("--truth", t.truth, "ground truth of the diff view: fir|padded|extension");
  app.add_option("--truth-ext", t.truth_ext,
                 truth_extension_names() +
                     ": extension of the truth when the result ignores boundaries, or to compare "
                     "with (--ext's aliases too)");
  app.add_option("--amplify", o->view.amplification, "diff amplification")
      ->check(CLI::PositiveNumber);
  app.add_option("--split", o->view.split, "split-wipe position 0..1")->check(CLI::Range(0.0, 1.0));
  app.add_option("--profile-row", o->view.profile_line, "row of the line profile");
  app.add_option("--probe", o->view.probe_x, "impulse probe x")->expected(1);
  app.add_option("--probe-y", o->view.probe_y, "impulse probe y");
}

// The run: preset, window or offscreen, its frames and what it leaves behind.
void add_run_options(CLI::App& app, StudioOptions* o) {
  app.add_option("--preset", o->preset, "a preset JSON file (explicit options override it)");
  app.add_flag("--offscreen", o->offscreen, "render through EGL without a window");
  app.add_option("--frames", o->frames, "frames to render, then exit (offscreen default: 3)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--screenshot", o->screenshot, "write the last frame to this PNG");
  app.add_option("--width", o->width, "window or offscreen width")->check(CLI::Range(64, 16384));
  app.add_option("--height", o->height, "window or offscreen height")->check(CLI::Range(64, 16384));
  app.add_option("--ui-scale", o->ui_scale, "UI scale (default: the monitor's)")
      ->check(CLI::Range(0.5, 4.0));
  app.add_flag("--hide-ui", o->hide_ui, "start with the panels hidden (Tab shows them)");
  app.add_flag("--live", o->live, "filter every frame, also when nothing changed (live timing)");
  app.add_flag("--no-truth", o->no_truth, "start with the ground truth off");
  app.add_flag("--gpu-stages", o->gpu_stages, "per-stage CUDA times (no CUDA graph)");
  app.add_flag("--race", o->race,
               "run the algorithm race on the first frame (shown by --view race)");
  app.add_option("--lessons", o->lessons_dir,
                 "a folder of preset JSON files with lesson cards, walked after the built-in ones");
  app.add_option("--export", o->export_stem,
                 "after the last frame write STEM-result.png, STEM-result.pfm, STEM.json and "
                 "STEM-view.png");
}

// How frames come and go: a pattern delivered like a camera, recording, camera out, the pace.
void add_stream_options(CLI::App& app, GivenText& t, StudioOptions* o) {
  app.add_option("--pattern-format", t.pattern_format,
                 "rgba8|yuyv|nv12: deliver the pattern like a camera of that format");
  app.add_option("--record", o->record.path,
                 "record the filtered stream at source resolution to FILE (.mp4 or .mkv, through "
                 "ffmpeg); with --offscreen --frames N, N frames");
  app.add_option("--record-codec", t.record_codec, "h264 (default) or ffv1 (lossless, .mkv)");
  app.add_option("--record-fps", o->record.fps,
                 "frame rate of the recording (default: the source's)")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--output-device", o->output_device,
                 "write the filtered frames to a V4L2 output device (v4l2loopback), e.g. "
                 "/dev/video10");
  app.add_option("--pace", t.pace,
                 "realtime|step: sources at their own rate, or advanced one frame at a time as "
                 "the filter takes them, none skipped (default: step for an offscreen --frames "
                 "run that records)");
  app.add_flag("--upload-every-frame", o->upload_every_frame,
               "upload and convert the frame as if it were new whenever the filter takes one: "
               "every rendered frame, several per rendered frame on the pipelined GPU path (times "
               "the filter path of a source that always has a new frame)");
}

// Names are checked here, with rfcli's messages; values the filter refuses are shown in the
// filter panel, where the person can change them. Each returns the message of the first mistake.
std::string apply_filter(const GivenText& t, StudioOptions* o) {
  FilterArgs args = t.filter;
  if (!t.kind.empty()) change_filter(args, t.kind);
  if (t.order) args.order = t.order;
  if (t.ext) args.ext = t.ext;
  // A preset's value goes with its constant extension: another given extension drops it.
  if (t.ext && parse_extension(*t.ext) != Extension::Constant) args.cval.reset();
  if (t.cval) args.cval = t.cval;
  if (t.derivative) args.derivative = *t.derivative;
  if (t.normalized) args.normalized = true;
  try {
    o->spec = parse_spec_unvalidated(args);
  } catch (const InvalidParameter& e) {
    return e.what();
  }
  return {};
}

std::string apply_view(const GivenText& t, StudioOptions* o) {
  if (!t.view.empty()) {
    auto v = parse_view_mode(t.view);
    if (!v) return "unknown --view '" + t.view + "'";
    o->view.mode = *v;
  }
  if (!t.truth.empty()) {
    auto m = parse_truth_mode(t.truth);
    if (!m) return "unknown --truth '" + t.truth + "'";
    o->diff.truth = *m;
  }
  if (!t.truth_ext.empty()) {
    const std::optional<Extension> e = parse_extension(t.truth_ext);
    const std::vector<Extension> choices = truth_extension_choices();
    if (!e || std::find(choices.begin(), choices.end(), *e) == choices.end())
      return "--truth-ext: '" + t.truth_ext + "' is not an extension of the truth (" +
             truth_extension_names() + ")";
    o->diff.truth_ext = *e;
  }
  return {};
}

std::string apply_source(const GivenText& t, StudioOptions* o) {
  if (!t.image.empty()) o->source = {SourceKind::Image, t.image};
  if (!t.folder.empty()) o->source = {SourceKind::Folder, t.folder};
  if (!t.video.empty()) o->source = {SourceKind::Video, t.video};
  if (!t.camera.empty()) o->source = {SourceKind::Camera, t.camera};
  if (!t.pattern.empty()) o->source = {SourceKind::Pattern, t.pattern};
  if (!t.pattern_size.empty()) {
    int w = 0, h = 0;
    if (std::sscanf(t.pattern_size.c_str(), "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 32768 ||
        h > 32768)
      return "--pattern-size wants WxH with sides 1..32768, got '" + t.pattern_size + "'";
    o->source.width = w;
    o->source.height = h;
  }
  const std::string& f = t.pattern_format;
  if (f.empty()) return {};
  if (f == "yuyv" || f == "YUYV")
    o->source.encoding = app::Encoding::Yuyv;
  else if (f == "nv12" || f == "NV12")
    o->source.encoding = app::Encoding::Nv12;
  else if (f == "rgba8" || f == "rgba")
    o->source.encoding = app::Encoding::Rgba;
  else
    return "--pattern-format wants rgba8, yuyv or nv12, got '" + f + "'";
  return {};
}

std::string apply_recording(const GivenText& t, StudioOptions* o) {
  if (!t.record_codec.empty()) {
    auto c = parse_record_codec(t.record_codec);
    if (!c) return "--record-codec wants h264 or ffv1, got '" + t.record_codec + "'";
    o->record.codec = *c;
  }
  if (o->record.path.empty()) return {};
  try {
    validate_record_settings(o->record);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

// An offscreen run renders 3 frames unless told; stepped by default when such a run records.
std::string apply_run(const GivenText& t, StudioOptions* o) {
  if (o->offscreen && o->frames == 0) o->frames = 3;
  if (t.pace.empty())
    o->pace =
        o->offscreen && o->frames > 0 && !o->record.path.empty() ? Pace::Step : Pace::Realtime;
  else if (t.pace == "step")
    o->pace = Pace::Step;
  else if (t.pace == "realtime")
    o->pace = Pace::Realtime;
  else
    return "--pace wants realtime or step, got '" + t.pace + "'";
  if (o->hide_ui) o->view.show_ui = false;
  return {};
}

}  // namespace

std::optional<int> parse_options(int argc, char** argv, StudioOptions* o) {
  if (auto code = refuse_empty_arguments(argc, argv)) return code;
  if (auto code = apply_preset_options(argc, argv, o)) return code;
  CLI::App app{
      "rfstudio: live recursive filtering, its timing, and its difference from ground truth"};
  GivenText given;
  given.filter = to_args(o->spec);
  add_filter_options(app, given);
  add_source_options(app, given);
  add_view_options(app, given, o);
  add_run_options(app, o);
  add_stream_options(app, given, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help: the help, exit 0
    app.exit(e);
    return 0;
  } catch (const CLI::ParseError& e) {  // one line, as rfcli says it
    return fail(e.what());
  } catch (const InvalidParameter& e) {  // an option's own check (--sigma SX,SY)
    return fail(e.what());
  }
  for (auto apply : {apply_filter, apply_view, apply_source, apply_recording, apply_run}) {
    const std::string error = apply(given, o);
    if (!error.empty()) return fail(error);
  }
  return std::nullopt;
}

}  // namespace rf::gui
