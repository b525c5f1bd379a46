#include "app/gui/options.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <map>

#include "app/gui/presets.h"

namespace rf::gui {
namespace {

template <class E>
std::map<std::string, E> names_of(std::initializer_list<E> values) {
  std::map<std::string, E> m;
  for (E v : values) m.emplace(to_string(v), v);
  return m;
}

}  // namespace

std::optional<int> parse_options(int argc, char** argv, StudioOptions* o) {
  // An empty argument sends CLI11 2.1 (Debian 12's) into an endless loop when the app has option
  // groups, as this one has; none of rfstudio's options has a use for one.
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] == '\0') {
      std::fprintf(stderr, "rfstudio: argument %d is empty\n", i);
      return 2;
    }
  // The preset first: options bound below are written only when given, so they override it.
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
      std::fprintf(stderr, "rfstudio: %s\n", e.what());
      return 2;
    }
  }
  CLI::App app{
      "rfstudio: live recursive filtering, its timing, and its difference from ground truth"};
  FilterSpec& s = o->spec;
  std::string kind, ext, algo, backend, view, truth;

  app.add_option("--filter", kind,
                 "gaussian|deriche|yvrg|bspline3|bspline5|bspline7|exp|sat|edge-aware");
  app.add_option("--sigma", s.sigma, "Gaussian sigma in pixels")->check(CLI::PositiveNumber);
  app.add_option("--order", s.order, "recursion order 1..5");
  app.add_option("--pole", s.pole, "pole of the exponential smoother, |p| < 1");
  app.add_option("--ext", ext, "ignore|zero|clamp|repeat|mirror");
  app.add_option("--sigma-r", s.sigma_r, "edge-aware range sigma on [0, 1]");
  app.add_option("--kappa", s.kappa, "edge-aware warm-up distance in sigmas");
  app.add_option("--iterations", s.iterations, "edge-aware iterations");
  app.add_option("--algo", algo, "auto|rt|alg4|alg5|alg6|one-way|two-way|a|c|d|exact");
  app.add_option("--backend", backend, "auto|cpu|cuda");

  auto* sources = app.add_option_group("source", "one frame source (default: the astronaut)");
  std::string image, folder, video, camera, pattern;
  sources->add_option("--image", image, "a still image (PNG, JPEG, PFM, ...)");
  sources->add_option("--folder", folder, "a folder of images played as a sequence");
  sources->add_option("--video", video, "a video file, decoded by ffmpeg");
  sources->add_option("--camera", camera, "a V4L2 camera, e.g. /dev/video0");
  sources->add_option("--pattern", pattern,
                      "impulses|steps|checkerboard|periodic|noise|moving-bar");
  sources->require_option(0, 1);
  std::string pattern_size;
  app.add_option("--pattern-size", pattern_size, "pattern size WxH (default 512x512)");

  app.add_option("--view", view,
                 "original|result|diff|split|side|tiles|profile|impulse|response|race");
  app.add_option("--truth", truth, "ground truth of the diff view: fir|padded|extension");
  app.add_option("--truth-ext", o->diff.truth_ext,
                 "extension of the truth when the result ignores boundaries, or to compare with")
      ->transform(CLI::CheckedTransformer(
          names_of({Extension::Zero, Extension::Clamp, Extension::Repeat, Extension::Mirror})));
  app.add_option("--amplify", o->view.amplification, "diff amplification")
      ->check(CLI::PositiveNumber);
  app.add_option("--split", o->view.split, "split-wipe position 0..1")->check(CLI::Range(0.0, 1.0));
  app.add_option("--profile-row", o->view.profile_line, "row of the line profile");
  app.add_option("--probe", o->view.probe_x, "impulse probe x")->expected(1);
  app.add_option("--probe-y", o->view.probe_y, "impulse probe y");
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
  std::string pattern_format, record_codec, pace;
  app.add_option("--pattern-format", pattern_format,
                 "rgba8|yuyv|nv12: deliver the pattern like a camera of that format");
  app.add_option("--record", o->record.path,
                 "record the filtered stream at source resolution to FILE (.mp4 or .mkv, through "
                 "ffmpeg); with --offscreen --frames N, N frames");
  app.add_option("--record-codec", record_codec, "h264 (default) or ffv1 (lossless, .mkv)");
  app.add_option("--record-fps", o->record.fps,
                 "frame rate of the recording (default: the source's)")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--output-device", o->output_device,
                 "write the filtered frames to a V4L2 output device (v4l2loopback), e.g. "
                 "/dev/video10");
  app.add_option("--pace", pace,
                 "realtime|step: sources at their own rate, or advanced one frame at a time as "
                 "the filter takes them, none skipped (default: step for an offscreen --frames "
                 "run that records)");
  app.add_flag("--upload-every-frame", o->upload_every_frame,
               "upload and convert the frame as if it were new whenever the filter takes one: "
               "every rendered frame, several per rendered frame on the pipelined GPU path (times "
               "the GPU path of a source that always has a new frame)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  auto fail = [](const std::string& what) {
    std::fprintf(stderr, "rfstudio: %s\n", what.c_str());
    return 2;
  };
  if (!kind.empty()) {
    auto k = parse_filter_kind(kind);
    if (!k) return fail("unknown --filter '" + kind + "'");
    s.kind = *k;
  }
  if (!ext.empty()) {
    auto e = parse_extension(ext);
    if (!e) return fail("unknown --ext '" + ext + "'");
    s.ext = *e;
  }
  // The summed-area table takes only the zero extension: without --ext it gets that one, as
  // rfcli's does; an explicit other one is refused by the filter, in its own words.
  if (s.kind == FilterKind::Sat && ext.empty() && s.ext != Extension::Ignore)
    s.ext = Extension::Zero;
  if (!algo.empty()) {
    auto a = parse_algorithm(algo);
    if (!a) return fail("unknown --algo '" + algo + "'");
    s.algo = *a;
  }
  if (!backend.empty()) {
    auto b = parse_backend(backend);
    if (!b) return fail("unknown --backend '" + backend + "'");
    s.backend = *b;
  }
  if (!view.empty()) {
    auto v = parse_view_mode(view);
    if (!v) return fail("unknown --view '" + view + "'");
    o->view.mode = *v;
  }
  if (!truth.empty()) {
    auto t = parse_truth_mode(truth);
    if (!t) return fail("unknown --truth '" + truth + "'");
    o->diff.truth = *t;
  }
  if (!image.empty()) o->source = {SourceKind::Image, image};
  if (!folder.empty()) o->source = {SourceKind::Folder, folder};
  if (!video.empty()) o->source = {SourceKind::Video, video};
  if (!camera.empty()) o->source = {SourceKind::Camera, camera};
  if (!pattern.empty()) o->source = {SourceKind::Pattern, pattern};
  if (!pattern_size.empty()) {
    int w = 0, h = 0;
    if (std::sscanf(pattern_size.c_str(), "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 32768 ||
        h > 32768)
      return fail("--pattern-size wants WxH with sides 1..32768, got '" + pattern_size + "'");
    o->source.width = w;
    o->source.height = h;
  }
  if (!pattern_format.empty()) {
    if (pattern_format == "yuyv" || pattern_format == "YUYV")
      o->source.encoding = app::Encoding::Yuyv;
    else if (pattern_format == "nv12" || pattern_format == "NV12")
      o->source.encoding = app::Encoding::Nv12;
    else if (pattern_format == "rgba8" || pattern_format == "rgba")
      o->source.encoding = app::Encoding::Rgba;
    else
      return fail("--pattern-format wants rgba8, yuyv or nv12, got '" + pattern_format + "'");
  }
  if (!record_codec.empty()) {
    auto c = parse_record_codec(record_codec);
    if (!c) return fail("--record-codec wants h264 or ffv1, got '" + record_codec + "'");
    o->record.codec = *c;
  }
  if (!o->record.path.empty()) {
    try {
      validate_record_settings(o->record);
    } catch (const std::exception& e) {
      return fail(e.what());
    }
  }
  if (o->offscreen && o->frames == 0) o->frames = 3;
  if (pace.empty()) {
    o->pace =
        o->offscreen && o->frames > 0 && !o->record.path.empty() ? Pace::Step : Pace::Realtime;
  } else if (pace == "step") {
    o->pace = Pace::Step;
  } else if (pace == "realtime") {
    o->pace = Pace::Realtime;
  } else {
    return fail("--pace wants realtime or step, got '" + pace + "'");
  }
  if (o->hide_ui) o->view.show_ui = false;
  return std::nullopt;
}

}  // namespace rf::gui
