// A frame held on the GPU, for tools and tests that exercise the engine's Device and CudaSurface
// paths from plain C++ (no CUDA types here). Without CUDA the constructor throws
// BackendUnavailable.
#pragma once

#include <cstddef>
#include <memory>

#include "filters/core/image.h"

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

}  // namespace rf::cuda
