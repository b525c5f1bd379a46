#include "app/gui/ui_style.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace rf::gui {

void apply_ui_scale(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const char* candidates[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                              "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"};
  bool loaded = false;
  for (const char* path : candidates) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && io.Fonts->AddFontFromFileTTF(path, 15.0f * scale)) {
      loaded = true;
      break;
    }
  }
  if (!loaded) {
    ImFontConfig cfg;
    cfg.SizePixels = 13.0f * scale;
    io.Fonts->AddFontDefault(&cfg);
  }
  io.Fonts->Build();
  if (io.BackendRendererUserData) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  ImGuiStyle style;
  ImGui::StyleColorsDark(&style);
  style.WindowRounding = 0.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.WindowBorderSize = 0.0f;
  style.Colors[ImGuiCol_WindowBg].w = 0.96f;
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
}

std::string imgui_ini_path() {
  std::filesystem::path dir;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
    dir = std::filesystem::path(xdg) / "rfstudio";
  else if (const char* home = std::getenv("HOME"); home && *home)
    dir = std::filesystem::path(home) / ".config" / "rfstudio";
  else
    return {};
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return {};
  return (dir / "imgui.ini").string();
}

}  // namespace rf::gui
