// Shared by the recording tests: a temporary folder, and ffprobe/ffmpeg to read a recording back.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app/sources/child_process.h"
#include "tests/temp_dir.h"

namespace rf::gui::test {

using rf::test_util::TempDir;

inline bool have_ffmpeg() {
  return !app::detail::find_program("ffmpeg").empty() &&
         !app::detail::find_program("ffprobe").empty();
}

// What ffprobe finds in a video by decoding it: frames, size, codec. frames -1: unreadable.
struct VideoFacts {
  int frames = -1, width = 0, height = 0;
  std::string codec;
};

inline VideoFacts probe(const std::string& path) {
  std::string out, err;
  const int rc = app::detail::run_program(
      {app::detail::find_program("ffprobe"), "-v", "error", "-count_frames", "-select_streams",
       "v:0", "-show_entries", "stream=nb_read_frames,width,height,codec_name", "-of",
       "default=noprint_wrappers=1", path},
      out, err, 60.0);
  VideoFacts f;
  if (rc != 0) return f;
  auto value = [&](const std::string& key) {
    const std::size_t at = out.find(key + "=");
    if (at == std::string::npos) return std::string();
    const std::size_t end = out.find('\n', at);
    return out.substr(at + key.size() + 1, end - at - key.size() - 1);
  };
  f.frames = std::atoi(value("nb_read_frames").c_str());
  f.width = std::atoi(value("width").c_str());
  f.height = std::atoi(value("height").c_str());
  f.codec = value("codec_name");
  return f;
}

// Every frame decoded to RGBA8, rows packed; empty when ffmpeg fails.
inline std::vector<std::vector<std::uint8_t>> decode_rgba(const std::string& path, int width,
                                                          int height) {
  std::string out, err;
  const int rc = app::detail::run_program({app::detail::find_program("ffmpeg"), "-v", "error", "-i",
                                           path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"},
                                          out, err, 120.0);
  std::vector<std::vector<std::uint8_t>> frames;
  if (rc != 0) return frames;
  const std::size_t n = std::size_t(width) * height * 4;
  for (std::size_t at = 0; at + n <= out.size(); at += n)
    frames.emplace_back(out.begin() + std::ptrdiff_t(at), out.begin() + std::ptrdiff_t(at + n));
  return frames;
}

}  // namespace rf::gui::test
