// Filtered frames on their way out of the application: to the recorder and to a camera output
// device. One frame is shared by both without a copy; its memory (pinned on the GPU path, so the
// readback is asynchronous) returns to its pool when the last of them lets go.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace rf::app {

// One filtered frame as 8-bit RGBA, rows packed.
struct OutputFrame {
  int width = 0;
  int height = 0;
  std::uint64_t index = 0;  // the source frame's index
  double fps = 0.0;         // the source's nominal rate (0: unknown)
  std::uint8_t* data = nullptr;
  std::size_t capacity = 0;  // bytes of `data`
  std::size_t bytes() const { return std::size_t(width) * height * 4; }
};

// A bounded set of reusable frame buffers. acquire() never blocks: it returns null when every
// buffer is still held by a consumer, and the caller then holds its frame back (the pipeline's
// back-pressure) instead of dropping it. The allocator can hand out pinned host memory.
class OutputFramePool {
 public:
  using Allocate = std::function<std::uint8_t*(std::size_t bytes)>;
  using Free = std::function<void(std::uint8_t*)>;

  // Plain heap memory by default.
  explicit OutputFramePool(std::size_t count, Allocate allocate = {}, Free free = {});
  ~OutputFramePool();
  OutputFramePool(const OutputFramePool&) = delete;
  OutputFramePool& operator=(const OutputFramePool&) = delete;

  // A free buffer of at least width * height * 4 bytes (reallocated when smaller), or null.
  std::shared_ptr<OutputFrame> acquire(int width, int height);
  // How many buffers are free now.
  std::size_t available() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace rf::app
