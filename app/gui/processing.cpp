#include "app/gui/processing.h"

#include <chrono>
#include <cstring>
#include <exception>

#include "filters/core/errors.h"

namespace rf::gui {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Processor::Processor() = default;
Processor::~Processor() = default;

void Processor::set_frame(const app::Frame& frame) {
  if (input_.width != frame.width || input_.height != frame.height)
    input_ = Image(frame.width, frame.height, 4);
  frame_ = &frame;
  input_stale_ = true;
  if (frame.format == PixelFormat::RGBA8) {
    original_.allocate(GL_RGBA8, frame.width, frame.height);
    original_.upload(GL_RGBA, GL_UNSIGNED_BYTE, frame.bytes.data());
  } else {
    original_.allocate(GL_RGBA32F, frame.width, frame.height);
    original_.upload(GL_RGBA, GL_FLOAT, input().pixels.data());
  }
  ++frame_version_;
}

// The float copy is made when something on the host needs it: the CPU engine, the truth, the
// inspector. The interop path filters the frame as the source delivered it, on the GPU.
const Image& Processor::input() {
  if (!input_stale_ || !frame_) return input_;
  const auto t0 = std::chrono::steady_clock::now();
  const app::Frame& frame = *frame_;
  const std::size_t n = std::size_t(frame.width) * frame.height * 4;
  if (frame.format == PixelFormat::RGBA8) {
    for (std::size_t i = 0; i < n; ++i) input_.pixels[i] = float(frame.bytes[i]) * (1.0f / 255.0f);
  } else if (frame.format == PixelFormat::RGBA32F) {
    std::memcpy(input_.pixels.data(), frame.bytes.data(), n * sizeof(float));
  } else {
    const float* src = reinterpret_cast<const float*>(frame.bytes.data());
    for (std::size_t i = 0; i < std::size_t(frame.width) * frame.height; ++i)
      for (int c = 0; c < 4; ++c) input_.pixels[4 * i + c] = c < 3 ? src[i] : 1.0f;
  }
  input_stale_ = false;
  timing_.upload_ms = ms_since(t0);
  return input_;
}

void Processor::ensure_engine(Backend requested) {
  if (engine_tried_ && requested == requested_backend_) return;
  engine_tried_ = true;
  requested_backend_ = requested;
  interop_.reset();
  interop_attached_ = false;
  engine_.reset();
  have_result_ = false;
  std::string note;
  try {
    engine_ = make_engine(requested, &note);
  } catch (const std::exception& e) {
    // A CUDA request without a device falls back to the CPU, and the UI says so.
    error_ = e.what();
    try {
      engine_ = make_cpu_engine();
      note = std::string(e.what()) + ": running on CPU";
    } catch (const std::exception& e2) {
      backend_line_ = std::string("no filter engine: ") + e2.what();
      return;
    }
  }
  backend_line_ = engine_->description();
  if (!note.empty()) backend_line_ += " (" + note + ")";
  if (engine_->backend() == Backend::Cuda) {
    interop_ = make_cuda_gl_interop(&interop_why_);
    path_line_ = interop_ ? "CUDA-GL interop" : "copy path: " + interop_why_;
  } else {
    path_line_ = "copy path (glTexSubImage2D)";
  }
}

bool Processor::process(const FilterSpec& spec, bool always) {
  if (input_.empty()) return false;
  ensure_engine(spec.backend);
  if (!engine_) return false;
  const bool changed = !have_result_ || spec != last_spec_ || filtered_frame_ != frame_version_;
  if (!changed && !always) return false;
  if (result_.width != input_.width || result_.height != input_.height) {
    result_ = Image(input_.width, input_.height, 4);
    result_tex_.reset();
    interop_attached_ = false;
  }
  result_tex_.allocate(GL_RGBA32F, input_.width, input_.height);
  try {
    engine_->set_timing(engine_->backend() == Backend::Cpu || stage_timing);
    engine_->plan(spec, input_.width, input_.height, PixelFormat::RGBA32F);
    if (interop_ && !interop_attached_) {
      interop_attached_ =
          interop_->attach(result_tex_.id(), input_.width, input_.height, &interop_why_);
      uploaded_frame_ = ~0ull;
      if (!interop_attached_) {
        path_line_ = "copy path: CUDA-GL interop failed (" + interop_why_ + ")";
        interop_.reset();
      }
    }
    timing_.uploaded = filtered_frame_ != frame_version_;
    if (interop_) {
      interop_->run(*engine_, *frame_, uploaded_frame_ != frame_version_, &timing_);
      uploaded_frame_ = frame_version_;
      result_on_host_ = false;
    } else {
      run_copy_path();
    }
    error_.clear();
  } catch (const std::exception& e) {
    error_ = e.what();
    last_spec_ = spec;
    filtered_frame_ = frame_version_;
    return false;
  }
  last_spec_ = spec;
  filtered_frame_ = frame_version_;
  have_result_ = true;
  ++result_version_;
  return true;
}

void Processor::run_copy_path() {
  auto t0 = std::chrono::steady_clock::now();
  input();
  engine_->run(input_.view(), result_.view());
  timing_.filter_ms = ms_since(t0);
  timing_.stages = engine_->timings();
  timing_.gpu_events = engine_->backend() == Backend::Cuda;
  timing_.interop = false;
  t0 = std::chrono::steady_clock::now();
  result_tex_.upload(GL_RGBA, GL_FLOAT, result_.pixels.data());
  timing_.interop_ms = ms_since(t0);
  result_on_host_ = true;
}

const Image& Processor::result() {
  if (!result_on_host_ && result_tex_.valid()) {
    glBindTexture(GL_TEXTURE_2D, result_tex_.id());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, result_.pixels.data());
    result_on_host_ = true;
  }
  return result_;
}

}  // namespace rf::gui
