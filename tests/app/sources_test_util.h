// Shared by the source tests: temporary folders and waiting for a source's next frame.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "app/sources/source.h"
#include "tests/temp_dir.h"

namespace rf::app::test {

using rf::test_util::TempDir;

// How long a test waits for something that must happen before it calls the source hung. Only a
// broken source reaches it: the sources deliver within milliseconds even on a loaded machine, and
// no test asserts how fast they do.
constexpr double kHangGuardSeconds = 30.0;

// Calls `done` every 2 ms until it returns true; false when it still has not after `timeout_s`.
inline bool wait_until(const std::function<bool()>& done, double timeout_s = kHangGuardSeconds) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long>(timeout_s * 1000.0));
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// Polls `source` until it delivers a frame newer than `frame`. Waiting for a frame that must come,
// leave `timeout_s` alone; a short one checks that none comes in that window (paused, ended).
inline bool wait_for_frame(Source& source, Frame& frame, double timeout_s = kHangGuardSeconds) {
  return wait_until([&] { return source.poll(frame); }, timeout_s);
}

// Seconds of the steady clock since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace rf::app::test
