// A frame held on the GPU, for tools and tests that exercise the engine's Device and CudaSurface
// paths from plain C++ (no CUDA types here). Without CUDA the constructor throws
// BackendUnavailable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "image.h"

namespace rf::cuda {

class DeviceFrame {
 public:
  // space is Device (a pitched buffer) or CudaSurface (a CUDA array with a surface object).
  DeviceFrame(int width, int height, PixelFormat format, MemorySpace space);
  ~DeviceFrame();
  DeviceFrame(const DeviceFrame&) = delete;
  DeviceFrame& operator=(const DeviceFrame&) = delete;

  // Host rows of width * bytes_per_pixel(format) bytes, `pitch` bytes apart (0: packed).
  void upload(const void* host, std::size_t pitch = 0);
  void download(void* host, std::size_t pitch = 0) const;
  // Fills every byte with 0xFF: NaN for float formats, so an unwritten pixel shows.
  void poison();
  FrameView view() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Blocks until the work queued on `stream` is done: a cudaStream_t, or the CUDA handles
// 1 (cudaStreamLegacy) and 2 (cudaStreamPerThread); nullptr is the default stream.
void synchronize(void* stream = nullptr);

// The CUDA device the engines run on (the calling thread's current device), and the device whose
// memory `p` points into (-1: host memory), so that callers can check where memory from elsewhere
// lives. Both throw BackendUnavailable without CUDA.
int current_device();
int pointer_device(const void* p);

// The lines along the middle axis of a float array of shape (outer, n, inner) in device memory, as
// the columns of a pitched frame of n rows of outer * inner floats (row j, column o * inner + i
// holds src[(o * n + j) * inner + i]), and back: how rf::ArrayFilter filters one axis of a batch
// in one launch of the engine. Queued on `stream` (a cudaStream_t).
void gather_axis(const float* src, float* frame, std::size_t frame_pitch, std::int64_t outer, int n,
                 std::int64_t inner, void* stream);
void scatter_axis(const float* frame, std::size_t frame_pitch, float* dst, std::int64_t outer,
                  int n, std::int64_t inner, void* stream);
// `count` floats copied within device memory on `stream`.
void copy_on_device(const float* src, float* dst, std::size_t count, void* stream);

}  // namespace rf::cuda
