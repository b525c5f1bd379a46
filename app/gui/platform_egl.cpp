// Offscreen rendering through EGL, no window and no X: the same UI drawn into a framebuffer
// object. On a GPU machine NVIDIA's EGL device platform gives a hardware context (and CUDA-GL
// interop); elsewhere Mesa's surfaceless platform gives llvmpipe.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <glad/gl.h>
#include <imgui.h>

#include <chrono>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "app/gui/platform.h"

namespace rf::gui {
namespace {

std::string egl_error_text() {
  char buf[32];
  std::snprintf(buf, sizeof buf, "EGL error 0x%04x", eglGetError());
  return buf;
}

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const std::size_t n = std::strlen(name);
  for (const char* p = std::strstr(list, name); p; p = std::strstr(p + n, name))
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

// An initialised display together with the words that say which one it is.
struct DisplayChoice {
  EGLDisplay display = EGL_NO_DISPLAY;
  std::string name;
};

// Hardware devices first (the device platform needs no X server), Mesa's surfaceless platform
// next, the default display last.
std::vector<DisplayChoice> candidate_displays(std::string& log) {
  std::vector<DisplayChoice> out;
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  auto get_platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  auto query_devices =
      reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  auto query_device_string = reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(
      eglGetProcAddress("eglQueryDeviceStringEXT"));

  if (get_platform_display && query_devices && has_extension(client, "EGL_EXT_platform_device")) {
    EGLDeviceEXT devices[16];
    EGLint count = 0;
    if (query_devices(16, devices, &count)) {
      for (EGLint i = 0; i < count; ++i) {
        const char* ext =
            query_device_string ? query_device_string(devices[i], EGL_EXTENSIONS) : "";
        if (has_extension(ext, "EGL_MESA_device_software"))
          continue;  // llvmpipe: surfaceless below
        EGLDisplay d = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
        if (d != EGL_NO_DISPLAY)
          out.push_back({d, "EGL device platform, device " + std::to_string(i)});
      }
    } else {
      log += "eglQueryDevicesEXT failed; ";
    }
  }
  if (get_platform_display && has_extension(client, "EGL_MESA_platform_surfaceless")) {
    EGLDisplay d =
        get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (d != EGL_NO_DISPLAY) out.push_back({d, "EGL Mesa surfaceless platform"});
  }
  EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (d != EGL_NO_DISPLAY) out.push_back({d, "EGL default display"});
  return out;
}

class EglPlatform final : public Platform {
 public:
  explicit EglPlatform(const PlatformConfig& config)
      : width_(config.width), height_(config.height) {
    std::string log;
    for (const DisplayChoice& c : candidate_displays(log)) {
      if (try_display(c, log)) break;
    }
    if (context_ == EGL_NO_CONTEXT)
      throw PlatformError("no EGL display gives an OpenGL 3.3 core context: " +
                          (log.empty() ? std::string("no EGL display found") : log));
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) {
      throw PlatformError("cannot load the OpenGL functions of the EGL context");
    }
    create_framebuffer();
    start_ = std::chrono::steady_clock::now();
  }

  ~EglPlatform() override {
    if (fbo_) glDeleteFramebuffers(1, &fbo_);
    if (color_) glDeleteRenderbuffers(1, &color_);
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display_, context_);
    eglTerminate(display_);
  }

  std::string name() const override { return display_name_ + " (offscreen)"; }
  bool offscreen() const override { return true; }

  void init_imgui() override {
    ImGuiIO& io = ImGui::GetIO();
    io.BackendPlatformName = "rfstudio_egl_offscreen";
    // No keyboard here, but the key map of the window platform (GLFW's key codes), so input fed
    // to Dear ImGui (by tests) means the same on both platforms.
    const std::pair<ImGuiKey, int> keys[] = {
        {ImGuiKey_Tab, 258},        {ImGuiKey_LeftArrow, 263},
        {ImGuiKey_RightArrow, 262}, {ImGuiKey_UpArrow, 265},
        {ImGuiKey_DownArrow, 264},  {ImGuiKey_PageUp, 266},
        {ImGuiKey_PageDown, 267},   {ImGuiKey_Home, 268},
        {ImGuiKey_End, 269},        {ImGuiKey_Insert, 260},
        {ImGuiKey_Delete, 261},     {ImGuiKey_Backspace, 259},
        {ImGuiKey_Space, 32},       {ImGuiKey_Enter, 257},
        {ImGuiKey_Escape, 256},     {ImGuiKey_KeyPadEnter, 335},
        {ImGuiKey_A, 'A'},          {ImGuiKey_C, 'C'},
        {ImGuiKey_V, 'V'},          {ImGuiKey_X, 'X'},
        {ImGuiKey_Y, 'Y'},          {ImGuiKey_Z, 'Z'}};
    for (const auto& [key, code] : keys) io.KeyMap[key] = code;
  }
  void shutdown_imgui() override { ImGui::GetIO().BackendPlatformName = nullptr; }

  void new_frame() override {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(float(width_), float(height_));
    io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
    // A steady 60 Hz clock: screenshots must not depend on how fast this machine renders.
    io.DeltaTime = 1.0f / 60.0f;
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  }
  void present() override { glFinish(); }

  bool should_close() const override { return close_; }
  void request_close() override { close_ = true; }

  unsigned framebuffer() const override { return fbo_; }
  int framebuffer_width() const override { return width_; }
  int framebuffer_height() const override { return height_; }
  float content_scale() const override { return 1.0f; }

  bool resize(int width, int height) override {
    if (width < 1 || height < 1) return false;
    width_ = width;
    height_ = height;
    glBindRenderbuffer(GL_RENDERBUFFER, color_);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width_, height_);
    return true;
  }

 private:
  bool try_display(const DisplayChoice& c, std::string& log) {
    EGLint major = 0, minor = 0;
    if (!eglInitialize(c.display, &major, &minor)) {
      log += c.name + ": eglInitialize failed (" + egl_error_text() + "); ";
      return false;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
      log += c.name + ": no desktop OpenGL; ";
      eglTerminate(c.display);
      return false;
    }
    const EGLint config_attribs[] = {EGL_RED_SIZE,
                                     8,
                                     EGL_GREEN_SIZE,
                                     8,
                                     EGL_BLUE_SIZE,
                                     8,
                                     EGL_ALPHA_SIZE,
                                     8,
                                     EGL_RENDERABLE_TYPE,
                                     EGL_OPENGL_BIT,
                                     EGL_NONE};
    EGLConfig config = nullptr;
    EGLint n = 0;
    if (!eglChooseConfig(c.display, config_attribs, &config, 1, &n) || n < 1) config = nullptr;
    // Newest first; 3.3 core is the floor the views are written for.
    const int versions[][2] = {{4, 6}, {4, 5}, {4, 3}, {3, 3}};
    for (const auto& v : versions) {
      const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                    v[0],
                                    EGL_CONTEXT_MINOR_VERSION,
                                    v[1],
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                    EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                    EGL_NONE};
      EGLContext ctx = eglCreateContext(c.display, config, EGL_NO_CONTEXT, ctx_attribs);
      if (ctx == EGL_NO_CONTEXT) continue;
      if (eglMakeCurrent(c.display, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        display_ = c.display;
        context_ = ctx;
        display_name_ = c.name;
        return true;
      }
      eglDestroyContext(c.display, ctx);
    }
    log += c.name + ": no OpenGL 3.3+ core context without a surface (" + egl_error_text() + "); ";
    eglTerminate(c.display);
    return false;
  }

  void create_framebuffer() {
    glGenRenderbuffers(1, &color_);
    glBindRenderbuffer(GL_RENDERBUFFER, color_);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width_, height_);
    glGenFramebuffers(1, &fbo_);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      throw PlatformError("the offscreen framebuffer is incomplete");
  }

  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  std::string display_name_;
  GLuint fbo_ = 0, color_ = 0;
  int width_, height_;
  bool close_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

std::unique_ptr<Platform> make_offscreen_platform(const PlatformConfig& config) {
  return std::make_unique<EglPlatform>(config);
}

}  // namespace rf::gui
