// CUDA-GL interop: the CUDA engine writes its result straight into the GL texture the view
// samples. The texture is registered once (cudaGraphicsRegisterFlagsSurfaceLoadStore) and mapped
// per frame; the engine gets a surface object as its output FrameView (MemorySpace::CudaSurface).
#pragma once

#include <memory>
#include <string>

#include "app/gui/frame_timing.h"
#include "app/sources/source.h"
#include "filters/core/engine.h"
#include "filters/core/image.h"

namespace rf::gui {

class Interop {
 public:
  virtual ~Interop() = default;
  // Registers `texture` (GL_RGBA32F, width x height) for surface writes. False, with the reason in
  // `why`, when the driver refuses: the caller falls back to the copy path and says so.
  virtual bool attach(unsigned texture, int width, int height, std::string* why) = 0;
  // Uploads the source frame (its host memory page-locked once, so the copy is asynchronous;
  // 8-bit frames are widened to float on the GPU), filters it into the mapped texture with the
  // engine (planned for RGBA32F), unmaps. Fills `timing` from CUDA events. Throws
  // std::runtime_error with the CUDA error on failure (out of memory included).
  // `upload` false reuses the frame already on the GPU (a still image filtered again).
  virtual void run(Engine& engine, const app::Frame& frame, bool upload, FrameTiming* timing) = 0;
};

// Null, with the reason in `why`, when this build or machine has no CUDA.
std::unique_ptr<Interop> make_cuda_gl_interop(std::string* why);

}  // namespace rf::gui
