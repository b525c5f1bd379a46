// Export: screenshots of the framebuffer, results as PNG or PFM, JSON sidecars.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/gui/image_codec.h"
#include "filters/core/image.h"

namespace rf::gui {

// The framebuffer's pixels, rows top to bottom (GL returns them bottom-up).
Rgba8Image read_framebuffer(unsigned framebuffer, int width, int height);

// The RGB channels of a float RGBA result through rf::io: .png quantises to 8 bits, .pfm keeps
// float32. Throws IoError naming the file.
void write_result(const std::string& path, const Image& rgba);

void write_text(const std::string& path, const std::string& text);

// Writes files on a thread of its own, one task after another in the order given, so that the UI
// does not wait for encoders and the disk. What finished is collected on the UI thread.
class FileWriter {
 public:
  struct Done {
    std::string name;   // given with the task
    std::string error;  // what the task threw; empty when it succeeded
  };

  FileWriter();
  ~FileWriter();  // finishes the queued tasks first
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  // `task` writes its files, throwing on failure.
  void add(std::string name, std::function<void()> task);
  // The tasks finished since the last call, in the order given.
  std::vector<Done> take_done();
  // Returns once every task given so far has finished.
  void wait_idle();
  bool busy() const;

 private:
  void run();

  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<std::pair<std::string, std::function<void()>>> queue_;
  std::vector<Done> done_;
  bool working_ = false, stop_ = false;
  std::thread thread_;
};

}  // namespace rf::gui
