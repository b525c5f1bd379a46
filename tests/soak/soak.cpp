// rfstudio_soak: the studio driven by random input for a given time, to find what only long use
// finds: crashes, leaks, slow frames and memory that grows. The studio runs in-process on the
// offscreen (EGL) platform, as tests/gui/test_studio_input.cpp drives it, with main()'s frame
// loop. Each frame the driver does one random thing a person could do:
//   - pointer input through Dear ImGui: moves, clicks, drags (sliders, combos, buttons, the
//     canvas), the wheel; keys (D, Tab, Space, F, 1, Ctrl+S export, Ctrl+O and a typed path);
//   - what the widgets do to the studio's state: every filter kind, parameter, extension,
//     algorithm and backend, every view and diff setting, the truth on or off, live filtering;
//   - source switches between the built-in image, image files, a folder, a video and every
//     pattern at random sizes; drops of bad files (empty, truncated, random bytes, a header that
//     claims a huge image, a missing path, a folder without images, a text file);
//   - resizes of the framebuffer, pauses and steps, exports.
// It fails (exit status 1) on a UI frame slower than --max-frame-ms (default 1000; the driver's
// action, the studio's frame and the render together; a frame that exports, which writes four
// files on the UI thread, against --max-export-ms, default 3000: 0.23 s in the release build at
// 1604x1032, up to 1.1 s in the sanitized one on a loaded machine), or when the resident memory
// keeps growing: after a warm-up, the peak of the last quarter of the run may exceed the peak of
// the second quarter by at most --max-growth-mb (default 64; judged in runs of 10 minutes or
// more). Crashes, sanitizer reports and leaks
// are AddressSanitizer's to report (scripts/soak.sh builds with it).
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "app/gui/platform.h"
#include "app/gui/studio.h"
#include "app/gui/ui_style.h"
#include "app/io/image_io.h"
#include "filters/core/engine.h"
#include "tests/random_data.h"

namespace fs = std::filesystem;
using namespace rf;
using namespace rf::gui;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Resident set size in MiB, from /proc/self/statm (pages).
double rss_mib() {
  std::ifstream f("/proc/self/statm");
  long long size = 0, resident = 0;
  f >> size >> resident;
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// The files the driver opens and drops: good ones, and the bad ones a person drops by mistake.
struct Media {
  fs::path dir;
  std::vector<std::string> images;  // readable stills of several formats
  std::string folder;               // a folder of images played as a sequence
  std::string video;                // empty when ffmpeg is missing
  std::vector<std::string> bad;     // everything that must be refused with a message

  explicit Media(std::mt19937& rng) {
    dir = fs::temp_directory_path() / ("rf_soak_" + std::to_string(::getpid()));
    fs::create_directories(dir / "folder");
    fs::create_directories(dir / "no-images");
    // Each image seeded from the run's generator: a run's seed replays its media too.
    auto random_image = [&](int w, int h, int c) { return rf::test::random_image(w, h, c, rng()); };
    const std::pair<const char*, int> stills[] = {
        {"rgb.png", 3},   {"gray.png", 1},     {"rgba.png", 4}, {"photo.jpg", 3},
        {"float.pfm", 3}, {"radiance.hdr", 3}, {"old.bmp", 3},  {"old.tga", 4}};
    int k = 0;
    for (const auto& [name, channels] : stills) {
      const std::string path = (dir / name).string();
      io::write_image(path, random_image(97 + 31 * k, 61 + 17 * k, channels));
      images.push_back(path);
      ++k;
    }
    for (int i = 0; i < 4; ++i)
      io::write_image((dir / "folder" / ("frame" + std::to_string(i) + ".png")).string(),
                      random_image(160, 120, 3));
    folder = (dir / "folder").string();
    const std::string clip = (dir / "clip.mp4").string();
    const std::string cmd =
        "ffmpeg -v error -f lavfi -i testsrc2=size=320x240:rate=10 -t 2 -pix_fmt yuv420p -y '" +
        clip + "' > /dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0 && fs::exists(clip)) video = clip;

    auto write_bytes = [&](const std::string& name, const std::string& bytes) {
      const std::string path = (dir / name).string();
      std::ofstream(path, std::ios::binary) << bytes;
      bad.push_back(path);
    };
    write_bytes("empty.png", "");
    const std::vector<std::uint8_t> noise = rf::test::random_bytes(4096, rng());
    write_bytes("noise.png", std::string(noise.begin(), noise.end()));
    write_bytes("notes.txt", "not an image\n");
    // A PNG signature and header that claim 30000 x 30000 pixels, with no pixel data.
    write_bytes("claims-huge.png",
                std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x75\x30\0\0\x75\x30\x08\x06\0\0\0"
                            "\0\0\0\0",
                            33));
    std::ifstream jpg(images[3], std::ios::binary);
    const std::string whole((std::istreambuf_iterator<char>(jpg)), {});
    write_bytes("cut.jpg", whole.substr(0, whole.size() / 2));
    std::ifstream png(images[0], std::ios::binary);
    const std::string png_bytes((std::istreambuf_iterator<char>(png)), {});
    write_bytes("cut.png", png_bytes.substr(0, png_bytes.size() * 2 / 3));
    bad.push_back((dir / "missing.png").string());
    bad.push_back((dir / "no-images").string());
    bad.push_back((dir / "broken.mp4").string());
    std::ofstream((dir / "broken.mp4").string()) << "not a video";
  }
  ~Media() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

struct Options {
  double minutes = 1.0;
  unsigned seed = 15;
  double max_frame_ms = 1000.0;
  double max_export_ms = 3000.0;
  double max_growth_mb = 64.0;
  std::string rss_csv;
};

class Driver {
 public:
  Driver(const Options& o, Media& media) : o_(o), media_(media), rng_(o.seed) {
    platform_ = make_offscreen_platform({1280, 800, "soak"});
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    platform_->init_imgui();
    ImGui_ImplOpenGL3_Init("#version 330 core");
    apply_ui_scale(1.0f);
    StudioOptions so;
    so.spec.sigma = 3.0;
    studio_ = std::make_unique<Studio>(so, *platform_);
    studio_->export_dir = (media_.dir / "exports").string();
    width_ = 1280;
    height_ = 800;
  }
  ~Driver() {
    studio_.reset();
    ImGui_ImplOpenGL3_Shutdown();
    platform_->shutdown_imgui();
    ImGui::DestroyContext();
  }

  int run() {
    const auto t0 = Clock::now();
    const double total = o_.minutes * 60.0;
    double next_sample = 0.0;
    std::printf("soak: %.1f min, seed %u, offscreen %s, %s\n", o_.minutes, o_.seed,
                platform_->name().c_str(), media_.video.empty() ? "no video (ffmpeg missing)" : "");
    std::fflush(stdout);
    while (seconds_since(t0) < total) {
      const auto f0 = Clock::now();
      const std::uint64_t exports_before = studio_->exports_written;
      act();
      frame();
      const double ms = seconds_since(f0) * 1000.0;
      ++frames_;
      if (ms > worst_ms_) {
        worst_ms_ = ms;
        worst_action_ = last_action_;
      }
      slowest_.push_back({ms, last_action_});
      std::sort(slowest_.begin(), slowest_.end(),
                [](const auto& a, const auto& b) { return a.first > b.first; });
      if (slowest_.size() > 5) slowest_.pop_back();
      // Ctrl+S, the export button or the driver's own call: the studio counts what it wrote.
      const bool exported = studio_->exports_written != exports_before;
      const double limit = exported ? o_.max_export_ms : o_.max_frame_ms;
      if (ms > limit) {
        std::printf("soak: FAIL: frame %lld took %.0f ms (limit %.0f) after: %s\n", frames_, ms,
                    limit, last_action_.c_str());
        print_recent();
        return 1;
      }
      const double t = seconds_since(t0);
      if (t >= next_sample) {
        rss_.push_back({t, rss_mib()});
        next_sample = t + 1.0;
      }
      if (platform_->should_close()) {
        std::printf("soak: FAIL: the studio asked to close (Esc outside a popup?)\n");
        return 1;
      }
    }
    return report(seconds_since(t0));
  }

 private:
  struct Sample {
    double t, mib;
  };

  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng_)];
  }
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  bool chance(double p) { return uniform(0.0, 1.0) < p; }
  void note(std::string what) {
    last_action_ = what;
    recent_.push_back(std::move(what));
    if (recent_.size() > 24) recent_.pop_front();
  }
  void print_recent() const {
    std::printf("soak: the last actions, oldest first:\n");
    for (const std::string& a : recent_) std::printf("  %s\n", a.c_str());
  }

  // One UI frame with the pending input: main()'s loop body.
  void frame() {
    platform_->new_frame();
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse_;
    for (bool& k : io.KeysDown) k = false;
    io.KeyCtrl = false;
    io.MouseWheel = 0.0f;
    for (int b = 0; b < 3; ++b) io.MouseDown[b] = buttons_[b];
    for (int key : keys_) io.KeysDown[key] = true;
    io.KeyCtrl = ctrl_;
    io.MouseWheel = wheel_;
    if (!typed_.empty()) io.AddInputCharactersUTF8(typed_.c_str());
    keys_.clear();
    ctrl_ = false;
    wheel_ = 0.0f;
    typed_.clear();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    studio_->frame();
    ImGui::Render();
    studio_->render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    studio_->after_render();
    platform_->present();
  }

  // A point over the panels (where the sliders are) more often than over the canvas.
  ImVec2 random_point() {
    const float fw = float(width_), fh = float(height_);
    const double r = uniform(0.0, 1.0);
    if (r < 0.55) return ImVec2(float(uniform(0.0, 0.27 * fw)), float(uniform(0.0, fh)));
    if (r < 0.75) return ImVec2(float(uniform(0.75 * fw, fw)), float(uniform(0.0, fh)));
    return ImVec2(float(uniform(0.0, fw)), float(uniform(0.0, fh)));
  }

  void act() {
    // A held button is released after a few frames (a click or a drag).
    if (hold_frames_ > 0 && --hold_frames_ == 0) {
      for (bool& b : buttons_) b = false;
      note("release");
      return;
    }
    if (hold_frames_ > 0) {
      mouse_.x += float(uniform(-40, 40));
      mouse_.y += float(uniform(-10, 10));
      return;
    }
    const int what = uniform(0, 99);
    if (what < 30) return pointer();
    if (what < 42) return key();
    if (what < 70) return change_state();
    if (what < 78) return switch_source();
    if (what < 83) return drop_bad_file();
    if (what < 87) return resize();
    if (what < 90) return export_now();
    if (what < 93) return type_path();
    note("idle");
  }

  void pointer() {
    mouse_ = random_point();
    const int kind = uniform(0, 9);
    if (kind < 5) {
      buttons_[0] = true;
      hold_frames_ = uniform(1, 6);
      note("click/drag at " + std::to_string(int(mouse_.x)) + "," + std::to_string(int(mouse_.y)));
    } else if (kind < 7) {
      wheel_ = float(uniform(-3, 3));
      note("wheel " + std::to_string(int(wheel_)));
    } else if (kind < 8) {
      buttons_[uniform(1, 2)] = true;
      hold_frames_ = uniform(1, 4);
      note("right/middle drag");
    } else {
      note("move to " + std::to_string(int(mouse_.x)) + "," + std::to_string(int(mouse_.y)));
    }
  }

  void key() {
    const bool popup = ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId);
    // Esc quits outside a popup: only pressed to close one.
    if (popup && chance(0.5)) {
      keys_.push_back(ImGui::GetKeyIndex(ImGuiKey_Escape));
      note("Esc (closes the popup)");
      return;
    }
    const int k = uniform(0, 7);
    switch (k) {
      case 0:
        keys_.push_back('D');
        note("key D");
        break;
      case 1:
        keys_.push_back(ImGui::GetKeyIndex(ImGuiKey_Tab));
        note("key Tab");
        break;
      case 2:
        keys_.push_back(ImGui::GetKeyIndex(ImGuiKey_Space));
        note("key Space");
        break;
      case 3:
        keys_.push_back('F');
        note("key F");
        break;
      case 4:
        keys_.push_back('1');
        note("key 1");
        break;
      case 5:
        keys_.push_back('S');
        ctrl_ = true;
        ++exports_;
        note("Ctrl+S");
        break;
      case 6:
        keys_.push_back('O');
        ctrl_ = true;
        note("Ctrl+O");
        break;
      default:
        keys_.push_back(ImGui::GetKeyIndex(ImGuiKey_Enter));
        note("Enter");
        break;
    }
  }

  // What the filter, view and diff widgets do: they change the studio's plain structs only.
  void change_state() {
    FilterSpec& s = studio_->spec;
    ViewSettings& v = studio_->view;
    DiffSettings& d = studio_->diff;
    const int k = uniform(0, 17);
    std::string what;
    switch (k) {
      case 0:
        s.kind = FilterKind(uniform(0, int(FilterKind::EdgeAware)));
        what = std::string("filter ") + to_string(s.kind);
        break;
      case 1:
        s.sigma = std::exp(uniform(std::log(0.5), std::log(256.0)));
        what = "sigma " + std::to_string(s.sigma);
        break;
      case 2:
        s.order = uniform(1, 5);
        what = "order " + std::to_string(s.order);
        break;
      case 3:
        s.pole = uniform(-0.99, 0.99);
        what = "pole " + std::to_string(s.pole);
        break;
      case 4:
        s.ext = pick(std::vector<Extension>(std::begin(kAllExtensions), std::end(kAllExtensions)));
        s.cval = s.ext == Extension::Constant ? uniform(-1.0, 2.0) : 0.0;
        what = std::string("extension ") + to_string(s.ext) +
               (s.ext == Extension::Constant ? " " + std::to_string(s.cval) : "");
        break;
      case 5:
        s.sigma_r = std::exp(uniform(std::log(0.01), std::log(2.0)));
        s.kappa = uniform(0.5, 8.0);
        s.iterations = uniform(1, 5);
        what = "edge-aware sigma_r " + std::to_string(s.sigma_r) + " kappa " +
               std::to_string(s.kappa) + " iterations " + std::to_string(s.iterations);
        break;
      case 6: {
        // Mostly what the algorithm box offers; sometimes one it does not (the error path).
        std::vector<Algorithm> offered = algorithms_for(s.backend, s.kind);
        s.algo = chance(0.85) ? pick(offered) : Algorithm(uniform(0, int(Algorithm::EdgeExact)));
        what = std::string("algorithm ") + to_string(s.algo);
        break;
      }
      case 7:
        s.backend = Backend(uniform(0, 2));
        what = std::string("backend ") + to_string(s.backend);
        break;
      case 8:
      case 9:
        v.mode = ViewMode(uniform(0, int(ViewMode::Impulse)));
        what = std::string("view ") + to_string(v.mode);
        break;
      case 10:
        v.split = float(uniform(0.0, 1.0));
        v.amplification = float(std::exp(uniform(0.0, std::log(1000.0))));
        v.diff_scale = chance(0.5) ? DiffScale::Log : DiffScale::Linear;
        what = "split, amplification, diff scale";
        break;
      case 11:
        v.tiles_show_result = !v.tiles_show_result;
        v.profile_vertical = !v.profile_vertical;
        v.profile_line = uniform(-1, 600);
        what = "tiles source, profile direction and line";
        break;
      case 12:
        v.probe_x = uniform(-1, 600);
        v.probe_y = uniform(-1, 600);
        what = "probe " + std::to_string(v.probe_x) + "," + std::to_string(v.probe_y);
        break;
      case 13:
        d.truth = TruthMode(uniform(0, 2));
        d.truth_ext = Extension(uniform(int(Extension::Zero), int(Extension::Mirror)));
        what = std::string("truth ") + to_string(d.truth);
        break;
      case 14:
        d.auto_band = chance(0.5);
        d.band = uniform(1, 64);
        what = "band " + std::to_string(d.band);
        break;
      case 15:
        studio_->truth_enabled = !studio_->truth_enabled;
        what = studio_->truth_enabled ? "truth on" : "truth off";
        break;
      case 16:
        studio_->filter_every_frame = !studio_->filter_every_frame;
        what = studio_->filter_every_frame ? "live filtering on" : "live filtering off";
        break;
      default:
        if (studio_->source.animated()) {
          studio_->source.set_paused(!studio_->source.paused());
          if (studio_->source.paused()) studio_->source.step();
        }
        what = "pause/step";
        break;
    }
    note(what);
  }

  void switch_source() {
    static const std::vector<std::string> patterns = {"impulses", "steps", "checkerboard",
                                                      "periodic", "noise", "moving-bar"};
    const int k = uniform(0, 9);
    SourceChoice c;
    if (k < 3) {
      c = {SourceKind::Pattern, pick(patterns)};
      c.width = uniform(1, 512);
      c.height = uniform(1, 512);
    } else if (k < 5) {
      c = {SourceKind::Image, pick(media_.images)};
    } else if (k < 6) {
      c = {SourceKind::Folder, media_.folder};
      c.fps = pick(std::vector<double>{1, 5, 10, 30, 60});
    } else if (k < 8 && !media_.video.empty()) {
      c = {SourceKind::Video, media_.video};
    } else if (k < 9) {
      c = {SourceKind::Default, {}};
    } else {
      c = {SourceKind::Camera, "/dev/video" + std::to_string(uniform(0, 3))};
    }
    c.loop = chance(0.8);
    note("open " + std::string(c.path.empty() ? "the built-in image" : c.path) +
         (c.kind == SourceKind::Pattern
              ? " " + std::to_string(c.width) + "x" + std::to_string(c.height)
              : ""));
    studio_->open_source(c);
  }

  // A drop goes where the platform's dropped paths go: Studio::open_path.
  void drop_bad_file() {
    const std::string& path = chance(0.8) ? pick(media_.bad) : pick(media_.images);
    note("drop " + path);
    studio_->open_path(path);
  }

  // The Ctrl+O dialog with a path typed in (good or bad), then Enter. (Between frames Dear ImGui
  // can only say whether any popup is open; typing into another one does no harm.)
  void type_path() {
    if (!ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) {
      studio_->open_dialog_requested = true;
      note("Ctrl+O dialog");
      return;
    }
    typed_ = chance(0.5) ? pick(media_.bad) : pick(media_.images);
    keys_.push_back(ImGui::GetKeyIndex(ImGuiKey_Enter));
    note("typed " + typed_ + " + Enter");
  }

  void resize() {
    width_ = uniform(320, 1920);
    height_ = uniform(240, 1200);
    platform_->resize(width_, height_);
    note("resize " + std::to_string(width_) + "x" + std::to_string(height_));
  }

  void export_now() {
    // Exports go to a folder emptied now and then, so the disk does not fill over hours.
    if (++exports_ % 20 == 0) {
      std::error_code ec;
      fs::remove_all(studio_->export_dir, ec);
    }
    note("export");
    studio_->export_all(studio_->next_export_stem());
  }

  int report(double seconds) {
    std::printf("soak: %lld frames in %.1f s (%.1f fps), slowest frame %.0f ms after: %s\n",
                frames_, seconds, double(frames_) / seconds, worst_ms_, worst_action_.c_str());
    std::printf("soak: the slowest frames:");
    for (const auto& [ms, action] : slowest_) std::printf(" %.0f ms (%s);", ms, action.c_str());
    std::printf("\n");
    if (!o_.rss_csv.empty()) {
      std::ofstream csv(o_.rss_csv);
      csv << "seconds,rss_mib\n";
      for (const Sample& s : rss_) csv << s.t << "," << s.mib << "\n";
    }
    // Memory: the peak of the last quarter against the peak of the second quarter (the first
    // quarter warms up allocator caches, the sanitizer's quarantine and the driver's media).
    double q2 = 0.0, q4 = 0.0;
    for (const Sample& s : rss_) {
      if (s.t >= 0.25 * seconds && s.t < 0.5 * seconds) q2 = std::max(q2, s.mib);
      if (s.t >= 0.75 * seconds) q4 = std::max(q4, s.mib);
    }
    const double first = rss_.empty() ? 0.0 : rss_.front().mib;
    const double last = rss_.empty() ? 0.0 : rss_.back().mib;
    std::printf(
        "soak: resident memory %.0f MiB at the start, peak %.0f MiB in the second quarter, "
        "%.0f MiB in the last, %.0f MiB at the end\n",
        first, q2, q4, last);
    std::size_t errors = 0;
    for (const Message& m : studio_->messages) errors += m.error;
    std::printf("soak: %d exports; %zu of the last %zu messages were errors (bad files expected)\n",
                exports_, errors, studio_->messages.size());
    // The warm-up takes minutes: in a 30-minute run the resident memory climbed from 236 to its
    // plateau (581 MiB) within the first half, then held (584 MiB in the last quarter). Runs
    // shorter than 10 minutes are all warm-up, so their growth is reported, not judged.
    if (seconds < 600.0) {
      std::printf("soak: memory growth not judged in a run under 10 minutes (the warm-up)\n");
    } else if (q2 > 0.0 && q4 - q2 > o_.max_growth_mb) {
      std::printf(
          "soak: FAIL: memory grew by %.0f MiB between the second and the last quarter "
          "(limit %.0f MiB)\n",
          q4 - q2, o_.max_growth_mb);
      return 1;
    }
    std::printf("soak: PASS\n");
    return 0;
  }

  Options o_;
  Media& media_;
  std::mt19937 rng_;
  std::unique_ptr<Platform> platform_;
  std::unique_ptr<Studio> studio_;
  int width_ = 0, height_ = 0;
  ImVec2 mouse_{-1, -1};
  bool buttons_[3] = {false, false, false};
  int hold_frames_ = 0;
  std::vector<int> keys_;
  bool ctrl_ = false;
  float wheel_ = 0.0f;
  std::string typed_;
  long long frames_ = 0;
  int exports_ = 0;
  double worst_ms_ = 0.0;
  std::string last_action_ = "start", worst_action_;
  std::deque<std::string> recent_;
  std::vector<std::pair<double, std::string>> slowest_;  // the five slowest, slowest first
  std::vector<Sample> rss_;
};

int usage() {
  std::fprintf(stderr,
               "usage: rfstudio_soak [--minutes M] [--seed N] [--max-frame-ms MS] "
               "[--max-export-ms MS] [--max-growth-mb MB] [--rss-csv FILE]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string v = argv[++i];
    if (a == "--minutes")
      o.minutes = std::atof(v.c_str());
    else if (a == "--seed")
      o.seed = unsigned(std::strtoul(v.c_str(), nullptr, 10));
    else if (a == "--max-frame-ms")
      o.max_frame_ms = std::atof(v.c_str());
    else if (a == "--max-export-ms")
      o.max_export_ms = std::atof(v.c_str());
    else if (a == "--max-growth-mb")
      o.max_growth_mb = std::atof(v.c_str());
    else if (a == "--rss-csv")
      o.rss_csv = v;
    else
      return usage();
  }
  if (!(o.minutes > 0.0)) return usage();
  try {
    std::mt19937 rng(o.seed);
    Media media(rng);
    Driver driver(o, media);
    return driver.run();
  } catch (const std::exception& e) {
    std::printf("soak: FAIL: %s\n", e.what());
    return 1;
  }
}
