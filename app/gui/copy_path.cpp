#include "app/gui/copy_path.h"

#include <chrono>

namespace rf::gui {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

void CopyPath::upload_original(const app::Frame& f, FrameInput& frame, bool new_frame) {
  const int w = f.width, h = f.height;
  if (!new_frame && original_.valid() && original_.width() == w && original_.height() == h) return;
  if (f.format == PixelFormat::RGBA8) {
    original_.allocate(GL_RGBA8, w, h);
    original_.upload(GL_RGBA, GL_UNSIGNED_BYTE, f.bytes.data());
  } else {
    original_.allocate(GL_RGBA32F, w, h);
    original_.upload(GL_RGBA, GL_FLOAT, frame.input().pixels.data());
  }
}

PipelineFrame CopyPath::run(Engine& engine, const FilterSpec& spec, FrameInput& frame,
                            Image& result, bool new_frame, bool want_output, bool stage_timing) {
  const app::Frame& f = frame.prepared(false);
  const int w = f.width, h = f.height;
  FrameTiming t;
  auto t0 = Clock::now();
  if (new_frame) frame.reconvert_input();  // a frame sent again converts as a new one does
  const bool converting = !frame.input_ready();
  const FrameView input = frame.input_view();
  if (converting) t.upload_ms = ms_since(t0);
  upload_original(f, frame, new_frame);
  if (result.width != w || result.height != h) result = Image(w, h, 4);
  result_.allocate(GL_RGBA32F, w, h);
  engine.set_timing(engine.backend() == Backend::Cpu || stage_timing);
  engine.plan(spec, w, h, PixelFormat::RGBA32F);

  t0 = Clock::now();
  engine.run(input, result.view());
  t.filter_ms = ms_since(t0);
  t.stages = engine.timings();
  t.gpu_events = engine.backend() == Backend::Cuda;
  t0 = Clock::now();
  result_.upload(GL_RGBA, GL_FLOAT, result.pixels.data());
  shown_ = true;
  t.interop_ms = ms_since(t0);
  t.uploaded = new_frame;
  t.latency_ms = ms_since(frame.arrival());

  PipelineFrame done;
  done.version = frame.version();
  done.index = f.index;
  done.timing = t;
  if (want_output && new_frame) {
    // The library's 8-bit encode (image.h), as the GPU path's pack kernel quantises.
    done.output = outputs_.acquire(w, h);
    if (done.output) {
      const float* src = result.pixels.data();
      std::uint8_t* dst = done.output->data;
      for (std::size_t i = 0, n = std::size_t(w) * h * 4; i < n; ++i) dst[i] = to_unorm8(src[i]);
      done.output->index = f.index;
    }
  }
  return done;
}

}  // namespace rf::gui
