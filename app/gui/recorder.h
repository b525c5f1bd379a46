// Recording the filtered stream: frames at source resolution go to an ffmpeg child process over a
// pipe, one output frame per source frame, from a writer thread (the UI thread only queues).
// H.264 in .mp4 (fragmented, so a file cut short still plays) or .mkv, or lossless FFV1 in .mkv.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/sources/output_frame.h"

namespace rf::gui {

enum class RecordCodec { H264, Ffv1 };

const char* to_string(RecordCodec c);
std::optional<RecordCodec> parse_record_codec(const std::string& name);

struct RecordSettings {
  std::string path;  // .mp4 or .mkv (FFV1: .mkv)
  RecordCodec codec = RecordCodec::H264;
  // ffmpeg's muxer ("mp4", "matroska"); empty: from the path's extension.
  std::string container;
  // Frames per second of the file; 0: the source's (OutputFrame::fps), else 30.
  double fps = 0.0;
};

// Fills in the container from the path's extension and checks that it holds the codec; throws
// InvalidParameter naming the problem (an unknown extension, FFV1 in .mp4).
void validate_record_settings(RecordSettings& settings);

// Something a person should read: a new segment, the end of a recording, why it stopped.
struct RecorderNote {
  std::string text;
  bool error = false;
};

class Recorder {
 public:
  // Checks what can be checked before the first frame: ffmpeg and its encoder installed, a known
  // extension, a codec the container holds, a directory that exists and can be written. Throws
  // IoError (or InvalidParameter) with one line naming the problem.
  explicit Recorder(RecordSettings settings);
  // Finishes the file (ffmpeg writes its trailer) after the frames queued so far.
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Queues a frame for the writer thread. False, and the frame is not taken, when the queue is
  // full: the caller holds its next source frame back, so no frame is dropped. Frames after a
  // failure or stop() are refused too (see active()).
  bool push(std::shared_ptr<const app::OutputFrame> frame);
  bool can_accept() const;
  // Accepting frames: not stopped, not failed.
  bool active() const;
  // Stops taking frames; the writer finishes the queued ones and the file in the background.
  void stop();
  // stop(), then waits until the file is finished.
  void finish();
  // Finished (or failed) and the writer thread idle.
  bool done() const;

  std::vector<RecorderNote> take_notes();
  std::uint64_t frames_written() const;
  std::uint64_t frames_pushed() const;
  // Seconds since the first frame, wall clock.
  double elapsed_s() const;
  // The file being written now, and every file of this recording (a size change starts another).
  std::string current_path() const;
  std::vector<std::string> files() const;
  const RecordSettings& settings() const { return settings_; }

  // How many frames may wait for the writer: beyond this the pipeline holds frames back.
  static constexpr std::size_t kQueueLimit = 8;

 private:
  struct Segment;
  void run();
  bool open_segment(const app::OutputFrame& first);
  bool write_frame(const app::OutputFrame& f);
  void close_segment(bool report);
  void note(std::string text, bool error);
  std::vector<std::string> ffmpeg_args(const app::OutputFrame& first, const std::string& path,
                                       double fps) const;

  RecordSettings settings_;
  std::string ffmpeg_;
  std::unique_ptr<Segment> segment_;  // writer thread only

  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<std::shared_ptr<const app::OutputFrame>> queue_;
  bool stopping_ = false, failed_ = false, finished_ = false;
  std::vector<RecorderNote> notes_;
  std::vector<std::string> files_;
  std::uint64_t written_ = 0, pushed_ = 0;
  bool started_ = false;
  double start_time_ = 0.0;  // steady clock seconds of the first frame
  std::thread writer_;
};

}  // namespace rf::gui
