// The processing path: the one place a frame is filtered. The input frame becomes a float RGBA
// image and a GL texture; the engine filters it either through CUDA-GL interop straight into the
// result texture, or on the copy path (host result + glTexSubImage2D). Either way the result is
// sampled by the compositor from the same texture.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "app/gui/frame_timing.h"
#include "app/gui/gl_util.h"
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

  // A new frame from the source: converted to float RGBA on [0, 1] and uploaded as the original.
  // The frame must stay alive until the next set_frame (the interop path uploads it as is).
  void set_frame(const app::Frame& frame);
  bool has_frame() const { return !input_.empty(); }

  // Filters the current frame when the spec or the frame changed, or always when `always` is set
  // (live timing). Returns true when it filtered. Errors (bad parameter, engine failure, GPU out
  // of memory) leave the last result in place and are reported by error().
  bool process(const FilterSpec& spec, bool always);

  // Per-stage times from the engine. On the CUDA backend they cost the CUDA graph (each stage is
  // launched and timed separately), so they are off there unless asked for; the interop path's
  // own events still time upload, filter and interop.
  bool stage_timing = false;

  GLuint original_texture() const { return original_.id(); }
  // 0 until the first result exists.
  GLuint result_texture() const { return have_result_ ? result_tex_.id() : 0; }
  int width() const { return input_.width; }
  int height() const { return input_.height; }

  // The frame as float RGBA on [0, 1], converted on first use after each new frame.
  const Image& input();
  // The result on the host; on the interop path it is read back from the texture when asked for.
  const Image& result();
  // Increases whenever the result changes (a new frame or a new spec); truth and profiles key on
  // it.
  std::uint64_t result_version() const { return result_version_; }
  std::uint64_t frame_version() const { return frame_version_; }

  const FrameTiming& timing() const { return timing_; }
  // For people: "CPU, OpenMP 2 threads (CUDA unavailable: built without CUDA)".
  const std::string& backend_line() const { return backend_line_; }
  // "CUDA-GL interop" or "copy path (glTexSubImage2D)" and, on a fallback, why.
  const std::string& path_line() const { return path_line_; }
  Backend running_backend() const { return engine_ ? engine_->backend() : Backend::Cpu; }
  // Empty while healthy; otherwise what went wrong with the last attempt.
  const std::string& error() const { return error_; }

 private:
  void ensure_engine(Backend requested);
  void run_copy_path();

  std::unique_ptr<Engine> engine_;
  Backend requested_backend_ = Backend::Auto;
  bool engine_tried_ = false;
  std::unique_ptr<Interop> interop_;
  bool interop_attached_ = false;
  std::string interop_why_;

  const app::Frame* frame_ = nullptr;  // the source's frame (the interop path uploads it as is)
  Image input_, result_;
  bool input_stale_ = false;
  bool result_on_host_ = true;
  Texture original_, result_tex_;
  FilterSpec last_spec_;
  bool have_result_ = false;
  std::uint64_t frame_version_ = 0, filtered_frame_ = ~0ull, result_version_ = 0;
  std::uint64_t uploaded_frame_ = ~0ull;  // the frame the interop path holds on the GPU

  FrameTiming timing_;
  std::string backend_line_, path_line_, error_;
};

}  // namespace rf::gui
