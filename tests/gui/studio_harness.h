// The studio in-process on the offscreen (EGL) platform, one UI frame per call, input set through
// Dear ImGui's IO, for tests that drive it like a person would.
#pragma once

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <functional>
#include <memory>

#include "app/gui/platform.h"
#include "app/gui/studio.h"
#include "app/gui/ui_style.h"

namespace rf::gui::test {

class StudioHarness {
 public:
  // `before` runs once the studio exists and before its first frame (to substitute factories).
  explicit StudioHarness(const StudioOptions& options,
                         const std::function<void(Studio&)>& before = {}) {
    platform_ = make_offscreen_platform({900, 600, "test"});
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

  void frame(const std::function<void(ImGuiIO&)>& input = {}) {
    platform_->new_frame();
    ImGuiIO& io = ImGui::GetIO();
    for (bool& k : io.KeysDown) k = false;
    io.KeyCtrl = false;
    if (input) input(io);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    studio->frame();
    ImGui::Render();
    studio->render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    studio->after_render();
    platform_->present();
  }

  // The newest message of the status bar, or "" when there is none.
  std::string last_message() const {
    return studio->messages.empty() ? std::string() : studio->messages.back().text;
  }

  std::unique_ptr<Studio> studio;

 private:
  std::unique_ptr<Platform> platform_;
};

}  // namespace rf::gui::test
