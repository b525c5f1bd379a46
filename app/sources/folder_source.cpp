// An image folder played as a sequence: files in natural order, decoded ahead on a worker thread
// so that poll() never waits for a decoder.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "app/io/image_io.h"
#include "app/sources/source.h"
#include "app/sources/source_detail.h"
#include "filters/core/errors.h"

namespace rf::app {
namespace {

std::vector<std::string> list_images(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) throw IoError(dir + ": cannot open folder: " + std::strerror(errno));
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.empty() || name[0] == '.') continue;
    if (!detail::is_image_extension(detail::lower_extension(name))) continue;
    struct stat st {};
    if (::stat((dir + "/" + name).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end(), detail::natural_less);
  return names;
}

class FolderSource final : public Source {
 public:
  FolderSource(const std::string& dir, double fps, bool loop)
      : dir_(dir), loop_(loop), pacer_(fps, 1, mutex_, wake_), files_(list_images(dir)) {
    if (files_.empty())
      throw IoError(dir + ": no images in this folder (" + io::kImageExtensions + ")");
    // The first readable image is decoded here, so the folder either opens with a picture or
    // fails with a reason.
    std::string first_error;
    for (std::size_t i = 0; i < files_.size() && latest_.bytes.empty(); ++i) {
      Frame f;
      std::string error;
      if (decode(i, f, error)) {
        show(std::move(f), i);
        next_file_ = i;
        advance();
      } else {
        note_skipped(i, error);
        if (first_error.empty()) first_error = error;
      }
    }
    if (latest_.bytes.empty())
      throw IoError(dir + ": none of its " + std::to_string(files_.size()) +
                    " images could be read (" + first_error + ")");
    worker_ = std::thread([this] { run(); });
  }

  ~FolderSource() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    worker_.join();
  }

  std::string description() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    char fps[32];
    std::snprintf(fps, sizeof fps, "%g", pacer_.clock.fps());
    return detail::base_name(dir_) + "/ " + std::to_string(files_.size()) + " images at " + fps +
           " fps, " + detail::base_name(latest_name_) + " " + std::to_string(latest_.width) + "x" +
           std::to_string(latest_.height);
  }

  bool poll(Frame& frame) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!frame.bytes.empty() && frame.index >= latest_.index) return false;
    frame = latest_;
    return true;
  }

  std::string status() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (skipped_.empty()) return {};
    std::string names;
    for (std::size_t i = 0; i < skipped_.size() && i < 4; ++i)
      names += (i ? ", " : "") + skipped_[i];
    if (skipped_.size() > 4) names += ", ...";
    return "skipped " + std::to_string(skipped_.size()) + " unreadable image" +
           (skipped_.size() > 1 ? "s" : "") + ": " + names + " (" + last_error_ + ")";
  }

  void set_paused(bool paused) override { pacer_.set_paused(paused); }
  void step() override { pacer_.step(); }

  bool animated() const override { return true; }
  double fps() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return pacer_.clock.fps();
  }

 private:
  // Runs outside the lock: decoding is the slow part.
  bool decode(std::size_t i, Frame& f, std::string& error) const {
    try {
      f = detail::read_frame(dir_ + "/" + files_[i]);
      return true;
    } catch (const std::exception& e) {
      error = e.what();
      return false;
    }
  }

  // The two below run with mutex_ held (or before the worker starts).
  void note_skipped(std::size_t i, const std::string& error) {
    if (std::find(skipped_.begin(), skipped_.end(), files_[i]) == skipped_.end())
      skipped_.push_back(files_[i]);
    last_error_ = error;
  }
  void show(Frame f, std::size_t i) {
    f.index = detail::next_frame_index();
    latest_ = std::move(f);
    latest_name_ = files_[i];
  }

  // Moves to the next file in order; past the last one, loops or marks the folder exhausted.
  void advance() {
    if (++next_file_ == files_.size()) {
      if (loop_)
        next_file_ = 0;
      else
        exhausted_ = true;
    }
  }

  // Decodes the next image as soon as the previous one is shown, then holds it until its time
  // (or a step): the decoder's latency is hidden behind the frame period.
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    std::size_t failures_in_a_row = 0;
    while (!stop_) {
      if (!pending_ready_) {
        if (exhausted_) {
          wake_.wait(lock, [&] { return stop_; });
          break;
        }
        const std::size_t file = next_file_;
        lock.unlock();
        std::string error;
        const bool ok = decode(file, pending_, error);
        lock.lock();
        advance();
        if (ok) {
          pending_ready_ = true;
          pending_file_ = file;
          failures_in_a_row = 0;
        } else {
          note_skipped(file, error);
          // Every file failed in a row (deleted while playing): nothing left to show.
          if (++failures_in_a_row >= files_.size()) exhausted_ = true;
        }
        continue;
      }
      if (!pacer_.wait_for_turn(lock, stop_)) break;
      show(std::move(pending_), pending_file_);
      pending_ = Frame();
      pending_ready_ = false;
      pacer_.shown();
    }
  }

  const std::string dir_;
  const bool loop_;
  mutable std::mutex mutex_;  // guards everything below that the worker and poll() share
  std::condition_variable wake_;
  detail::Pacer pacer_;  // frame 0 is shown at open, the worker starts at 1
  const std::vector<std::string> files_;
  std::vector<std::string> skipped_;
  std::string last_error_;
  Frame latest_;
  std::string latest_name_;
  Frame pending_;  // decoded ahead, shown when its time comes; touched by the worker only
  bool pending_ready_ = false;
  std::size_t pending_file_ = 0;
  std::size_t next_file_ = 0;  // the next file to decode
  bool exhausted_ = false;     // no more files to decode (the end without looping)
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace

std::unique_ptr<Source> open_folder(const std::string& dir, double fps, bool loop) {
  return std::make_unique<FolderSource>(dir, fps, loop);
}

}  // namespace rf::app
