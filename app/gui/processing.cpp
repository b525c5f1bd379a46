#include "app/gui/processing.h"

#include <exception>

#include "filters/core/errors.h"

namespace rf::gui {

Processor::Processor() = default;
Processor::~Processor() = default;

bool Processor::accepts_frame() const {
  if (has_frame() && submitted_version_ != frame_.version()) return false;
  if (pipeline()) return pipeline()->can_submit(want_output);
  return !want_output || copy_.output_available();
}

// A new engine voids what the old one planned and filtered.
void Processor::select_engine(Backend requested) {
  if (!engines_.select(requested, engine_factory, pipeline_factory, &error_)) return;
  have_result_ = false;
  plan_.valid = false;
  submitted_version_ = ~0ull;
}

bool Processor::process(const FilterSpec& spec, bool always) {
  if (!has_frame()) return false;
  select_engine(spec.backend);
  if (!engines_.engine()) return false;
  const bool new_frame = submitted_version_ != frame_.version() || upload_every_frame;
  // A frame sent again for timing arrives now and is converted again: its latency counts from
  // this send, and its upload includes the conversions a new frame has.
  if (upload_every_frame && submitted_version_ == frame_.version()) frame_.resend();
  const bool changed = !have_result_ || spec != last_spec_ || new_frame;
  if (!changed && !always) return false;
  try {
    return filter(spec, new_frame, changed);
  } catch (const InvalidParameter& e) {
    // A parameter the engine refuses: the last result stays, the message says why.
    error_ = e.what();
  } catch (const std::exception& e) {
    if (pipeline()) {
      drop_pipeline(e.what());
      return false;
    }
    error_ = e.what();
  }
  last_spec_ = spec;
  submitted_version_ = frame_.version();
  return false;
}

// The pipelined path, or the copy path; a GPU fault on the copy path gives the frame to the CPU
// engine at once (the status bar says why).
bool Processor::filter(const FilterSpec& spec, bool new_frame, bool changed) {
  if (pipeline()) return process_gpu(spec, new_frame, !changed);
  try {
    return process_copy(spec, new_frame);
  } catch (const DeviceError& e) {
    if (!engines_.fall_back_to_cpu(e.what())) throw;
    plan_.valid = false;
    return process_copy(spec, new_frame);
  }
}

bool Processor::process_gpu(const FilterSpec& spec, bool new_frame, bool repeat) {
  const app::Frame& f = frame_.prepared(true);
  // A new size or kind of frame: the frames in flight finish first (configure waits for them).
  std::string why;
  if (!pipeline()->configure(f.width, f.height, f.format == PixelFormat::RGBA32F, &why)) {
    drop_pipeline(why);
    return false;
  }
  collect();
  const bool output = want_output && new_frame;
  if (!pipeline()->can_submit(output)) return false;  // tried again next UI frame
  Engine& engine = *engines_.engine();
  if (!plan_.matches(spec, f.width, f.height)) {
    pipeline()->wait_idle();
    plan_.valid = false;
    engine.plan(spec, f.width, f.height, PixelFormat::RGBA32F);
    plan_ = {true, spec, f.width, f.height};
    runs_of_plan_ = 0;
  }
  engine.set_timing(stage_timing);
  pipeline()->submit(engine, new_frame ? &f : nullptr, frame_.version(), f.index, output, repeat,
                     frame_.arrival());
  ++runs_of_plan_;
  submitted_version_ = frame_.version();
  last_spec_ = spec;
  have_result_ = true;
  error_.clear();
  return true;
}

bool Processor::process_copy(const FilterSpec& spec, bool new_frame) {
  // The copy path plans within its run (CopyPath::run); the engine keeps a plan that matches.
  if (!plan_.matches(spec, frame_.width(), frame_.height())) {
    plan_ = {true, spec, frame_.width(), frame_.height()};
    runs_of_plan_ = 0;
  }
  PipelineFrame done = copy_.run(*engines_.engine(), spec, frame_, shown_.host, new_frame,
                                 want_output, stage_timing);
  ++runs_of_plan_;
  shown_.timing = done.timing;
  shown_.on_host = true;
  ++shown_.version;
  finished_.push_back(std::move(done));
  submitted_version_ = frame_.version();
  last_spec_ = spec;
  have_result_ = true;
  error_.clear();
  return true;
}

void Processor::collect() {
  if (!pipeline()) return;
  std::vector<PipelineFrame> done;
  try {
    done = pipeline()->take_finished();
  } catch (const std::exception& e) {
    drop_pipeline(e.what());
    return;
  }
  for (PipelineFrame& f : done) {
    shown_.timing = f.timing;
    shown_.on_host = false;
    ++shown_.version;
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
  if (!pipeline()) return true;
  return pipeline()->in_flight() == 0 && (!has_frame() || submitted_version_ == frame_.version());
}

void Processor::settle() {
  if (!pipeline()) return;
  try {
    pipeline()->wait_idle();
  } catch (const std::exception& e) {
    drop_pipeline(e.what());
    return;
  }
  collect();
}

// A failure inside the GPU path (out of memory, a driver refusing interop): the copy path takes
// over, the UI says why, and the current frame is filtered again there.
void Processor::drop_pipeline(const std::string& why) {
  std::unique_ptr<GpuPipeline> failed = engines_.drop_pipeline(why);
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
  error_ = why;
  plan_.valid = false;
  submitted_version_ = ~0ull;
  have_result_ = false;
}

GLuint Processor::original_texture() const {
  if (pipeline()) return pipeline()->original_texture();
  return copy_.original_texture();
}

GLuint Processor::result_texture() const {
  if (pipeline()) return pipeline()->result_texture();
  return copy_.result_texture();
}

const Image& Processor::result() {
  const GLuint texture = result_texture();
  Image& host = shown_.host;
  if (!shown_.on_host && texture && has_frame()) {
    if (host.width != width() || host.height != height()) host = Image(width(), height(), 4);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, host.pixels.data());
    shown_.on_host = true;
  }
  return host;
}

}  // namespace rf::gui
