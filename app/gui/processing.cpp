#include "app/gui/processing.h"

#include <chrono>
#include <cstring>
#include <exception>

#include "filters/core/errors.h"

namespace rf::gui {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

Processor::Processor() = default;
Processor::~Processor() = default;

void Processor::set_frame(const app::Frame& frame) {
  frame_ = &frame;
  ++frame_version_;
  arrival_ = Clock::now();
}

bool Processor::accepts_frame() const {
  if (has_frame() && submitted_version_ != frame_version_) return false;
  if (pipeline_) return pipeline_->can_submit(want_output);
  return !want_output || host_outputs_.available() > 0;
}

// The frame as the running path takes it: the GPU path converts camera formats itself and takes
// RGBA8 or RGBA32F otherwise (a one-channel float frame is widened here); the copy path takes
// RGBA (camera formats are converted here, on the CPU).
const app::Frame& Processor::prepared_frame() {
  const app::Frame& f = *frame_;
  const bool gpu = pipeline_ != nullptr;
  const bool convert = gpu ? f.encoding == app::Encoding::Rgba && f.format == PixelFormat::R32F
                           : f.encoding != app::Encoding::Rgba;
  if (!convert) return f;
  if (prepared_version_ == frame_version_ && prepared_for_gpu_ == gpu) return converted_;
  if (f.encoding != app::Encoding::Rgba) {
    app::to_rgba(f, converted_);
  } else {
    converted_.width = f.width;
    converted_.height = f.height;
    converted_.index = f.index;
    converted_.format = PixelFormat::RGBA32F;
    converted_.encoding = app::Encoding::Rgba;
    converted_.bytes.resize(std::size_t(f.width) * f.height * 16);
    const float* src = reinterpret_cast<const float*>(f.bytes.data());
    float* dst = reinterpret_cast<float*>(converted_.bytes.data());
    for (std::size_t i = 0; i < std::size_t(f.width) * f.height; ++i)
      for (int c = 0; c < 4; ++c) dst[4 * i + c] = c < 3 ? src[i] : 1.0f;
  }
  prepared_version_ = frame_version_;
  prepared_for_gpu_ = gpu;
  return converted_;
}

// The float copy is made when something on the host needs it: the CPU engine, the truth, the
// inspector. The GPU path filters the frame as the source delivered it.
const Image& Processor::input() {
  if (!has_frame() || input_version_ == frame_version_) return input_;
  const app::Frame* f = frame_;
  app::Frame rgba;
  if (f->encoding != app::Encoding::Rgba) {
    app::to_rgba(*f, rgba);
    f = &rgba;
  }
  if (input_.width != f->width || input_.height != f->height)
    input_ = Image(f->width, f->height, 4);
  const std::size_t n = std::size_t(f->width) * f->height * 4;
  if (f->format == PixelFormat::RGBA8) {
    for (std::size_t i = 0; i < n; ++i) input_.pixels[i] = from_unorm8(f->bytes[i]);
  } else if (f->format == PixelFormat::RGBA32F) {
    std::memcpy(input_.pixels.data(), f->bytes.data(), n * sizeof(float));
  } else {
    const float* src = reinterpret_cast<const float*>(f->bytes.data());
    for (std::size_t i = 0; i < std::size_t(f->width) * f->height; ++i)
      for (int c = 0; c < 4; ++c) input_.pixels[4 * i + c] = c < 3 ? src[i] : 1.0f;
  }
  input_version_ = frame_version_;
  return input_;
}

void Processor::ensure_engine(Backend requested) {
  if (engine_tried_ && requested == requested_backend_) return;
  engine_tried_ = true;
  requested_backend_ = requested;
  pipeline_.reset();
  engine_.reset();
  have_result_ = false;
  planned_ = false;
  submitted_version_ = ~0ull;
  std::string note;
  try {
    engine_ = engine_factory(requested, &note);
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
    pipeline_ = pipeline_factory(&interop_why_);
    path_line_ = pipeline_ ? "CUDA-GL interop, pipelined (up to " +
                                 std::to_string(GpuPipeline::kMaxSlots) + " frames in flight)"
                           : "copy path: " + interop_why_;
  } else {
    path_line_ = "copy path (glTexSubImage2D)";
  }
}

bool Processor::process(const FilterSpec& spec, bool always) {
  if (!has_frame()) return false;
  ensure_engine(spec.backend);
  if (!engine_) return false;
  const bool new_frame = submitted_version_ != frame_version_ || upload_every_frame;
  // A frame sent again for timing arrives now: its latency counts from this send.
  if (upload_every_frame && submitted_version_ == frame_version_) arrival_ = Clock::now();
  const bool changed = !have_result_ || spec != last_spec_ || new_frame;
  if (!changed && !always) return false;
  try {
    if (pipeline_) return process_gpu(spec, new_frame, !changed);
    try {
      return process_copy(spec, new_frame);
    } catch (const DeviceError& e) {
      // The CPU filters the same frame at once; the status bar says why.
      if (!fall_back_to_cpu(e.what())) throw;
      return process_copy(spec, new_frame);
    }
  } catch (const InvalidParameter& e) {
    // A parameter the engine refuses: the last result stays, the message says why.
    error_ = e.what();
  } catch (const std::exception& e) {
    if (pipeline_) {
      drop_pipeline(e.what());
      return false;
    }
    error_ = e.what();
  }
  last_spec_ = spec;
  submitted_version_ = frame_version_;
  return false;
}

bool Processor::fall_back_to_cpu(const std::string& why) {
  if (!engine_ || engine_->backend() != Backend::Cuda) return false;
  engine_.reset();
  try {
    engine_ = make_cpu_engine();
  } catch (const std::exception& e) {
    backend_line_ = std::string("no filter engine: ") + e.what();
    return false;
  }
  planned_ = false;
  backend_line_ = engine_->description() + " (CUDA failed: " + why + "; running on CPU)";
  path_line_ = "copy path (glTexSubImage2D)";
  notices_.push_back("GPU fault (" + why + "): running on the CPU backend");
  return true;
}

std::vector<std::string> Processor::take_notices() {
  std::vector<std::string> out;
  out.swap(notices_);
  return out;
}

bool Processor::process_gpu(const FilterSpec& spec, bool new_frame, bool repeat) {
  const app::Frame& f = prepared_frame();
  // A new size or kind of frame: the frames in flight finish first (configure waits for them).
  if (!pipeline_->configure(f.width, f.height, f.format == PixelFormat::RGBA32F, &interop_why_)) {
    drop_pipeline(interop_why_);
    return false;
  }
  collect();
  const bool output = want_output && new_frame;
  if (!pipeline_->can_submit(output)) return false;  // tried again next UI frame
  if (!planned_ || spec != planned_spec_ || f.width != planned_w_ || f.height != planned_h_) {
    // Planning replaces the engine's device buffers, which frames in flight may still use.
    pipeline_->wait_idle();
    planned_ = false;
    engine_->plan(spec, f.width, f.height, PixelFormat::RGBA32F);
    planned_ = true;
    planned_spec_ = spec;
    planned_w_ = f.width;
    planned_h_ = f.height;
  }
  engine_->set_timing(stage_timing);
  pipeline_->submit(*engine_, new_frame ? &f : nullptr, frame_version_, f.index, output, repeat,
                    arrival_);
  submitted_version_ = frame_version_;
  last_spec_ = spec;
  have_result_ = true;
  error_.clear();
  return true;
}

bool Processor::process_copy(const FilterSpec& spec, bool new_frame) {
  const app::Frame& f = prepared_frame();
  const int w = f.width, h = f.height;
  FrameTiming t;
  auto t0 = Clock::now();
  const bool converting = input_version_ != frame_version_;
  input();
  if (converting) t.upload_ms = ms_since(t0);
  if (new_frame || !original_.valid() || original_.width() != w || original_.height() != h) {
    if (f.format == PixelFormat::RGBA8) {
      original_.allocate(GL_RGBA8, w, h);
      original_.upload(GL_RGBA, GL_UNSIGNED_BYTE, f.bytes.data());
    } else {
      original_.allocate(GL_RGBA32F, w, h);
      original_.upload(GL_RGBA, GL_FLOAT, input_.pixels.data());
    }
  }
  if (result_.width != w || result_.height != h) result_ = Image(w, h, 4);
  result_tex_.allocate(GL_RGBA32F, w, h);
  engine_->set_timing(engine_->backend() == Backend::Cpu || stage_timing);
  engine_->plan(spec, w, h, PixelFormat::RGBA32F);

  t0 = Clock::now();
  engine_->run(input_.view(), result_.view());
  t.filter_ms = ms_since(t0);
  t.stages = engine_->timings();
  t.gpu_events = engine_->backend() == Backend::Cuda;
  t0 = Clock::now();
  result_tex_.upload(GL_RGBA, GL_FLOAT, result_.pixels.data());
  t.interop_ms = ms_since(t0);
  t.uploaded = new_frame;
  t.latency_ms = ms_since(arrival_);

  PipelineFrame done;
  done.version = frame_version_;
  done.index = f.index;
  if (want_output && new_frame) {
    // The library's 8-bit encode (image.h), as the GPU path's pack kernel quantises.
    done.output = host_outputs_.acquire(w, h);
    if (done.output) {
      const float* src = result_.pixels.data();
      std::uint8_t* dst = done.output->data;
      for (std::size_t i = 0, n = std::size_t(w) * h * 4; i < n; ++i) dst[i] = to_unorm8(src[i]);
      done.output->index = f.index;
    }
  }
  done.timing = t;
  finished_.push_back(std::move(done));
  timing_ = t;
  result_on_host_ = true;
  shown_version_ = frame_version_;
  submitted_version_ = frame_version_;
  last_spec_ = spec;
  have_result_ = true;
  ++result_version_;
  error_.clear();
  return true;
}

void Processor::collect() {
  if (!pipeline_) return;
  std::vector<PipelineFrame> done;
  try {
    done = pipeline_->take_finished();
  } catch (const std::exception& e) {
    drop_pipeline(e.what());
    return;
  }
  for (PipelineFrame& f : done) {
    timing_ = f.timing;
    shown_version_ = f.version;
    result_on_host_ = false;
    ++result_version_;
    finished_.push_back(std::move(f));
  }
}

std::vector<PipelineFrame> Processor::take_finished() {
  collect();
  std::vector<PipelineFrame> out;
  out.swap(finished_);
  return out;
}

bool Processor::settled() const {
  if (!pipeline_) return true;
  return pipeline_->in_flight() == 0 && (!has_frame() || submitted_version_ == frame_version_);
}

void Processor::settle() {
  if (!pipeline_) return;
  try {
    pipeline_->wait_idle();
  } catch (const std::exception& e) {
    drop_pipeline(e.what());
    return;
  }
  collect();
}

// A failure inside the GPU path (out of memory, a driver refusing interop): the copy path takes
// over, the UI says why, and the current frame is filtered again there.
void Processor::drop_pipeline(const std::string& why) {
  std::unique_ptr<GpuPipeline> failed = std::move(pipeline_);
  if (failed) {
    try {
      // Frames that did finish are still reported (a recording keeps them).
      failed->wait_idle();
      for (PipelineFrame& f : failed->take_finished()) finished_.push_back(std::move(f));
    } catch (const std::exception&) {
      // The frames in flight are lost with the pipeline.
    }
  }
  failed.reset();
  path_line_ = "copy path: CUDA-GL interop failed (" + why + ")";
  notices_.push_back("GPU fault on the interop path (" + why + "): using the copy path");
  error_ = why;
  planned_ = false;
  submitted_version_ = ~0ull;
  have_result_ = false;
}

GLuint Processor::original_texture() const {
  if (pipeline_) return pipeline_->original_texture();
  return original_.valid() ? original_.id() : 0;
}

GLuint Processor::result_texture() const {
  if (pipeline_) return pipeline_->result_texture();
  return result_tex_.valid() && shown_version_ != ~0ull ? result_tex_.id() : 0;
}

const Image& Processor::result() {
  const GLuint texture = result_texture();
  if (!result_on_host_ && texture && has_frame()) {
    if (result_.width != width() || result_.height != height())
      result_ = Image(width(), height(), 4);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, result_.pixels.data());
    result_on_host_ = true;
  }
  return result_;
}

}  // namespace rf::gui
