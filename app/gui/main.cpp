// rfstudio: live recursive filtering. Reads top to bottom like Dear ImGui's
// example_glfw_opengl3/main.cpp: set up, loop, shut down.
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/options.h"
#include "app/gui/platform.h"
#include "app/gui/studio.h"
#include "app/gui/ui_style.h"

int main(int argc, char** argv) {
  using namespace rf::gui;

  StudioOptions options;
  if (auto exit_code = parse_options(argc, argv, &options)) return *exit_code;

  // Platform: a window for people, EGL without any window for --offscreen.
  std::unique_ptr<Platform> platform;
  try {
    const PlatformConfig config{options.width, options.height, "Recursive Filter Studio"};
    platform = options.offscreen ? make_offscreen_platform(config) : make_window_platform(config);
  } catch (const PlatformError& e) {
    std::fprintf(stderr, "rfstudio: %s\n", e.what());
    if (!options.offscreen)
      std::fprintf(stderr,
                   "rfstudio: without a display, render offscreen instead, e.g.\n"
                   "  rfstudio --offscreen --frames 3 --screenshot out/rfstudio.png [options]\n");
    return 2;
  }

  // Dear ImGui, its ini file in $XDG_CONFIG_HOME/rfstudio/, fonts at the monitor's scale.
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  static std::string ini_path;
  ini_path = platform->offscreen() || options.frames > 0 ? std::string() : imgui_ini_path();
  io.IniFilename = ini_path.empty() ? nullptr : ini_path.c_str();
  platform->init_imgui();
  ImGui_ImplOpenGL3_Init("#version 330 core");
  float scale = options.ui_scale > 0 ? options.ui_scale : platform->content_scale();
  apply_ui_scale(scale);

  int exit_code = 0;
  try {
    Studio studio(options, *platform);
    std::printf("rfstudio: %s, OpenGL %s (%s)\n", platform->name().c_str(),
                reinterpret_cast<const char*>(glGetString(GL_VERSION)),
                reinterpret_cast<const char*>(glGetString(GL_RENDERER)));

    // Main loop.
    std::vector<double> frame_ms;
    auto last = std::chrono::steady_clock::now();
    while (!platform->should_close() && !studio.done()) {
      platform->new_frame();
      if (options.ui_scale <= 0 && platform->content_scale() != scale) {
        scale = platform->content_scale();
        apply_ui_scale(scale);
      }
      ImGui_ImplOpenGL3_NewFrame();
      ImGui::NewFrame();
      studio.frame();
      ImGui::Render();
      studio.render();
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      studio.after_render();
      platform->present();
      const auto now = std::chrono::steady_clock::now();
      frame_ms.push_back(std::chrono::duration<double, std::milli>(now - last).count());
      last = now;
    }
    // The frames in flight finish and a recording completes its file before the summary.
    studio.finish();
    exit_code = studio.exit_code();
    // Frame times of a --frames run, without the first (set-up) and last (truth wait, capture).
    if (frame_ms.size() > 3) {
      std::vector<double> steady(frame_ms.begin() + 1, frame_ms.end() - 1);
      std::sort(steady.begin(), steady.end());
      const double median = steady[steady.size() / 2];
      std::printf(
          "rfstudio: %zu frames at %dx%d, median %.2f ms per frame (%.1f fps) wall clock, "
          "UI and filter path included\n",
          steady.size(), platform->framebuffer_width(), platform->framebuffer_height(), median,
          1000.0 / median);
      // Medians of the filter path's parts, the first run (planning, graph capture) left out;
      // upload over the runs that moved a new frame.
      const std::vector<FrameTiming>& log = studio.timing_log;
      if (log.size() > 2) {
        // Over every run, the runs with a new frame, or the runs the view drew.
        enum Runs { kAll, kUploads, kDrawn };
        auto median_of = [&](auto get, Runs runs) {
          std::vector<double> v;
          for (std::size_t i = 1; i < log.size(); ++i)
            if (runs == kAll || (runs == kUploads ? log[i].uploaded : log[i].drawn))
              v.push_back(get(log[i]));
          if (v.empty()) return 0.0;
          std::sort(v.begin(), v.end());
          return v[v.size() / 2];
        };
        std::size_t uploads = 0;
        for (std::size_t i = 1; i < log.size(); ++i) uploads += log[i].uploaded;
        std::printf(
            "rfstudio: filter path over %zu runs (%s, %s): median upload %.3f ms (%zu "
            "runs with a new frame), filter %.3f ms, interop %.3f ms; median total %.3f ms "
            "with upload, %.3f ms without\n",
            log.size() - 1, log.back().gpu_events ? "CUDA events" : "host clock",
            studio.processor.path_line().c_str(),
            median_of([](const FrameTiming& t) { return t.upload_ms; }, kUploads), uploads,
            median_of([](const FrameTiming& t) { return t.filter_ms; }, kAll),
            median_of([](const FrameTiming& t) { return t.interop_ms; }, kDrawn),
            median_of([](const FrameTiming& t) { return t.total_ms(); }, kUploads),
            median_of([](const FrameTiming& t) { return t.filter_ms + t.interop_ms; }, kAll));
        // The pipelined path: frames overlap, so the time per frame is the interval between
        // completions, not the sum of the stages. Several frames can be queued in one UI frame,
        // so the intervals come in bursts: their mean is the GPU time per frame the path
        // sustains (its throughput), their median the pace within a burst. Only the newest
        // finished frame is drawn.
        if (log.back().pipelined) {
          std::size_t drawn = 0;
          double interval_sum = 0.0;
          for (std::size_t i = 1; i < log.size(); ++i) {
            drawn += log[i].drawn;
            interval_sum += log[i].interval_ms;
          }
          const double mean = interval_sum / double(log.size() - 1);
          std::printf(
              "rfstudio: pipelined frames (%zu with a new frame, %zu drawn): median convert %.3f "
              "ms, readback %.3f ms, present %.3f ms, GPU frame to frame %.3f ms mean (%.0f frames "
              "per second), median %.3f ms, arrival to display %.3f ms\n",
              uploads, drawn,
              median_of([](const FrameTiming& t) { return t.convert_ms; }, kUploads),
              median_of([](const FrameTiming& t) { return t.readback_ms; }, kUploads),
              median_of([](const FrameTiming& t) { return t.interop_ms; }, kDrawn), mean,
              mean > 0.0 ? 1000.0 / mean : 0.0,
              median_of([](const FrameTiming& t) { return t.interval_ms; }, kAll),
              median_of([](const FrameTiming& t) { return t.latency_ms; }, kUploads));
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rfstudio: %s\n", e.what());
    exit_code = 1;
  }

  // Shutdown.
  ImGui_ImplOpenGL3_Shutdown();
  platform->shutdown_imgui();
  ImGui::DestroyContext();
  return exit_code;
}
