#include "app/gui/compositor.h"

#include "app/gui/embedded.h"
#include "app/gui/gl_util.h"

namespace rf::gui {

int shader_mode(ViewMode mode) {
  switch (mode) {
    case ViewMode::Original:
      return 0;
    case ViewMode::Diff:
      return 2;
    case ViewMode::Split:
      return 3;
    case ViewMode::Tiles:
      return 4;
    case ViewMode::Impulse:
      return 5;
    default:
      return 1;
  }
}

Compositor::Compositor() {
  program_ =
      build_program(embedded("shaders/view.vert.glsl"), embedded("shaders/view.frag.glsl"), "view");
  glGenVertexArrays(1, &vao_);
}

Compositor::~Compositor() {
  glDeleteProgram(program_);
  glDeleteVertexArrays(1, &vao_);
}

void Compositor::draw(const Pane& pane, int framebuffer_height, const PaneContent& c) {
  if (pane.w <= 0 || pane.h <= 0) return;
  glViewport(pane.x, framebuffer_height - pane.y - pane.h, pane.w, pane.h);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glUseProgram(program_);
  auto loc = [this](const char* name) { return glGetUniformLocation(program_, name); };
  glUniform2f(loc("u_canvas_origin"), float(pane.x), float(pane.y));
  glUniform1f(loc("u_framebuffer_height"), float(framebuffer_height));
  glUniform1f(loc("u_zoom"), c.transform.zoom);
  glUniform2f(loc("u_offset"), c.transform.offset.x, c.transform.offset.y);
  glUniform2i(loc("u_image_size"), c.width, c.height);
  glUniform1i(loc("u_mode"), c.shader_mode);
  glUniform1i(loc("u_has_truth"), c.truth != 0);
  glUniform1f(loc("u_split"), c.split);
  glUniform1i(loc("u_diff_log"), c.diff_log);
  glUniform1f(loc("u_amplification"), c.amplification);
  glUniform1f(loc("u_low_decade"), c.low_decade);
  glUniform1f(loc("u_high_decade"), c.high_decade);
  glUniform1i(loc("u_extension"), int(c.extension));
  glUniform1f(loc("u_cval"), c.cval);
  glUniform1i(loc("u_tiles_result"), c.tiles_result);
  glUniform1f(loc("u_result_gain"), c.result_gain);
  glUniform1i(loc("u_signed_view"), int(c.derivative.view));
  glUniform1f(loc("u_signed_range"), c.derivative.range);
  const GLuint textures[3] = {c.original, c.result, c.truth ? c.truth : c.result};
  const char* names[3] = {"u_original", "u_result", "u_truth"};
  for (int i = 0; i < 3; ++i) {
    glActiveTexture(GL_TEXTURE0 + i);
    glBindTexture(GL_TEXTURE_2D, textures[i]);
    glUniform1i(loc(names[i]), i);
  }
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUseProgram(0);
}

}  // namespace rf::gui
