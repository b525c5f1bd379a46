// The current frame source and its newest frame. Opening a source that fails keeps the previous
// one running and reports why: nothing on screen is lost to a bad path or a missing camera.
#pragma once

#include <memory>
#include <string>

#include "app/gui/messages.h"
#include "app/gui/options.h"
#include "app/sources/source.h"

namespace rf::gui {

// The embedded astronaut (assets/astronaut.png), decoded once.
std::unique_ptr<app::Source> open_default_image();

class SourceSlot {
 public:
  // How sources advance. Stepped, each open pauses what it opens (sequences are stepped one frame
  // at a time) unless it is a camera, which keeps running and is waited for.
  void set_pace(Pace pace) { pace_ = pace; }

  // Opens `choice`; on failure keeps the current source and returns the message (empty: success).
  std::string open(const SourceChoice& choice);
  // Opens a path dropped on the window or typed into Ctrl+O: folder, video or image.
  std::string open_path(const std::string& path);

  // Polls the source; true when `frame()` holds a newer frame.
  bool poll();
  app::Frame& frame() { return frame_; }
  bool has_frame() const { return frame_.width > 0; }

  std::string description() const { return source_ ? source_->description() : "no source"; }
  std::string status() const { return source_ ? source_->status() : std::string(); }
  bool animated() const { return source_ && source_->animated(); }
  void set_paused(bool paused);
  bool paused() const { return paused_; }
  void step() {
    if (source_) source_->step();
  }
  const SourceChoice& choice() const { return choice_; }
  double fps() const { return source_ ? source_->fps() : 0.0; }
  // Cameras may deliver YUYV and NV12 frames as they come (the GPU path converts them).
  void set_raw_yuv(bool enabled);

 private:
  std::string install(std::unique_ptr<app::Source> source, const SourceChoice& choice);
  void apply_pace(SourceKind kind);

  std::unique_ptr<app::Source> source_;
  SourceChoice choice_;
  app::Frame frame_;
  bool paused_ = false;
  bool raw_yuv_ = false;
  bool fresh_ = false;  // a frame installed by open() not yet reported by poll()
  Pace pace_ = Pace::Realtime;
};

// Opens and tells `log` how it went: "opened ..." or "cannot open: ...".
void open_source(SourceSlot& source, MessageLog& log, const SourceChoice& choice);
void open_path(SourceSlot& source, MessageLog& log, const std::string& path);

}  // namespace rf::gui
