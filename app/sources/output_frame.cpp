#include "app/sources/output_frame.h"

namespace rf::app {

// Shared by the pool and every frame it handed out, so a frame released after the pool is gone
// still frees its memory.
struct OutputFramePool::State {
  std::mutex mutex;
  std::vector<OutputFrame*> free;
  std::size_t count = 0;
  bool closed = false;  // the pool is gone: returned buffers are freed
  Allocate allocate;
  Free release;

  void destroy(OutputFrame* f) {
    if (f->data) release(f->data);
    delete f;
  }
};

OutputFramePool::OutputFramePool(std::size_t count, Allocate allocate, Free free)
    : state_(std::make_shared<State>()) {
  state_->count = count;
  state_->allocate =
      allocate ? std::move(allocate) : [](std::size_t bytes) { return new std::uint8_t[bytes]; };
  state_->release = free ? std::move(free) : [](std::uint8_t* p) { delete[] p; };
  for (std::size_t i = 0; i < count; ++i) state_->free.push_back(new OutputFrame);
}

OutputFramePool::~OutputFramePool() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->closed = true;
  for (OutputFrame* f : state_->free) state_->destroy(f);
  state_->free.clear();
}

std::shared_ptr<OutputFrame> OutputFramePool::acquire(int width, int height) {
  OutputFrame* f = nullptr;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->free.empty()) return nullptr;
    f = state_->free.back();
    state_->free.pop_back();
  }
  const std::size_t bytes = std::size_t(width) * height * 4;
  if (f->capacity < bytes) {
    try {
      if (f->data) state_->release(f->data);
      f->data = nullptr;
      f->capacity = 0;
      f->data = state_->allocate(bytes);
      f->capacity = bytes;
    } catch (...) {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->free.push_back(f);
      throw;
    }
  }
  f->width = width;
  f->height = height;
  f->index = 0;
  f->fps = 0.0;
  std::shared_ptr<State> state = state_;
  return std::shared_ptr<OutputFrame>(f, [state](OutputFrame* done) {
    std::lock_guard<std::mutex> lock(state->mutex);
    if (state->closed)
      state->destroy(done);
    else
      state->free.push_back(done);
  });
}

std::size_t OutputFramePool::available() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->free.size();
}

}  // namespace rf::app
