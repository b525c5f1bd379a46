// rfstudio: live recursive filtering. Reads top to bottom like Dear ImGui's
// example_glfw_opengl3/main.cpp: set up, loop, shut down.
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/options.h"
#include "app/gui/platform.h"
#include "app/gui/run_summary.h"
#include "app/gui/studio.h"
#include "app/gui/ui_style.h"

namespace {

using namespace rf::gui;

// A window for people, EGL without any window for --offscreen; null, with the reason printed,
// when neither opens.
std::unique_ptr<Platform> open_platform(const StudioOptions& options) {
  try {
    const PlatformConfig config{options.width, options.height, "Recursive Filter Studio"};
    return options.offscreen ? make_offscreen_platform(config) : make_window_platform(config);
  } catch (const PlatformError& e) {
    std::fprintf(stderr, "rfstudio: %s\n", e.what());
    if (!options.offscreen)
      std::fprintf(stderr,
                   "rfstudio: without a display, render offscreen instead, e.g.\n"
                   "  rfstudio --offscreen --frames 3 --screenshot out/rfstudio.png [options]\n");
    return nullptr;
  }
}

// Dear ImGui, its ini file in $XDG_CONFIG_HOME/rfstudio/ (none for offscreen and --frames runs),
// fonts at the monitor's scale unless --ui-scale sets one. Returns the scale applied.
float init_imgui(Platform& platform, const StudioOptions& options) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  static std::string ini_path;
  ini_path = platform.offscreen() || options.frames > 0 ? std::string() : imgui_ini_path();
  ImGui::GetIO().IniFilename = ini_path.empty() ? nullptr : ini_path.c_str();
  platform.init_imgui();
  ImGui_ImplOpenGL3_Init("#version 330 core");
  const float scale = options.ui_scale > 0 ? options.ui_scale : platform.content_scale();
  apply_ui_scale(scale);
  return scale;
}

// A window moved to a monitor of another scale gets fonts of that scale.
void follow_content_scale(const Platform& platform, const StudioOptions& options, float* scale) {
  if (options.ui_scale > 0 || platform.content_scale() == *scale) return;
  *scale = platform.content_scale();
  apply_ui_scale(*scale);
}

void shutdown_imgui(Platform& platform) {
  ImGui_ImplOpenGL3_Shutdown();
  platform.shutdown_imgui();
  ImGui::DestroyContext();
}

}  // namespace

int main(int argc, char** argv) {
  StudioOptions options;
  if (auto exit_code = parse_options(argc, argv, &options)) return *exit_code;
  std::unique_ptr<Platform> platform = open_platform(options);
  if (!platform) return 2;
  float scale = init_imgui(*platform, options);

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
      follow_content_scale(*platform, options, &scale);
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
    std::fputs(run_summary(frame_ms, platform->framebuffer_width(), platform->framebuffer_height(),
                           studio.stats.log(), studio.processor.path_line())
                   .c_str(),
               stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rfstudio: %s\n", e.what());
    exit_code = 1;
  }

  // Shutdown.
  shutdown_imgui(*platform);
  return exit_code;
}
