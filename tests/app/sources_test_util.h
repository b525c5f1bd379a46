// Shared by the source tests: temporary folders and waiting for a source's next frame.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "app/sources/source.h"
#include "tests/temp_dir.h"

namespace rf::app::test {

using rf::test_util::TempDir;

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
