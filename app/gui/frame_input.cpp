#include "app/gui/frame_input.h"

#include <cstring>

namespace rf::gui {
namespace {

// A one-channel float frame as RGBA: the value in red, green and blue, alpha one.
void widen_r32f(const float* src, std::size_t pixels, float* dst) {
  for (std::size_t i = 0; i < pixels; ++i)
    for (int c = 0; c < 4; ++c) dst[4 * i + c] = c < 3 ? src[i] : 1.0f;
}

}  // namespace

void FrameInput::set(const app::Frame& frame) {
  frame_ = &frame;
  ++version_;
  arrival_ = Clock::now();
}

void FrameInput::resend() {
  arrival_ = Clock::now();
  converted_version_ = ~0ull;
}

const app::Frame& FrameInput::prepared(bool for_gpu) {
  const app::Frame& f = *frame_;
  const bool convert = for_gpu ? f.encoding == app::Encoding::Rgba && f.format == PixelFormat::R32F
                               : f.encoding != app::Encoding::Rgba;
  if (!convert) return f;
  if (converted_version_ == version_ && converted_for_gpu_ == for_gpu) return converted_;
  if (f.encoding != app::Encoding::Rgba) {
    app::to_rgba(f, converted_);
  } else {
    converted_.width = f.width;
    converted_.height = f.height;
    converted_.index = f.index;
    converted_.format = PixelFormat::RGBA32F;
    converted_.encoding = app::Encoding::Rgba;
    converted_.bytes.resize(std::size_t(f.width) * f.height * 16);
    widen_r32f(reinterpret_cast<const float*>(f.bytes.data()), std::size_t(f.width) * f.height,
               reinterpret_cast<float*>(converted_.bytes.data()));
  }
  converted_version_ = version_;
  converted_for_gpu_ = for_gpu;
  return converted_;
}

const Image& FrameInput::input() {
  if (!has_frame() || input_ready()) return input_;
  const app::Frame* f = frame_;
  app::Frame rgba;
  if (f->encoding != app::Encoding::Rgba) {
    app::to_rgba(*f, rgba);
    f = &rgba;
  }
  if (input_.width != f->width || input_.height != f->height)
    input_ = Image(f->width, f->height, 4);
  const std::size_t pixels = std::size_t(f->width) * f->height;
  if (f->format == PixelFormat::RGBA8) {
    for (std::size_t i = 0; i < pixels * 4; ++i) input_.pixels[i] = from_unorm8(f->bytes[i]);
  } else if (f->format == PixelFormat::RGBA32F) {
    std::memcpy(input_.pixels.data(), f->bytes.data(), pixels * 4 * sizeof(float));
  } else {
    widen_r32f(reinterpret_cast<const float*>(f->bytes.data()), pixels, input_.pixels.data());
  }
  input_version_ = version_;
  return input_;
}

FrameView FrameInput::input_view() {
  input();
  return input_.view();
}

}  // namespace rf::gui
