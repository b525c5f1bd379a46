#include "app/gui/stream_out.h"

#include <cstdio>
#include <filesystem>

namespace rf::gui {
namespace {

std::string next_record_path(const std::string& dir, const char* extension) {
  for (int i = 1;; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "rfstudio-%03d%s", i, extension);
    const std::filesystem::path p = std::filesystem::path(dir) / name;
    if (!std::filesystem::exists(p)) return p.string();
  }
}

}  // namespace

void StreamOut::start_command_line_recording(const RecordSettings& settings,
                                             const std::string& dir) {
  command_line_ = true;
  start_recording(settings, dir);
}

void StreamOut::start_recording(RecordSettings settings, const std::string& dir) {
  if (settings.path.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    settings.path = next_record_path(dir, settings.codec == RecordCodec::Ffv1 ? ".mkv" : ".mp4");
  }
  const std::string err = video_out_.start_recording(settings);
  if (!err.empty()) {
    if (command_line_) failed_ = true;
    log_.post("cannot record: " + err, true);
    return;
  }
  log_.post("recording to " + settings.path + " (" + to_string(settings.codec) + ")");
}

void StreamOut::toggle_recording(const RecordSettings& settings, const std::string& dir) {
  if (video_out_.recording())
    stop_recording();
  else
    start_recording(settings, dir);
}

void StreamOut::open_device(const std::string& device, const Processor& processor) {
  if (!processor.has_frame()) {
    waiting_device_ = device;
    return;
  }
  const std::string err = video_out_.open_device(device, processor.width(), processor.height());
  if (err.empty())
    log_.post("camera out: " + video_out_.device()->description());
  else
    log_.post(err, true);
}

void StreamOut::close_device() {
  video_out_.close_device();
  waiting_device_.clear();
}

void StreamOut::open_waiting_device(const Processor& processor) {
  if (waiting_device_.empty() || !processor.has_frame()) return;
  const std::string device = waiting_device_;
  waiting_device_.clear();
  open_device(device, processor);
}

void StreamOut::report(const std::vector<RecorderNote>& notes) {
  for (const RecorderNote& n : notes) {
    if (n.error && command_line_) failed_ = true;
    log_.post(n.text, n.error);
  }
}

}  // namespace rf::gui
