// The copy path, for the CPU engine and for CUDA without interop: the engine filters the float
// frame on the host, and glTexSubImage2D uploads the original and the result the view draws, all
// within one call. Finished frames are reported as the pipelined path reports them.
#pragma once

#include <glad/gl.h>

#include "app/gui/frame_input.h"
#include "app/gui/gl_util.h"
#include "app/gui/interop.h"
#include "app/sources/output_frame.h"
#include "filters/core/engine.h"

namespace rf::gui {

class CopyPath {
 public:
  // Filters the current frame of `frame` into `result` (float RGBA, resized to the frame) and
  // uploads both textures. `new_frame`: the frame was not filtered before (its original is
  // uploaded, and an 8-bit result is made for recording when `want_output`). Throws what the
  // engine throws; the textures then keep the last result.
  PipelineFrame run(Engine& engine, const FilterSpec& spec, FrameInput& frame, Image& result,
                    bool new_frame, bool want_output, bool stage_timing);

  // A buffer is free for an 8-bit result.
  bool output_available() const { return outputs_.available() > 0; }
  // 0 until run() has uploaded a frame (a result: until one succeeded).
  GLuint original_texture() const { return original_.valid() ? original_.id() : 0; }
  GLuint result_texture() const { return shown_ && result_.valid() ? result_.id() : 0; }

 private:
  void upload_original(const app::Frame& f, FrameInput& frame, bool new_frame);

  Texture original_, result_;
  bool shown_ = false;  // the result texture holds a filtered frame
  app::OutputFramePool outputs_{6};
};

}  // namespace rf::gui
