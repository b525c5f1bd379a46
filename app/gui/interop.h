// The pipelined GPU path: frames go from the source to the view through CUDA-GL interop, several
// in flight at once, without the UI thread ever waiting for the GPU.
//
// Each frame takes one of up to kMaxSlots slots, all device memory: a page-locked staging buffer
// the frame is copied into, a device buffer it is uploaded to on the upload stream, the original as
// the view shows it and the filtered result. On the compute stream, once the upload's event has
// fired, a small kernel converts the frame as it came (RGBA8, YUYV, NV12) into 8-bit RGBA, the
// engine's input and the slot's original, the engine filters it into the slot's float result, and
// for recording a second kernel packs the result to 8 bits, which the readback stream copies into
// pinned memory. Upload k+1 thus overlaps filter k, and no GL texture is touched on the way.
//
// The view draws one pair of GL textures. Once the host has seen frames finish, the newest of them
// is presented: written into those textures between a map and an unmap on the present stream. The
// others are reported as filtered (timing, recording, camera out) without being drawn, so the
// source's frames pass at the rate the GPU filters them, not at the rate the UI draws; a frame
// is never drawn before it is filtered, and the GL commands that draw it wait for its copy. Float
// frames (HDR stills) take the same way with a float input and original.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/frame_timing.h"
#include "app/sources/output_frame.h"
#include "app/sources/source.h"
#include "filters/core/engine.h"

namespace rf::gui {

// One frame whose GPU work has finished.
struct PipelineFrame {
  std::uint64_t version = 0;  // the Processor's frame version, in submission order
  std::uint64_t index = 0;    // the source's frame index
  FrameTiming timing;
  std::shared_ptr<app::OutputFrame> output;  // the 8-bit result, when it was asked for
};

class GpuPipeline {
 public:
  // Frames in flight at most (uploading, filtering, reading back, presenting); configure() takes
  // fewer when their buffers would not fit a share of the device's free memory.
  static constexpr int kMaxSlots = 12;

  virtual ~GpuPipeline() = default;

  // Frames of this size; `float_frames` when the original is RGBA32F (HDR stills) rather than
  // 8-bit. Waits for the frames in flight first (returned by take_finished() later), then
  // (re)allocates and registers the textures. False, with the reason, when the driver refuses
  // interop: the caller falls back to the copy path and says so.
  virtual bool configure(int width, int height, bool float_frames, std::string* why) = 0;

  // A slot is free for one more frame, and (with `want_output`) a pinned output buffer. Never
  // waits.
  virtual bool can_submit(bool want_output) = 0;

  // Queues one frame for filtering with `engine` (planned for RGBA32F at the configured size).
  // `frame` non-null: copied to staging, uploaded and converted; null: the frame on the GPU is
  // filtered again (a new spec, or live timing). `repeat`: the same frame with the same spec as
  // the previous submission, so the same pixels (live timing): the view needs no new copy of them.
  // Throws std::runtime_error with the CUDA error.
  virtual void submit(Engine& engine, const app::Frame* frame, std::uint64_t version,
                      std::uint64_t index, bool want_output, bool repeat,
                      std::chrono::steady_clock::time_point arrival) = 0;

  // Frames whose work has completed, oldest first; the newest is the one shown. Never waits. A
  // frame presented by this call is reported once its copy into the view's textures has run.
  virtual std::vector<PipelineFrame> take_finished() = 0;
  // Waits until nothing is in flight and the newest frame is presented (a new plan, a new size,
  // shutdown); take_finished() then returns every frame.
  virtual void wait_idle() = 0;
  virtual int in_flight() const = 0;

  // The textures of the newest finished frame (0 before the first).
  virtual unsigned original_texture() const = 0;
  virtual unsigned result_texture() const = 0;
};

// Null, with the reason in `why`, when this build or machine has no CUDA.
std::unique_ptr<GpuPipeline> make_cuda_gl_pipeline(std::string* why);

}  // namespace rf::gui
