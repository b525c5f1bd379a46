// Video files through an ffmpeg child process that decodes to raw RGBA on a pipe. A reader thread
// paces the frames to the stream's rate and keeps only the newest; ffmpeg simply blocks on the
// pipe while the video is paused.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>
#include <utility>

#include "app/sources/child_process.h"
#include "app/sources/source.h"
#include "app/sources/source_detail.h"
#include "filters/core/errors.h"

namespace rf::app {
namespace {

constexpr double kDefaultFps = 25.0;
constexpr double kMaxFps = 240.0;
constexpr int kMaxSide = 16384;

struct VideoInfo {
  int width = 0;  // as displayed: after the rotation ffmpeg applies
  int height = 0;
  double fps = 0.0;
  // Whether the size accounts for the stream's display rotation (phone videos store a rotation
  // of +-90 degrees instead of rotated pixels). ffmpeg rotates when it does; otherwise the
  // frames are taken as coded.
  bool rotation_known = false;
};

// "30000/1001" or "25" -> frames per second; 0 when absent ("0/0") or unreadable.
double parse_rate(const std::string& s) {
  double num = 0.0, den = 1.0;
  char slash = 0;
  std::istringstream in(s);
  if (!(in >> num)) return 0.0;
  if (in >> slash && slash == '/' && !(in >> den)) return 0.0;
  return den > 0.0 && num > 0.0 ? num / den : 0.0;
}

// The last non-empty line of a program's messages, without ffmpeg's "[decoder @ 0x...] " prefix.
std::string last_line(const std::string& text) {
  const std::size_t end = text.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return {};
  const std::size_t newline = text.find_last_of("\r\n", end);
  std::size_t begin = newline == std::string::npos ? 0 : newline + 1;
  if (text[begin] == '[') {
    const std::size_t close = text.find("] ", begin);
    if (close != std::string::npos && close < end) begin = close + 2;
  }
  return text.substr(begin, end - begin + 1);
}

// The messages up to the end of the last line the program has finished: ffmpeg writes a line's
// "[decoder @ 0x...] " prefix and its text apart, so a read can end between them (and a status
// built then named the prefix alone).
std::string finished_lines(const std::string& text) {
  const std::size_t newline = text.find_last_of('\n');
  return newline == std::string::npos ? std::string() : text.substr(0, newline + 1);
}

VideoInfo probe_with_ffprobe(const std::string& ffprobe, const std::string& path) {
  std::string out, err;
  const int rc = detail::run_program(
      {ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries",
       "stream=width,height,avg_frame_rate,r_frame_rate:stream_side_data=rotation", "-of",
       "default=noprint_wrappers=1", path},
      out, err, 20.0);
  if (rc != 0) {
    const std::string why = last_line(err);
    throw IoError(path + ": not a readable video (" + (why.empty() ? "ffprobe failed" : why) + ")");
  }
  VideoInfo info;
  double avg = 0.0, r = 0.0;
  int rotation = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "width") info.width = std::atoi(value.c_str());
    if (key == "height") info.height = std::atoi(value.c_str());
    if (key == "avg_frame_rate") avg = parse_rate(value);
    if (key == "r_frame_rate") r = parse_rate(value);
    if (key == "rotation") rotation = std::atoi(value.c_str());
  }
  if (((rotation % 180) + 180) % 180 == 90) std::swap(info.width, info.height);
  info.rotation_known = true;
  // The average rate is the true one for variable-rate streams (GIFs declare r = 100 fps).
  info.fps = avg > 0.0 ? avg : r;
  return info;
}

// Without ffprobe, ffmpeg's own description of the stream on stderr:
//   Stream #0:0(und): Video: h264 (High), yuv420p(progressive), 64x48 [SAR 1:1 DAR 4:3], 10 fps
VideoInfo probe_with_ffmpeg(const std::string& ffmpeg, const std::string& path) {
  std::string out, err;
  detail::run_program({ffmpeg, "-hide_banner", "-nostdin", "-i", path}, out, err, 20.0);
  std::smatch m;
  static const std::regex kStream(R"(Stream #[^\n]*Video:[^\n]*?, (\d+)x(\d+)[^\n]*)");
  if (!std::regex_search(err, m, kStream)) {
    const std::string why = last_line(err);
    throw IoError(path + ": not a readable video (" + (why.empty() ? "no video stream" : why) +
                  ")");
  }
  VideoInfo info;
  info.width = std::stoi(m[1]);
  info.height = std::stoi(m[2]);
  const std::string line = m[0];
  static const std::regex kFps(R"(([\d.]+) fps)");
  std::smatch f;
  if (std::regex_search(line, f, kFps)) info.fps = std::atof(f[1].str().c_str());
  return info;
}

class VideoSource final : public Source {
 public:
  VideoSource(const std::string& path, bool loop)
      : path_(path), loop_(loop), pacer_(1.0, 0, mutex_, wake_) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw IoError(path + ": " + std::strerror(errno));
    ffmpeg_ = detail::find_program("ffmpeg");
    if (ffmpeg_.empty()) throw IoError("video needs ffmpeg, which is not installed");
    const std::string ffprobe = detail::find_program("ffprobe");
    info_ = ffprobe.empty() ? probe_with_ffmpeg(ffmpeg_, path) : probe_with_ffprobe(ffprobe, path);
    if (info_.width <= 0 || info_.height <= 0 || info_.width > kMaxSide || info_.height > kMaxSide)
      throw IoError(path + ": no video stream of a usable size (" + std::to_string(info_.width) +
                    "x" + std::to_string(info_.height) + ")");
    if (!(info_.fps > 0.0) || info_.fps > kMaxFps) info_.fps = kDefaultFps;
    pacer_.clock = detail::FrameClock(info_.fps);
    reader_ = std::thread([this] { run(); });
  }

  ~VideoSource() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    reader_.join();
  }

  std::string description() const override {
    char fps[32];
    std::snprintf(fps, sizeof fps, "%.4g", info_.fps);
    return detail::base_name(path_) + " " + std::to_string(info_.width) + "x" +
           std::to_string(info_.height) + " " + fps + " fps";
  }

  bool poll(Frame& frame) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (latest_.bytes.empty()) return false;
    if (!frame.bytes.empty() && frame.index >= latest_.index) return false;
    frame = latest_;
    return true;
  }

  std::string status() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return status_;
  }

  void set_paused(bool paused) override { pacer_.set_paused(paused); }
  void step() override { pacer_.step(); }

  bool animated() const override { return true; }
  double fps() const override { return info_.fps; }

 private:
  enum class Read { Frame, End, Stopped };

  // Reads one whole frame into `buffer`, collecting ffmpeg's stderr on the way. Polls with a
  // timeout so that a stop request is seen while ffmpeg is slow or stuck.
  Read read_frame(detail::ChildProcess& child, std::vector<std::uint8_t>& buffer,
                  std::size_t& filled, std::string& errors) {
    pollfd fds[2] = {{child.stdout_fd(), POLLIN, 0}, {child.stderr_fd(), POLLIN, 0}};
    char text[1024];
    while (filled < buffer.size()) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stop_) return Read::Stopped;
      }
      const int n = ::poll(fds, 2, 100);
      if (n < 0 && errno != EINTR) return Read::End;
      if (n <= 0) continue;
      if (fds[1].fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        const ssize_t got = ::read(fds[1].fd, text, sizeof text);
        if (got > 0) {
          errors.append(text, std::size_t(got));
          error_bytes_ += std::size_t(got);
          if (errors.size() > 4096) errors.erase(0, errors.size() - 4096);
        } else if (got == 0 || errno != EINTR) {
          fds[1].fd = -1;
        }
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t got = ::read(fds[0].fd, buffer.data() + filled, buffer.size() - filled);
        if (got > 0)
          filled += std::size_t(got);
        else if (got == 0 || errno != EINTR)
          return Read::End;
      }
    }
    return Read::Frame;
  }

  void run() {
    const std::vector<std::string> argv = ffmpeg_argv();
    std::vector<std::uint8_t> buffer(std::size_t(info_.width) * info_.height * 4);
    for (bool first_run = true; play(argv, buffer, first_run); first_run = false) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_) return;
    }
  }

  // -r makes the output constant-rate at the rate the frames are paced to. Without a known
  // rotation, -noautorotate keeps the coded size the probe reported.
  std::vector<std::string> ffmpeg_argv() const {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.6g", info_.fps);
    std::vector<std::string> argv = {ffmpeg_, "-nostdin", "-hide_banner", "-loglevel", "error"};
    if (!info_.rotation_known) argv.push_back("-noautorotate");
    argv.insert(argv.end(),
                {"-i", path_, "-an", "-sn", "-r", rate, "-f", "rawvideo", "-pix_fmt", "rgba", "-"});
    return argv;
  }

  // Plays the file once through ffmpeg, each frame at its time; true when it should play again
  // (looping, not stopped).
  bool play(const std::vector<std::string>& argv, std::vector<std::uint8_t>& buffer,
            bool first_run) {
    std::unique_ptr<detail::ChildProcess> child;
    try {
      child = std::make_unique<detail::ChildProcess>(argv);
    } catch (const std::exception& e) {
      set_status(path_ + ": " + e.what());
      return false;
    }
    // A larger pipe moves a big frame in fewer reads; the default 64 KiB is fine otherwise.
    ::fcntl(child->stdout_fd(), F_SETPIPE_SZ, 1 << 20);
    std::string errors;
    std::uint64_t frames = 0;
    std::size_t filled = 0;
    Read r;
    std::size_t errors_reported = error_bytes_;
    while ((r = read_frame(*child, buffer, filled, errors)) == Read::Frame) {
      // ffmpeg conceals damage and decodes on; say that the file is damaged.
      if (error_bytes_ != errors_reported) {
        const std::string why = last_line(finished_lines(errors));
        if (!why.empty()) {
          errors_reported = error_bytes_;
          set_status(detail::base_name(path_) + ": damaged data, playing on (" + why + ")");
        }
      }
      if (!show(buffer, first_run && frames == 0)) return false;
      ++frames;
      filled = 0;
    }
    if (r == Read::Stopped) return false;
    return play_again(child->wait(), frames, filled != 0, last_line(errors));
  }

  // Makes the frame in `buffer` the newest once its time has come (the very first frame of the
  // video at once); false when stopped meanwhile.
  bool show(std::vector<std::uint8_t>& buffer, bool very_first) {
    const std::size_t frame_bytes = buffer.size();
    std::unique_lock<std::mutex> lock(mutex_);
    if (!very_first && !pacer_.wait_for_turn(lock, stop_)) return false;
    latest_.width = info_.width;
    latest_.height = info_.height;
    latest_.format = PixelFormat::RGBA8;
    latest_.bytes.swap(buffer);
    latest_.index = detail::next_frame_index();
    if (buffer.size() != frame_bytes) buffer.resize(frame_bytes);
    // Playing time starts when the first picture arrives, not when ffmpeg was started.
    if (very_first) pacer_.start_here();
    pacer_.shown();
    return true;
  }

  // How ffmpeg ended (its wait status, the frames it gave, whether a frame was cut short, its
  // last error line) in the status; true when the video plays again.
  bool play_again(int wait_status, std::uint64_t frames, bool cut_short, const std::string& why) {
    const bool failed = !WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0;
    if (frames == 0) {
      set_status(path_ + ": ffmpeg decoded no frame" + (why.empty() ? "" : " (" + why + ")"));
      return false;
    }
    if (failed || cut_short) {
      set_status(detail::base_name(path_) + ": " +
                 (why.empty() ? "the video ends in a damaged frame" : why) +
                 ": showing the last frame");
      return loop_;
    }
    if (!loop_) set_status("end of " + detail::base_name(path_) + ": showing the last frame");
    return loop_;
  }

  void set_status(std::string s) {
    std::lock_guard<std::mutex> lock(mutex_);
    status_ = std::move(s);
  }

  const std::string path_;
  const bool loop_;
  std::string ffmpeg_;
  VideoInfo info_;
  std::size_t error_bytes_ = 0;  // how much ffmpeg has written to stderr; reader thread only
  mutable std::mutex mutex_;     // guards everything below that the reader and poll() share
  std::condition_variable wake_;
  detail::Pacer pacer_;
  Frame latest_;
  std::string status_;
  bool stop_ = false;
  std::thread reader_;
};

}  // namespace

std::unique_ptr<Source> open_video(const std::string& path, bool loop) {
  return std::make_unique<VideoSource>(path, loop);
}

}  // namespace rf::app
