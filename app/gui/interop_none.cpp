// Builds without the CUDA backend have no interop: the copy path (glTexSubImage2D) runs.
#include "app/gui/interop.h"

namespace rf::gui {

std::unique_ptr<GpuPipeline> make_cuda_gl_pipeline(std::string* why) {
  if (why) *why = "built without CUDA";
  return nullptr;
}

}  // namespace rf::gui
