// Which engine filters the frames and which way they travel: the pipelined CUDA-GL path where the
// CUDA engine and interop work, the copy path otherwise. A GPU fault steps down, pipelined to copy
// path and CUDA to CPU engine, and each step is told once (take_notices) and stated in the lines
// the status bar and the Timing panel show.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/interop.h"
#include "filters/core/engine.h"

namespace rf::gui {

using EngineFactory = std::function<std::unique_ptr<Engine>(Backend, std::string*)>;
using PipelineFactory = std::function<std::unique_ptr<GpuPipeline>(std::string*)>;

class EngineChoice {
 public:
  // Makes the engine (and, for CUDA, the pipeline) for `requested` unless that was done already.
  // True when it made them anew: the caller's plans and results are void then. A request the
  // factory refuses (CUDA without a device) gets the CPU engine and the reason in `error`; when
  // no engine can be made at all, engine() stays null.
  bool select(Backend requested, const EngineFactory& engines, const PipelineFactory& pipelines,
              std::string* error);
  Engine* engine() const { return engine_.get(); }
  // The pipelined path; null on the copy path.
  GpuPipeline* pipeline() const { return pipeline_.get(); }
  Backend running_backend() const { return engine_ ? engine_->backend() : Backend::Cpu; }

  // The CUDA engine gives way to the CPU's after a GPU fault on the copy path; false when there
  // is no CUDA engine to replace (or no CPU engine can be made).
  bool fall_back_to_cpu(const std::string& why);
  // The pipelined path gives way to the copy path; the failed pipeline is returned, for the
  // frames it finished.
  std::unique_ptr<GpuPipeline> drop_pipeline(const std::string& why);

  // For people: "CPU, OpenMP 2 threads (CUDA unavailable: built without CUDA)".
  const std::string& backend_line() const { return backend_line_; }
  // "CUDA-GL interop, pipelined" or "copy path (glTexSubImage2D)" and, on a fallback, why.
  const std::string& path_line() const { return path_line_; }
  // Messages for the status bar since the last call: the fallbacks taken, and why.
  std::vector<std::string> take_notices();

 private:
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<GpuPipeline> pipeline_;
  Backend requested_ = Backend::Auto;
  bool selected_ = false;
  std::string backend_line_, path_line_;
  std::vector<std::string> notices_;
};

}  // namespace rf::gui
