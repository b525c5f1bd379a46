// The studio in-process on the offscreen (EGL) platform, one UI frame per call, input set through
// Dear ImGui's IO, for tests that drive it like a person would.
#pragma once

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <functional>
#include <memory>
#include <string>

#include "app/gui/platform.h"
#include "app/gui/studio.h"
#include "app/gui/ui_style.h"

namespace rf::gui::test {

class StudioHarness {
 public:
  // `before` runs once the studio exists and before its first frame (to substitute factories);
  // the framebuffer is width x height.
  explicit StudioHarness(const StudioOptions& options,
                         const std::function<void(Studio&)>& before = {}, int width = 900,
                         int height = 600) {
    platform_ = make_offscreen_platform({width, height, "test"});
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    platform_->init_imgui();
    ImGui_ImplOpenGL3_Init("#version 330 core");
    apply_ui_scale(1.0f);
    studio = std::make_unique<Studio>(options, *platform_);
    if (before) before(*studio);
    frame();
  }
  ~StudioHarness() {
    studio.reset();
    ImGui_ImplOpenGL3_Shutdown();
    platform_->shutdown_imgui();
    ImGui::DestroyContext();
  }

  // One UI frame. Keys, buttons and the wheel start released; the mouse stays where the last
  // frame left it. `input` then sets ImGui's input state.
  void frame(const std::function<void(ImGuiIO&)>& input = {}) {
    platform_->new_frame();
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse_;
    for (bool& k : io.KeysDown) k = false;
    io.KeyCtrl = false;
    io.MouseWheel = 0.0f;
    for (bool& b : io.MouseDown) b = false;
    if (input) input(io);
    mouse_ = io.MousePos;
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    studio->frame();
    ImGui::Render();
    studio->render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    studio->after_render();
    platform_->present();
  }

  // A key pressed for one frame (with Ctrl when `ctrl`), then released for one.
  void press(int key, bool ctrl = false) {
    frame([&](ImGuiIO& io) {
      io.KeysDown[key] = true;
      io.KeyCtrl = ctrl;
    });
    frame();
  }

  ImVec2 canvas_centre() const {
    const CanvasRect& c = studio->canvas.rect();
    return ImVec2(c.x + 0.5f * c.w, c.y + 0.5f * c.h);
  }
  bool closed() const { return platform_->should_close(); }

  // The newest message of the status bar, or "" when there is none.
  std::string last_message() const {
    return studio->messages.empty() ? std::string() : studio->messages.back().text;
  }

  std::unique_ptr<Studio> studio;

 private:
  std::unique_ptr<Platform> platform_;
  ImVec2 mouse_{-1, -1};
};

}  // namespace rf::gui::test
