// Shared by the source tests: temporary folders and waiting for a source's next frame.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "app/sources/source.h"

namespace rf::app::test {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents at scope exit. Unique per
// process: CTest runs test cases in parallel processes.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/rfsources-XXXXXX";
    if (::mkdtemp(pattern.data())) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Polls `source` until it delivers a frame newer than `frame`, for at most `timeout_s`.
inline bool wait_for_frame(Source& source, Frame& frame, double timeout_s = 5.0) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long>(timeout_s * 1000.0));
  while (std::chrono::steady_clock::now() < deadline) {
    if (source.poll(frame)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

}  // namespace rf::app::test
