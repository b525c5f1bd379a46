#include "app/gui/recorder.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "app/sources/child_process.h"
#include "filters/core/errors.h"

namespace rf::gui {
namespace {

// A writer that makes no progress for this long means ffmpeg hangs: it is killed and the
// recording stops with a message.
constexpr int kStallMs = 30000;
// Keeps the tail of ffmpeg's messages, enough for the line that says why it failed.
constexpr std::size_t kErrorTail = 4096;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

// The last non-empty line of ffmpeg's messages, without a "[muxer @ 0x...] " prefix.
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

std::string frames_text(std::uint64_t n) {
  return std::to_string(n) + (n == 1 ? " frame" : " frames");
}

// The file of segment `n` (1: the path as given; then STEM-2.EXT, STEM-3.EXT, ...).
std::string segment_path(const std::string& path, int n) {
  if (n <= 1) return path;
  const std::filesystem::path p(path);
  return (p.parent_path() / (p.stem().string() + "-" + std::to_string(n) + p.extension().string()))
      .string();
}

}  // namespace

const char* to_string(RecordCodec c) {
  return c == RecordCodec::Ffv1 ? "ffv1" : "h264";
}

std::optional<RecordCodec> parse_record_codec(const std::string& name) {
  std::string n = name;
  for (char& c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (n == "h264" || n == "h.264" || n == "x264") return RecordCodec::H264;
  if (n == "ffv1") return RecordCodec::Ffv1;
  return std::nullopt;
}

struct Recorder::Segment {
  std::unique_ptr<app::detail::ChildProcess> child;
  std::string path;
  int width = 0, height = 0;
  std::uint64_t frames = 0;
  std::string errors;   // the tail of ffmpeg's stderr
  bool broken = false;  // ffmpeg stopped reading
};

void validate_record_settings(RecordSettings& s) {
  const std::string& path = s.path;
  if (path.empty()) throw InvalidParameter("recording needs a file name (.mp4 or .mkv)");
  if (s.container.empty()) {
    const std::string ext = lower_extension(path);
    if (ext == ".mp4" || ext == ".m4v")
      s.container = "mp4";
    else if (ext == ".mkv")
      s.container = "matroska";
    else
      throw InvalidParameter("cannot record to " + path + ": the file must end in .mp4 or .mkv");
  }
  if (s.codec == RecordCodec::Ffv1 && s.container == "mp4")
    throw InvalidParameter("cannot record to " + path + ": FFV1 goes into .mkv files, not .mp4");
  if (!(s.fps >= 0.0) || s.fps > 1000.0)
    throw InvalidParameter("recording frame rate must be 0 (the source's) to 1000");
}

Recorder::Recorder(RecordSettings settings) : settings_(std::move(settings)) {
  validate_record_settings(settings_);
  const std::string& path = settings_.path;

  // The directory must exist and take a new file; an existing file must be writable.
  std::error_code ec;
  const std::filesystem::path p(path);
  const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : ".";
  if (!std::filesystem::is_directory(dir, ec))
    throw IoError("cannot record to " + path + ": no directory " + dir.string());
  if (::access(dir.c_str(), W_OK) != 0 && !std::filesystem::exists(p, ec))
    throw IoError("cannot record to " + path + ": " + std::strerror(errno));
  if (std::filesystem::exists(p, ec) && ::access(path.c_str(), W_OK) != 0)
    throw IoError("cannot record to " + path + ": " + std::strerror(errno));

  ffmpeg_ = app::detail::find_program("ffmpeg");
  if (ffmpeg_.empty()) throw IoError("recording needs ffmpeg, which is not installed");
  const char* encoder = settings_.codec == RecordCodec::Ffv1 ? "ffv1" : "libx264";
  std::string out, err;
  app::detail::run_program({ffmpeg_, "-hide_banner", "-h", std::string("encoder=") + encoder}, out,
                           err, 20.0);
  if (out.find("is not recognized") != std::string::npos ||
      err.find("is not recognized") != std::string::npos)
    throw IoError(std::string("this ffmpeg has no ") + encoder + " encoder" +
                  (settings_.codec == RecordCodec::H264
                       ? ": record lossless FFV1 to .mkv instead (--record-codec ffv1)"
                       : ""));
  writer_ = std::thread([this] { run(); });
}

Recorder::~Recorder() {
  finish();
  if (writer_.joinable()) writer_.join();
}

bool Recorder::push(std::shared_ptr<const app::OutputFrame> frame) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || failed_ || queue_.size() >= kQueueLimit) return false;
    if (!started_) {
      started_ = true;
      start_time_ = now_s();
    }
    queue_.push_back(std::move(frame));
    ++pushed_;
  }
  wake_.notify_one();
  return true;
}

bool Recorder::can_accept() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !stopping_ && !failed_ && queue_.size() < kQueueLimit;
}

bool Recorder::active() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !stopping_ && !failed_;
}

void Recorder::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
}

void Recorder::finish() {
  stop();
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return finished_; });
}

bool Recorder::done() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return finished_;
}

std::vector<RecorderNote> Recorder::take_notes() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<RecorderNote> out;
  out.swap(notes_);
  return out;
}

std::uint64_t Recorder::frames_written() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return written_;
}

std::uint64_t Recorder::frames_pushed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pushed_;
}

double Recorder::elapsed_s() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return started_ ? now_s() - start_time_ : 0.0;
}

std::string Recorder::current_path() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return files_.empty() ? settings_.path : files_.back();
}

std::vector<std::string> Recorder::files() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return files_;
}

void Recorder::note(std::string text, bool error) {
  std::lock_guard<std::mutex> lock(mutex_);
  notes_.push_back({std::move(text), error});
}

std::vector<std::string> Recorder::ffmpeg_args(const app::OutputFrame& first,
                                               const std::string& path, double fps) const {
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.6g", fps);
  const std::string size = std::to_string(first.width) + "x" + std::to_string(first.height);
  std::vector<std::string> a = {ffmpeg_,       "-hide_banner", "-nostdin",   "-loglevel", "error",
                                "-y",          "-f",           "rawvideo",   "-pix_fmt",  "rgba",
                                "-video_size", size,           "-framerate", rate,        "-i",
                                "pipe:0",      "-an"};
  const std::string gop = std::to_string(std::max(1, int(fps + 0.5)));
  if (settings_.codec == RecordCodec::Ffv1) {
    // Every frame a keyframe, RGB kept as it is: decoding gives back the very bytes sent.
    for (const char* s : {"-c:v", "ffv1", "-level", "3", "-g", "1", "-pix_fmt", "bgr0"})
      a.push_back(s);
  } else {
    // 4:2:0 needs even sides; odd sizes keep every pixel in 4:4:4 (High 4:4:4 profile).
    const bool even = first.width % 2 == 0 && first.height % 2 == 0;
    for (const char* s : {"-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt"})
      a.push_back(s);
    a.push_back(even ? "yuv420p" : "yuv444p");
    a.push_back("-g");
    a.push_back(gop);
  }
  if (settings_.container == "mp4") {
    // Fragments of about a second: a recording cut short (disk full, a crash) still plays up to
    // its last fragment, which a plain MP4 without its closing index would not.
    for (const char* s : {"-movflags", "+empty_moov+default_base_moof+frag_keyframe"})
      a.push_back(s);
  }
  a.push_back("-f");
  a.push_back(settings_.container);
  a.push_back(path);
  return a;
}

bool Recorder::open_segment(const app::OutputFrame& first) {
  int n = 1;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    n = int(files_.size()) + 1;
  }
  const std::string path = segment_path(settings_.path, n);
  const double fps = settings_.fps > 0.0 ? settings_.fps : first.fps > 0.0 ? first.fps : 30.0;
  auto seg = std::make_unique<Segment>();
  seg->path = path;
  seg->width = first.width;
  seg->height = first.height;
  try {
    seg->child = std::make_unique<app::detail::ChildProcess>(
        ffmpeg_args(first, path, fps), app::detail::ChildProcess::Stdin::Pipe);
  } catch (const std::exception& e) {
    note(std::string("recording failed: ") + e.what(), true);
    return false;
  }
  for (int fd : {seg->child->stdin_fd(), seg->child->stderr_fd(), seg->child->stdout_fd()})
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  segment_ = std::move(seg);
  std::lock_guard<std::mutex> lock(mutex_);
  files_.push_back(path);
  return true;
}

// Writes one frame to ffmpeg's stdin while collecting what it says on stderr (a full stderr pipe
// would otherwise block ffmpeg, and it would stop reading). False when ffmpeg stopped reading.
bool Recorder::write_frame(const app::OutputFrame& f) {
  Segment& s = *segment_;
  const std::uint8_t* p = f.data;
  std::size_t left = f.bytes();
  char buffer[4096];
  int quiet_ms = 0;
  while (left > 0) {
    pollfd fds[3] = {{s.child->stdin_fd(), POLLOUT, 0},
                     {s.child->stderr_fd(), POLLIN, 0},
                     {s.child->stdout_fd(), POLLIN, 0}};
    const int n = ::poll(fds, 3, 200);
    if (n < 0 && errno != EINTR) return false;
    if (n <= 0) {
      quiet_ms += 200;
      if (quiet_ms >= kStallMs) {
        s.errors += "\nffmpeg stopped responding";
        return false;
      }
      continue;
    }
    quiet_ms = 0;
    for (int k = 1; k < 3; ++k)
      if (fds[k].fd >= 0 && (fds[k].revents & (POLLIN | POLLHUP))) {
        const ssize_t got = ::read(fds[k].fd, buffer, sizeof buffer);
        if (got > 0 && k == 1) s.errors.append(buffer, std::size_t(got));
      }
    if (s.errors.size() > kErrorTail) s.errors.erase(0, s.errors.size() - kErrorTail);
    if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) return false;
    if (!(fds[0].revents & POLLOUT)) continue;
    const ssize_t w = ::write(s.child->stdin_fd(), p, left);
    if (w < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return false;  // EPIPE: ffmpeg exited
    }
    p += w;
    left -= std::size_t(w);
  }
  return true;
}

// Ends the current file: ffmpeg reads end of file, writes its trailer and exits. Reports why when
// it failed; with `report`, also a successful end.
void Recorder::close_segment(bool report) {
  if (!segment_) return;
  Segment& s = *segment_;
  s.child->close_stdin();
  // ffmpeg finishes encoding what it holds; its messages are read to the end.
  char buffer[4096];
  bool eof = false;
  for (int waited = 0; waited < kStallMs;) {
    pollfd fds[2] = {{s.child->stderr_fd(), POLLIN, 0}, {s.child->stdout_fd(), POLLIN, 0}};
    const int n = ::poll(fds, 2, 200);
    if (n == 0) {
      waited += 200;
      continue;
    }
    if (n < 0 && errno != EINTR) break;
    bool open = false;
    for (int k = 0; k < 2; ++k) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) {
        open = true;
        continue;
      }
      const ssize_t got = ::read(fds[k].fd, buffer, sizeof buffer);
      if (got > 0) {
        if (k == 0) s.errors.append(buffer, std::size_t(got));
        open = true;
      } else if (got < 0 && errno == EAGAIN) {
        open = true;
      }
    }
    if (!open) {
      eof = true;
      break;
    }
  }
  if (s.errors.size() > kErrorTail) s.errors.erase(0, s.errors.size() - kErrorTail);
  // At end of file ffmpeg has exited or is exiting; otherwise it hangs and is killed.
  const int status = eof ? s.child->wait() : s.child->kill_and_wait();
  const std::string frames = frames_text(s.frames) + " in " + s.path;
  std::string why = last_line(s.errors);
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (why.empty())
      why = "ffmpeg was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && why.empty() && !s.broken;
  if (!ok)
    note("recording stopped after " + frames_text(s.frames) + ": " +
             (why.empty() ? std::string("ffmpeg failed") : why) + " (what reached " + s.path +
             " plays)",
         true);
  else if (report)
    note("recorded " + frames, false);
  segment_.reset();
}

void Recorder::run() {
  // A write to a pipe whose reader has gone raises SIGPIPE in the writing thread; blocked here,
  // the write fails with EPIPE instead and the recording stops with a message.
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);

  while (true) {
    std::shared_ptr<const app::OutputFrame> frame;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) break;  // stopping, nothing left
      frame = std::move(queue_.front());
      queue_.pop_front();
    }
    bool ok = true;
    if (segment_ && (frame->width != segment_->width || frame->height != segment_->height)) {
      const std::string before = segment_->path;
      const std::uint64_t n = segment_->frames;
      close_segment(false);
      ok = open_segment(*frame);
      if (ok)
        note("the source changed to " + std::to_string(frame->width) + "x" +
                 std::to_string(frame->height) + ": " + frames_text(n) + " in " + before +
                 ", recording goes on in " + segment_->path,
             false);
    } else if (!segment_) {
      ok = open_segment(*frame);
    }
    if (ok) {
      ok = write_frame(*frame);
      if (ok) {
        ++segment_->frames;
      } else {
        segment_->broken = true;
        close_segment(false);
      }
    }
    frame.reset();
    std::lock_guard<std::mutex> lock(mutex_);
    if (ok) {
      ++written_;
    } else {
      failed_ = true;
      queue_.clear();
    }
  }
  close_segment(true);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (files_.empty() && !failed_)
      notes_.push_back(
          {"nothing recorded to " + settings_.path + ": no filtered frame came", true});
  }
  // Consumes a SIGPIPE left pending by a failed write, so none is delivered elsewhere.
  const timespec zero{0, 0};
  while (sigtimedwait(&pipe_signal, nullptr, &zero) > 0) {
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  idle_.notify_all();
}

}  // namespace rf::gui
