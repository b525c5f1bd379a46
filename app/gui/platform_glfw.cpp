// The GLFW window: what people use. Dear ImGui's GLFW backend feeds it input.
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <cstdlib>
#include <string>

#include "app/gui/platform.h"

namespace rf::gui {
namespace {

std::string g_last_glfw_error;

void on_glfw_error(int code, const char* text) {
  g_last_glfw_error = std::string(text) + " (GLFW error " + std::to_string(code) + ")";
}

class GlfwPlatform final : public Platform {
 public:
  explicit GlfwPlatform(const PlatformConfig& config) {
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
      const char* display = std::getenv("DISPLAY");
      const char* wayland = std::getenv("WAYLAND_DISPLAY");
      std::string why = g_last_glfw_error.empty() ? "GLFW could not start" : g_last_glfw_error;
      if ((!display || !*display) && (!wayland || !*wayland))
        why = "no display (DISPLAY is not set)";
      throw PlatformError("cannot open a window: " + why);
    }
    // OpenGL 3.3 core is all the views need (Mesa's llvmpipe provides it); drivers hand out their
    // newest compatible core version anyway.
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    window_ = glfwCreateWindow(config.width, config.height, config.title.c_str(), nullptr, nullptr);
    if (!window_) {
      std::string why = g_last_glfw_error;
      glfwTerminate();
      throw PlatformError("cannot create an OpenGL 3.3 core window: " + why);
    }
    glfwMakeContextCurrent(window_);
    glfwSwapInterval(1);
    if (!gladLoadGL(glfwGetProcAddress)) {
      glfwDestroyWindow(window_);
      glfwTerminate();
      throw PlatformError("cannot load the OpenGL functions of the window's context");
    }
    glfwSetWindowUserPointer(window_, this);
    glfwSetDropCallback(window_, [](GLFWwindow* w, int count, const char** paths) {
      auto* self = static_cast<GlfwPlatform*>(glfwGetWindowUserPointer(w));
      for (int i = 0; i < count; ++i) self->dropped_.emplace_back(paths[i]);
    });
  }

  ~GlfwPlatform() override {
    glfwDestroyWindow(window_);
    glfwTerminate();
  }

  std::string name() const override { return "GLFW window"; }
  bool offscreen() const override { return false; }

  void init_imgui() override { ImGui_ImplGlfw_InitForOpenGL(window_, true); }
  void shutdown_imgui() override { ImGui_ImplGlfw_Shutdown(); }

  void new_frame() override {
    glfwPollEvents();
    ImGui_ImplGlfw_NewFrame();
  }
  void present() override { glfwSwapBuffers(window_); }

  bool should_close() const override { return glfwWindowShouldClose(window_); }
  void request_close() override { glfwSetWindowShouldClose(window_, GLFW_TRUE); }

  unsigned framebuffer() const override { return 0; }
  int framebuffer_width() const override {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    return w;
  }
  int framebuffer_height() const override {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    return h;
  }
  float content_scale() const override {
    float x = 1.0f, y = 1.0f;
    glfwGetWindowContentScale(window_, &x, &y);
    return x > 0.0f ? x : 1.0f;
  }

  std::vector<std::string> take_dropped_paths() override {
    std::vector<std::string> out;
    out.swap(dropped_);
    return out;
  }

  void set_title(const std::string& title) override { glfwSetWindowTitle(window_, title.c_str()); }

 private:
  GLFWwindow* window_ = nullptr;
  std::vector<std::string> dropped_;
};

}  // namespace

std::unique_ptr<Platform> make_window_platform(const PlatformConfig& config) {
  return std::make_unique<GlfwPlatform>(config);
}

}  // namespace rf::gui
