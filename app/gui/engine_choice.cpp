#include "app/gui/engine_choice.h"

#include <exception>

namespace rf::gui {
namespace {

constexpr const char* kCopyPath = "copy path (glTexSubImage2D)";

}  // namespace

bool EngineChoice::select(Backend requested, const EngineFactory& engines,
                          const PipelineFactory& pipelines, std::string* error) {
  if (selected_ && requested == requested_) return false;
  selected_ = true;
  requested_ = requested;
  pipeline_.reset();
  engine_.reset();
  std::string note;
  try {
    engine_ = engines(requested, &note);
  } catch (const std::exception& e) {
    // A CUDA request without a device falls back to the CPU, and the UI says so.
    *error = e.what();
    try {
      engine_ = make_cpu_engine();
      note = std::string(e.what()) + ": running on CPU";
    } catch (const std::exception& e2) {
      backend_line_ = std::string("no filter engine: ") + e2.what();
      return true;
    }
  }
  backend_line_ = engine_->description();
  if (!note.empty()) backend_line_ += " (" + note + ")";
  if (engine_->backend() == Backend::Cuda) {
    std::string why;
    pipeline_ = pipelines(&why);
    path_line_ = pipeline_ ? "CUDA-GL interop, pipelined (up to " +
                                 std::to_string(GpuPipeline::kMaxSlots) + " frames in flight)"
                           : "copy path: " + why;
  } else {
    path_line_ = kCopyPath;
  }
  return true;
}

bool EngineChoice::fall_back_to_cpu(const std::string& why) {
  if (!engine_ || engine_->backend() != Backend::Cuda) return false;
  engine_.reset();
  try {
    engine_ = make_cpu_engine();
  } catch (const std::exception& e) {
    backend_line_ = std::string("no filter engine: ") + e.what();
    return false;
  }
  backend_line_ = engine_->description() + " (CUDA failed: " + why + "; running on CPU)";
  path_line_ = kCopyPath;
  notices_.push_back("GPU fault (" + why + "): running on the CPU backend");
  return true;
}

std::unique_ptr<GpuPipeline> EngineChoice::drop_pipeline(const std::string& why) {
  path_line_ = "copy path: CUDA-GL interop failed (" + why + ")";
  notices_.push_back("GPU fault on the interop path (" + why + "): using the copy path");
  return std::move(pipeline_);
}

std::vector<std::string> EngineChoice::take_notices() {
  std::vector<std::string> out;
  out.swap(notices_);
  return out;
}

}  // namespace rf::gui
