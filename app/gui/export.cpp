#include "app/gui/export.h"

#include <glad/gl.h>

#include <cstring>
#include <fstream>

#include "app/io/atomic_file.h"
#include "app/io/image_io.h"
#include "filters/core/errors.h"

namespace rf::gui {

Rgba8Image read_framebuffer(unsigned framebuffer, int width, int height) {
  Rgba8Image img;
  img.width = width;
  img.height = height;
  img.pixels.resize(std::size_t(width) * height * 4);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
  if (framebuffer == 0) glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, img.pixels.data());
  const std::size_t row = std::size_t(width) * 4;
  std::vector<std::uint8_t> tmp(row);
  for (int y = 0; y < height / 2; ++y) {
    std::uint8_t* a = img.pixels.data() + row * y;
    std::uint8_t* b = img.pixels.data() + row * (height - 1 - y);
    std::memcpy(tmp.data(), a, row);
    std::memcpy(a, b, row);
    std::memcpy(b, tmp.data(), row);
  }
  // The UI is opaque; alpha from blending would make viewers show it translucent.
  for (std::size_t i = 3; i < img.pixels.size(); i += 4) img.pixels[i] = 255;
  return img;
}

void write_result(const std::string& path, const Image& rgba) {
  Image rgb(rgba.width, rgba.height, 3);
  for (std::size_t i = 0; i < std::size_t(rgba.width) * rgba.height; ++i)
    for (int c = 0; c < 3; ++c)
      rgb.pixels[3 * i + c] = rgba.pixels[std::size_t(rgba.channels) * i + c];
  io::write_image(path, rgb);
}

void write_text(const std::string& path, const std::string& text) {
  io::write_atomically(path, [&](const std::string& temp) {
    std::ofstream f(temp);
    f << text << "\n";
    f.close();
    if (!f) throw IoError(path + ": cannot write");
  });
}

FileWriter::FileWriter() : thread_([this] { run(); }) {}

FileWriter::~FileWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void FileWriter::add(std::string name, std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.emplace_back(std::move(name), std::move(task));
  }
  wake_.notify_all();
}

std::vector<FileWriter::Done> FileWriter::take_done() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Done> out;
  out.swap(done_);
  return out;
}

void FileWriter::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !working_; });
}

bool FileWriter::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !queue_.empty() || working_;
}

void FileWriter::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    // Queued tasks are finished even when stopping: an export asked for is written.
    if (queue_.empty()) return;
    auto [name, task] = std::move(queue_.front());
    queue_.pop_front();
    working_ = true;
    lock.unlock();
    Done d{std::move(name), {}};
    try {
      task();
    } catch (const std::exception& e) {
      d.error = e.what();
    }
    lock.lock();
    done_.push_back(std::move(d));
    working_ = false;
    if (queue_.empty()) idle_.notify_all();
  }
}

}  // namespace rf::gui
