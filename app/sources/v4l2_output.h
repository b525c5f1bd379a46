// Filtered frames sent on as a camera: written to a V4L2 video output device (the v4l2loopback
// module's), whose capture side a video-call program opens like any webcam.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/sources/output_frame.h"
#include "app/sources/v4l2_io.h"

struct v4l2_buffer;  // linux/videodev2.h

namespace rf::app {

class V4l2Output {
 public:
  // Opens `device`, checks that it is a V4L2 video output and negotiates YUYV (else RGB24, else
  // BGR24) at width x height. Throws IoError with one line a person can act on: no such device,
  // busy, not an output device, no usable format.
  V4l2Output(std::shared_ptr<detail::V4l2Io> io, const std::string& device, int width, int height);
  ~V4l2Output();
  V4l2Output(const V4l2Output&) = delete;
  V4l2Output& operator=(const V4l2Output&) = delete;

  // Hands over the newest frame; a writer thread converts and writes it. A frame still waiting
  // is replaced: a camera shows the latest picture, never a backlog. Never blocks.
  void push(std::shared_ptr<const OutputFrame> frame);

  // "/dev/video9 YUYV 640x480 (write)".
  std::string description() const;
  // Empty while healthy; otherwise why frames no longer go out (the device was unplugged, the
  // source changed to a size the device refuses).
  std::string status() const;
  bool stopped() const { return stopped_; }
  std::uint64_t frames_written() const { return written_; }
  // Waits until every pushed frame is written or dropped (for tests and orderly shutdown).
  void flush();

 private:
  struct Buffer {
    void* start = nullptr;
    std::size_t length = 0;
    bool queued = false;
  };

  // The format the driver took.
  struct Mode {
    std::uint32_t fourcc = 0;
    int width = 0, height = 0;
    std::uint32_t bytesperline = 0, sizeimage = 0;
  };

  void check_device();
  void negotiate(int width, int height, bool opening);
  void start_buffers();
  void stop_buffers();
  void encode(const OutputFrame& f, std::uint8_t* out) const;
  bool write_frame(const OutputFrame& f);
  bool follow_size(int width, int height);
  void follow_rate(double fps);
  bool write_once(const OutputFrame& f);
  bool queue_buffer(const OutputFrame& f);
  int free_buffer(v4l2_buffer& b);
  bool start_streaming();
  bool gone(int err);
  void fail(const std::string& why);
  void run();

  const std::shared_ptr<detail::V4l2Io> io_;
  const std::string device_;
  int fd_ = -1;
  bool use_write_ = true;  // read/write I/O; otherwise mmap streaming buffers
  Mode mode_;
  double fps_set_ = 0.0;
  std::vector<std::uint32_t> offered_;
  std::vector<Buffer> buffers_;
  bool streaming_ = false;
  std::vector<std::uint8_t> scratch_;

  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::shared_ptr<const OutputFrame> pending_;
  bool busy_ = false;  // the writer holds a frame
  bool stop_ = false;
  std::string status_, description_;
  std::atomic<bool> stopped_{false};
  std::atomic<std::uint64_t> written_{0};
  std::thread writer_;
};

// On the kernel's V4L2.
std::unique_ptr<V4l2Output> open_output_device(const std::string& device, int width, int height);

}  // namespace rf::app
