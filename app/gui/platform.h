// The platform layer: where OpenGL draws and where input comes from. Two implementations: a GLFW
// window for people, and an EGL context without any window (NVIDIA's device platform on GPU
// machines, Mesa's surfaceless platform elsewhere) for screenshots, figure export and tests.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace rf::gui {

// The platform could not start (no display, no EGL device, no suitable GL context).
struct PlatformError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Platform {
 public:
  virtual ~Platform() = default;

  // "GLFW window", "EGL device platform (offscreen)", "EGL Mesa surfaceless (offscreen)".
  virtual std::string name() const = 0;
  virtual bool offscreen() const = 0;

  // Connects Dear ImGui's platform side (input, display size); call once after ImGui's context
  // exists, and shutdown_imgui() before it is destroyed.
  virtual void init_imgui() = 0;
  virtual void shutdown_imgui() = 0;

  // Polls events and starts ImGui's platform frame (display size, delta time, input).
  virtual void new_frame() = 0;
  // Shows the frame (swap buffers; a glFinish offscreen).
  virtual void present() = 0;

  virtual bool should_close() const = 0;
  virtual void request_close() = 0;

  // The GL framebuffer object the UI draws into (0: the window's) and its size in pixels.
  virtual unsigned framebuffer() const = 0;
  virtual int framebuffer_width() const = 0;
  virtual int framebuffer_height() const = 0;

  // The monitor's content scale (1 on a standard display, 2 on a high-DPI one): fonts and
  // widget sizes are multiplied by it.
  virtual float content_scale() const = 0;

  // Paths dropped on the window since the last call.
  virtual std::vector<std::string> take_dropped_paths() { return {}; }

  // Resizes the offscreen framebuffer, as a person resizes a window (the soak test does);
  // false where the size belongs to the window system.
  virtual bool resize(int /*width*/, int /*height*/) { return false; }

  virtual void set_title(const std::string&) {}
};

struct PlatformConfig {
  int width = 1600;
  int height = 960;
  std::string title = "Recursive Filter Studio";
};

// Throws PlatformError with a message a person can act on.
std::unique_ptr<Platform> make_window_platform(const PlatformConfig& config);
std::unique_ptr<Platform> make_offscreen_platform(const PlatformConfig& config);

}  // namespace rf::gui
