// The pipelined GPU path: frames go from the source to the view through CUDA-GL interop, several
// in flight at once, without the UI thread ever waiting for the GPU.
//
// Each frame takes one of kSlots slots: a page-locked staging buffer the frame is copied into, a
// device buffer it is uploaded to on the upload stream, and a pair of GL textures (the original
// and the result). On the compute stream, once the upload's event has fired, the slot's textures
// are mapped, a small kernel converts the frame as it came (RGBA8, RGBA32F, YUYV, NV12) into the
// engine's float input and into the original texture, the engine filters into the result texture
// through a surface, and for recording a second kernel packs the result to 8 bits, which the
// readback stream copies into pinned memory. Upload k+1 thus overlaps filter k.
//
// A frame is shown only once the host has seen its completion event: until then the view keeps
// the previous finished frame's textures, and GL never touches a slot that CUDA holds mapped. The
// slot is unmapped on a stream that has no work pending, so no GL command waits on CUDA work of
// later frames.
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
  static constexpr int kSlots = 3;  // one shown, up to two in flight

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
  // filtered again (a new spec). Throws std::runtime_error with the CUDA error.
  virtual void submit(Engine& engine, const app::Frame* frame, std::uint64_t version,
                      std::uint64_t index, bool want_output,
                      std::chrono::steady_clock::time_point arrival) = 0;

  // Frames whose work has completed, oldest first; the newest becomes the one shown. Never waits.
  virtual std::vector<PipelineFrame> take_finished() = 0;
  // Waits until nothing is in flight (a new plan, a new size, shutdown); take_finished() then
  // returns every frame.
  virtual void wait_idle() = 0;
  virtual int in_flight() const = 0;

  // The textures of the newest finished frame (0 before the first).
  virtual unsigned original_texture() const = 0;
  virtual unsigned result_texture() const = 0;
};

// Null, with the reason in `why`, when this build or machine has no CUDA.
std::unique_ptr<GpuPipeline> make_cuda_gl_pipeline(std::string* why);

}  // namespace rf::gui
