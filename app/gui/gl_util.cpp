#include "app/gui/gl_util.h"

#include <stdexcept>
#include <vector>

namespace rf::gui {

void Texture::allocate(GLenum internal_format, int width, int height) {
  if (id_ && internal_format == internal_format_ && width == width_ && height == height_) return;
  reset();
  glGenTextures(1, &id_);
  glBindTexture(GL_TEXTURE_2D, id_);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  const bool is_float = internal_format == GL_RGBA32F || internal_format == GL_R32F;
  const GLenum format = internal_format == GL_R32F ? GL_RED : GL_RGBA;
  glTexImage2D(GL_TEXTURE_2D, 0, GLint(internal_format), width, height, 0, format,
               is_float ? GL_FLOAT : GL_UNSIGNED_BYTE, nullptr);
  internal_format_ = internal_format;
  width_ = width;
  height_ = height;
}

void Texture::upload(GLenum format, GLenum type, const void* pixels) {
  glBindTexture(GL_TEXTURE_2D, id_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, format, type, pixels);
}

void Texture::reset() {
  if (id_) glDeleteTextures(1, &id_);
  id_ = 0;
  width_ = height_ = 0;
  internal_format_ = 0;
}

namespace {

GLuint compile(GLenum type, std::string_view source, const char* name) {
  GLuint s = glCreateShader(type);
  const char* text = source.data();
  const GLint length = GLint(source.size());
  glShaderSource(s, 1, &text, &length);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    GLint n = 0;
    glGetShaderiv(s, GL_INFO_LOG_LENGTH, &n);
    std::vector<char> log(std::size_t(n) + 1);
    glGetShaderInfoLog(s, n, nullptr, log.data());
    glDeleteShader(s);
    throw std::runtime_error(std::string(name) + ": shader does not compile:\n" + log.data());
  }
  return s;
}

}  // namespace

GLuint build_program(std::string_view vertex_source, std::string_view fragment_source,
                     const char* name) {
  GLuint vs = compile(GL_VERTEX_SHADER, vertex_source, name);
  GLuint fs = compile(GL_FRAGMENT_SHADER, fragment_source, name);
  GLuint p = glCreateProgram();
  glAttachShader(p, vs);
  glAttachShader(p, fs);
  glLinkProgram(p);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    GLint n = 0;
    glGetProgramiv(p, GL_INFO_LOG_LENGTH, &n);
    std::vector<char> log(std::size_t(n) + 1);
    glGetProgramInfoLog(p, n, nullptr, log.data());
    glDeleteProgram(p);
    throw std::runtime_error(std::string(name) + ": program does not link:\n" + log.data());
  }
  return p;
}

}  // namespace rf::gui
