// Small OpenGL helpers: textures owned by RAII, shader compilation with readable errors.
#pragma once

#include <glad/gl.h>

#include <string>
#include <string_view>

namespace rf::gui {

class Texture {
 public:
  Texture() = default;
  ~Texture() { reset(); }
  Texture(const Texture&) = delete;
  Texture& operator=(const Texture&) = delete;

  // (Re)allocates when the size or format changes; nearest filtering, so zoomed pixels stay
  // sharp squares (the inspector reads exact values).
  void allocate(GLenum internal_format, int width, int height);
  void upload(GLenum format, GLenum type, const void* pixels);
  void reset();
  GLuint id() const { return id_; }
  int width() const { return width_; }
  int height() const { return height_; }
  bool valid() const { return id_ != 0; }

 private:
  GLuint id_ = 0;
  GLenum internal_format_ = 0;
  int width_ = 0, height_ = 0;
};

// Compiles and links a vertex + fragment program; throws std::runtime_error with the log.
GLuint build_program(std::string_view vertex_source, std::string_view fragment_source,
                     const char* name);

}  // namespace rf::gui
