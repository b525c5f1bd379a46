#include "app/gui/video_out.h"

#include <chrono>
#include <exception>
#include <thread>

namespace rf::gui {

VideoOut::~VideoOut() {
  finish();
}

std::string VideoOut::start_recording(const RecordSettings& settings) {
  if (recording()) return "already recording to " + recorder_->current_path();
  backlog_.clear();
  try {
    // A previous recording finishes its file before the next one starts.
    recorder_.reset();
    recorder_ = std::make_unique<Recorder>(settings);
  } catch (const std::exception& e) {
    recorder_.reset();
    return e.what();
  }
  return {};
}

void VideoOut::stop_recording() {
  if (recorder_) recorder_->stop();
  backlog_.clear();
}

std::string VideoOut::open_device(const std::string& device, int width, int height,
                                  DeviceOpener open) {
  close_device();
  try {
    device_ = open(device, width, height);
  } catch (const std::exception& e) {
    return e.what();
  }
  device_reported_ = false;
  return {};
}

void VideoOut::close_device() {
  device_.reset();
}

bool VideoOut::accepts_frame() const {
  if (!recording()) return true;
  return backlog_.empty() && recorder_->can_accept();
}

void VideoOut::offer(std::shared_ptr<app::OutputFrame> frame) {
  if (!frame) return;
  if (device_) device_->push(frame);
  if (recording()) backlog_.push_back(std::move(frame));
}

std::vector<RecorderNote> VideoOut::pump() {
  while (!backlog_.empty() && recorder_ && recorder_->push(backlog_.front())) backlog_.pop_front();
  if (!recording()) backlog_.clear();
  std::vector<RecorderNote> notes;
  if (recorder_) notes = recorder_->take_notes();
  if (device_ && device_->stopped() && !device_reported_) {
    notes.push_back({device_->status(), true});
    device_reported_ = true;
  }
  return notes;
}

std::vector<RecorderNote> VideoOut::finish() {
  std::vector<RecorderNote> notes;
  if (recorder_) {
    // The recorder takes frames as its writer frees room; a failed one refuses them at once.
    while (!backlog_.empty() && recorder_->active()) {
      if (recorder_->push(backlog_.front()))
        backlog_.pop_front();
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    backlog_.clear();
    recorder_->finish();
    notes = recorder_->take_notes();
  }
  if (device_) {
    device_->flush();
    if (device_->stopped() && !device_reported_) notes.push_back({device_->status(), true});
    device_reported_ = true;
  }
  return notes;
}

}  // namespace rf::gui
