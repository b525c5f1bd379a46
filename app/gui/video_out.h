// Where the filtered stream goes besides the screen: a recording (recorder.h) and a camera output
// device (app/sources/v4l2_output.h). Finished frames are offered in order; a frame the recorder
// cannot take yet waits here, and while one waits no new source frame is taken, so a recording
// loses no frame however slow the encoder.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/recorder.h"
#include "app/sources/output_frame.h"
#include "app/sources/v4l2_output.h"

namespace rf::gui {

class VideoOut {
 public:
  VideoOut() = default;
  // Finishes the recording (its file is complete when this returns).
  ~VideoOut();

  // Starts a recording; the message when it cannot start (empty: started).
  std::string start_recording(const RecordSettings& settings);
  // Stops taking frames; the file is finished in the background (notes report the end).
  void stop_recording();
  // A recording takes frames now.
  bool recording() const { return recorder_ && recorder_->active(); }
  // The current or last recording (null before the first).
  const Recorder* recorder() const { return recorder_.get(); }
  // The frames of the current or last recording that reached ffmpeg.
  std::uint64_t recorded_frames() const { return recorder_ ? recorder_->frames_written() : 0; }

  // Opens a camera output device for frames of this size; the message when it cannot (empty:
  // opened). `open` picks the device layer (the kernel's, or a simulated one in tests).
  using DeviceOpener = std::unique_ptr<app::V4l2Output> (*)(const std::string&, int, int);
  std::string open_device(const std::string& device, int width, int height,
                          DeviceOpener open = &app::open_output_device);
  void close_device();
  const app::V4l2Output* device() const { return device_.get(); }

  // Finished frames are wanted (a recording or a device).
  bool wants_frames() const { return recording() || (device_ && !device_->stopped()); }
  // Nothing waits for the recorder: the next source frame may be taken.
  bool accepts_frame() const;
  // A finished frame, in order.
  void offer(std::shared_ptr<app::OutputFrame> frame);
  // Hands waiting frames to the recorder; returns what a person should read (the recorder's
  // notes, a device that stopped).
  std::vector<RecorderNote> pump();
  // Hands every waiting frame over and waits until the recording's file is finished.
  std::vector<RecorderNote> finish();

 private:
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<app::V4l2Output> device_;
  bool device_reported_ = false;  // its stop was told
  std::deque<std::shared_ptr<const app::OutputFrame>> backlog_;
};

}  // namespace rf::gui
