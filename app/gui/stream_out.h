// The filtered stream out of the studio besides the screen, as the Record and camera out panel,
// Ctrl+R, --record and --output-device drive it: a recording (to the next free rfstudio-NNN file
// of the export folder unless a path is given) and a camera output device, opened once the frame
// size is known. The frames themselves go through VideoOut; what happens is told in the log, and
// a recording the command line asked for that fails makes the run's exit status 1.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/gui/messages.h"
#include "app/gui/processing.h"
#include "app/gui/video_out.h"

namespace rf::gui {

class StreamOut {
 public:
  explicit StreamOut(MessageLog& log) : log_(log) {}

  // The recording of the command line: its failures, now or later, fail the run.
  void start_command_line_recording(const RecordSettings& settings, const std::string& dir);
  // `settings.path` empty: the next free rfstudio-NNN.mp4 (.mkv for FFV1) in `dir`.
  void start_recording(RecordSettings settings, const std::string& dir);
  void stop_recording() { video_out_.stop_recording(); }
  // The Record button and Ctrl+R.
  void toggle_recording(const RecordSettings& settings, const std::string& dir);

  // Camera out to `device` at the processor's frame size; before the first frame the device
  // waits for it (open_waiting_device).
  void open_device(const std::string& device, const Processor& processor);
  void close_device();
  // Opens the device asked for before the first frame, once there is one.
  void open_waiting_device(const Processor& processor);

  // Finished frames are wanted, and can be taken (VideoOut).
  bool wants_frames() const { return video_out_.wants_frames(); }
  bool accepts_frame() const { return video_out_.accepts_frame(); }
  // A finished frame's 8-bit result, in order.
  void offer(std::shared_ptr<app::OutputFrame> frame) { video_out_.offer(std::move(frame)); }
  // Hands waiting frames on; posts what the recorder and the device report.
  void pump() { report(video_out_.pump()); }
  // Hands every frame on and waits until the recording's file is complete.
  void finish() { report(video_out_.finish()); }

  // A recording the command line asked for failed.
  bool failed() const { return failed_; }
  const VideoOut& video_out() const { return video_out_; }
  bool recording() const { return video_out_.recording(); }
  std::uint64_t recorded_frames() const { return video_out_.recorded_frames(); }

 private:
  void report(const std::vector<RecorderNote>& notes);

  MessageLog& log_;
  VideoOut video_out_;
  std::string waiting_device_;  // asked for before the frame size was known
  bool command_line_ = false, failed_ = false;
};

}  // namespace rf::gui
