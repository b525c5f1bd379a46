// The compositor draws the canvas with shaders/view.*.glsl: one full-viewport pass per pane.
#pragma once

#include <glad/gl.h>

#include "app/gui/view_math.h"
#include "app/gui/view_settings.h"
#include "filters/core/extension.h"

namespace rf::gui {

// A pane of the framebuffer in pixels, origin top-left, y down.
struct Pane {
  int x = 0, y = 0, w = 0, h = 0;
};

// What one pane shows.
struct PaneContent {
  int shader_mode = 1;  // see shaders/view.frag.glsl
  GLuint original = 0, result = 0, truth = 0;
  int width = 0, height = 0;
  ViewTransform transform;
  float split = 0.0f;  // image x of the split-wipe handle
  bool diff_log = true;
  float amplification = 1.0f;
  float low_decade = -7.0f, high_decade = 0.0f;
  Extension extension = Extension::Mirror;
  float cval = 0.0f;  // the constant extension's value (FilterSpec::cval)
  bool tiles_result = false;
  float result_gain = 1.0f;
  DerivativeView derivative;  // how a derivative's result is coloured
};

class Compositor {
 public:
  Compositor();  // compiles the embedded shaders; throws std::runtime_error with the GL log
  ~Compositor();
  Compositor(const Compositor&) = delete;
  Compositor& operator=(const Compositor&) = delete;

  void draw(const Pane& pane, int framebuffer_height, const PaneContent& content);

 private:
  GLuint program_ = 0, vao_ = 0;
};

// The shader mode of a view mode (side by side draws modes 0 and 1 in two panes).
int shader_mode(ViewMode mode);

}  // namespace rf::gui
