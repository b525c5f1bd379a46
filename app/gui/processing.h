// The processing path: the one place a frame is filtered. Two ways through it:
//  - the pipelined GPU path (interop.h): frames uploaded from pinned staging on their own stream,
//    converted from the camera's format on the GPU and filtered in device memory, several in
//    flight; the newest finished frame is copied into the view's textures, and the UI thread
//    never waits;
//  - the copy path (CPU backend, or CUDA without interop): the frame becomes a float RGBA image,
//    the engine filters it on the host and glTexSubImage2D uploads the result, within process().
// Either way the compositor samples the shown frame's original and result textures, and each
// finished frame is reported once, in order, with its timing and (when asked) its 8-bit result
// for recording and camera out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/gui/copy_path.h"
#include "app/gui/engine_choice.h"
#include "app/gui/frame_input.h"
#include "app/gui/frame_timing.h"
#include "app/gui/interop.h"
#include "app/sources/source.h"
#include "filters/core/engine.h"
#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf::gui {

class Processor {
 public:
  Processor();
  ~Processor();

  // A new frame from the source. The frame must stay alive and unchanged until the next
  // set_frame; take a new one only when accepts_frame() says so, or the previous one might not
  // have been filtered yet.
  void set_frame(const app::Frame& frame) { frame_.set(frame); }
  bool has_frame() const { return frame_.has_frame(); }
  // The last frame has gone into the pipeline and there is room for another (a free GPU slot, a
  // free output buffer when outputs are wanted). Never waits.
  bool accepts_frame() const;

  // Filters the current frame when the spec or the frame changed, or always when `always` is set
  // (live timing). On the GPU path this queues the work and returns at once. Returns true when
  // it filtered or queued. A fault of the GPU (rf::DeviceError: out of device memory, a kernel
  // error, a refused registration) is survived: the GPU path gives way to the copy path, and on
  // the copy path the CUDA engine to the CPU's, each step queued for take_notices(). Other errors
  // (a bad parameter) leave the last result in place and are reported by error().
  bool process(const FilterSpec& spec, bool always);

  // Messages for the status bar since the last call: the fallbacks taken, and why.
  std::vector<std::string> take_notices() { return engines_.take_notices(); }

  // Where engines and the GPU path come from: rf::make_engine and make_cuda_gl_pipeline. Tests
  // substitute factories whose products fail on the GPU.
  EngineFactory engine_factory = make_engine;
  PipelineFactory pipeline_factory = make_cuda_gl_pipeline;

  // The frames finished since the last call, oldest first; the newest is the one shown.
  std::vector<PipelineFrame> take_finished();
  // Nothing in flight: the view shows the newest frame filtered with the newest spec.
  bool settled() const;
  // Waits for the frames in flight (exports, the end of a --frames run); take_finished() then
  // returns them.
  void settle();
  int in_flight() const { return pipeline() ? pipeline()->in_flight() : 0; }

  // Finished frames carry their result as 8-bit RGBA (recording, camera out).
  bool want_output = false;
  // Every process() uploads and converts the current frame again, as if it were new: the GPU path's
  // per-frame cost with a new frame as often as it takes one, without the host producing them.
  bool upload_every_frame = false;
  // Per-stage times from the engine. On the CUDA backend they cost the CUDA graph (each stage is
  // launched and timed separately, and the stream synchronised), so they are off there unless
  // asked for; the pipeline's own events still time upload, convert, filter and interop.
  bool stage_timing = false;

  // The shown frame's textures; 0 until there is one.
  GLuint original_texture() const;
  GLuint result_texture() const;
  int width() const { return frame_.width(); }
  int height() const { return frame_.height(); }
  // The GPU path converts YUYV and NV12 itself: sources may deliver them as they come.
  bool converts_yuv() const { return pipeline() != nullptr; }
  // Frames go through the pipelined GPU path (several can be queued in one UI frame).
  bool pipelined() const { return pipeline() != nullptr; }

  // The frame as float RGBA on [0, 1], converted on first use after each new frame.
  const Image& input() { return frame_.input(); }
  // The shown result on the host; on the GPU path it is read back from the texture when asked.
  const Image& result();
  // Increases whenever the shown result changes (a new frame or a new spec); truth and profiles
  // key on it.
  std::uint64_t result_version() const { return shown_.version; }
  std::uint64_t frame_version() const { return frame_.version(); }

  // The timing of the newest finished frame.
  const FrameTiming& timing() const { return shown_.timing; }
  // The engine has run once since it last planned (a new spec, size or engine): that run did
  // what only a first run does (CUDA loads each kernel at its first launch and captures the
  // frame's graph; fresh host buffers are touched), so its times are not the steady ones.
  bool first_run_of_plan() const { return runs_of_plan_ == 1; }
  // For people: "CPU, OpenMP 2 threads (CUDA unavailable: built without CUDA)".
  const std::string& backend_line() const { return engines_.backend_line(); }
  // "CUDA-GL interop, pipelined" or "copy path (glTexSubImage2D)" and, on a fallback, why.
  const std::string& path_line() const { return engines_.path_line(); }
  Backend running_backend() const { return engines_.running_backend(); }
  // What the engine's last plan computes the filter with, and by which algorithm, auto resolved:
  // "recursive order 3 by lines in shared memory", "recursive order 1 by alg5", "FIR radius 9";
  // empty before the first plan.
  std::string method_line() const {
    return engines_.engine() ? rf::method_line(*engines_.engine()) : std::string();
  }
  // Empty while healthy; otherwise what went wrong with the last attempt.
  const std::string& error() const { return error_; }

 private:
  // What the engine is planned for. On the pipelined path planning again replaces device buffers
  // that frames in flight may still use, so it waits for them first.
  struct EnginePlan {
    bool valid = false;
    FilterSpec spec;
    int width = 0, height = 0;
    bool matches(const FilterSpec& s, int w, int h) const {
      return valid && s == spec && w == width && h == height;
    }
  };
  // The result the view shows.
  struct ShownResult {
    std::uint64_t version = 0;  // increases whenever it changes
    FrameTiming timing;
    Image host;           // its host copy (the copy path's result, or read back)
    bool on_host = true;  // `host` holds it
  };

  GpuPipeline* pipeline() const { return engines_.pipeline(); }
  void select_engine(Backend requested);
  bool filter(const FilterSpec& spec, bool new_frame, bool changed);
  bool process_gpu(const FilterSpec& spec, bool new_frame, bool repeat);
  bool process_copy(const FilterSpec& spec, bool new_frame);
  void collect();
  void drop_pipeline(const std::string& why);

  FrameInput frame_;
  EngineChoice engines_;
  CopyPath copy_;
  EnginePlan plan_;
  std::uint64_t runs_of_plan_ = 0;  // runs filtered or queued since plan_ changed
  ShownResult shown_;
  FilterSpec last_spec_;
  bool have_result_ = false;
  std::uint64_t submitted_version_ = ~0ull;  // the frame last filtered or queued
  std::vector<PipelineFrame> finished_;
  std::string error_;
};

}  // namespace rf::gui
