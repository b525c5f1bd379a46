// A V4L2 video output: open and check the node (QUERYCAP), negotiate the format (S_FMT on the
// output queue: YUYV, else RGB24, else BGR24), then a writer thread converts each frame and hands
// it to the driver, through write() where the device supports it (v4l2loopback does) and through
// mmap streaming buffers otherwise.
#include "app/sources/v4l2_output.h"

#include <linux/videodev2.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "app/sources/source.h"
#include "app/sources/yuv.h"
#include "filters/core/errors.h"

namespace rf::app {
namespace {

using detail::fourcc_string;
using detail::xioctl;

constexpr unsigned kStreamingBuffers = 3;
constexpr int kBufferWaitMs = 100;

// In order of preference: what video-call programs read most readily first.
constexpr std::uint32_t kFormats[] = {V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_RGB24, V4L2_PIX_FMT_BGR24};

std::uint32_t node_caps(const v4l2_capability& cap) {
  return (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
}

std::string open_error(const std::string& device, int err) {
  switch (err) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
      return "output device " + device +
             ": no such device (load v4l2loopback: sudo modprobe v4l2loopback)";
    case EBUSY:
      return "output device " + device + " is busy: another program is using it";
    case EACCES:
    case EPERM:
      return "output device " + device + ": permission denied (is your user in the 'video' group?)";
    default:
      return "output device " + device + ": " + std::strerror(err);
  }
}

}  // namespace

V4l2Output::V4l2Output(std::shared_ptr<detail::V4l2Io> io, const std::string& device, int width,
                       int height)
    : io_(std::move(io)), device_(device) {
  fd_ = io_->open(device);
  if (fd_ < 0) throw IoError(open_error(device, errno));
  try {
    check_device();
    negotiate(width, height, true);
  } catch (...) {
    stop_buffers();
    io_->close(fd_);
    fd_ = -1;
    throw;
  }
  writer_ = std::thread([this] { run(); });
}

V4l2Output::~V4l2Output() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (writer_.joinable()) writer_.join();
  stop_buffers();
  if (fd_ >= 0) io_->close(fd_);
}

void V4l2Output::check_device() {
  v4l2_capability cap{};
  if (xioctl(*io_, fd_, VIDIOC_QUERYCAP, &cap) != 0) {
    if (errno == ENOTTY || errno == EINVAL)
      throw IoError("output device " + device_ + " is not a V4L2 video device");
    throw IoError(open_error(device_, errno));
  }
  const std::uint32_t caps = node_caps(cap);
  const std::string card = reinterpret_cast<const char*>(cap.card);
  if (!(caps & V4L2_CAP_VIDEO_OUTPUT))
    throw IoError("output device " + device_ + " (" + card + ") is not a video output" +
                  ((caps & V4L2_CAP_VIDEO_CAPTURE) ? " but a camera; camera out needs a "
                                                     "v4l2loopback device"
                                                   : ""));
  if (caps & V4L2_CAP_READWRITE)
    use_write_ = true;
  else if (caps & V4L2_CAP_STREAMING)
    use_write_ = false;
  else
    throw IoError("output device " + device_ + " (" + card +
                  ") supports neither write() nor streaming I/O");
  for (v4l2_fmtdesc d{};; ++d.index) {
    d.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    if (xioctl(*io_, fd_, VIDIOC_ENUM_FMT, &d) != 0) break;
    offered_.push_back(d.pixelformat);
  }
}

// Asks for each format in turn at this size; the driver answers with what it will really take.
// On a size change while running, failure stops the output with a status instead of throwing.
void V4l2Output::negotiate(int width, int height, bool opening) {
  for (std::uint32_t fourcc : kFormats) {
    // A device that lists its formats is taken at its word; one that lists none is asked.
    if (!offered_.empty() && std::find(offered_.begin(), offered_.end(), fourcc) == offered_.end())
      continue;
    v4l2_format f{};
    f.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    f.fmt.pix.width = std::uint32_t(width);
    f.fmt.pix.height = std::uint32_t(height);
    f.fmt.pix.pixelformat = fourcc;
    f.fmt.pix.field = V4L2_FIELD_NONE;
    f.fmt.pix.colorspace =
        fourcc == V4L2_PIX_FMT_YUYV ? V4L2_COLORSPACE_SMPTE170M : V4L2_COLORSPACE_SRGB;
    const std::uint32_t min_line = fourcc == V4L2_PIX_FMT_YUYV
                                       ? std::uint32_t(yuv_min_stride(Encoding::Yuyv, width))
                                       : std::uint32_t(width) * 3;
    f.fmt.pix.bytesperline = min_line;
    f.fmt.pix.sizeimage = min_line * std::uint32_t(height);
    if (xioctl(*io_, fd_, VIDIOC_S_FMT, &f) != 0) {
      if (errno == EBUSY) {
        if (opening) throw IoError(open_error(device_, EBUSY));
        fail("output device " + device_ + " is busy and keeps " + std::to_string(mode_.width) +
             "x" + std::to_string(mode_.height) + "; the source is now " + std::to_string(width) +
             "x" + std::to_string(height) + ": camera out stopped");
        return;
      }
      continue;
    }
    if (f.fmt.pix.pixelformat != fourcc || int(f.fmt.pix.width) != width ||
        int(f.fmt.pix.height) != height)
      continue;
    mode_.fourcc = fourcc;
    mode_.width = width;
    mode_.height = height;
    mode_.bytesperline = std::max(f.fmt.pix.bytesperline, min_line);
    mode_.sizeimage = std::max(f.fmt.pix.sizeimage, mode_.bytesperline * std::uint32_t(height));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      description_ = device_ + " " + fourcc_string(mode_.fourcc) + " " +
                     std::to_string(mode_.width) + "x" + std::to_string(mode_.height) +
                     (use_write_ ? " (write)" : " (streaming)");
    }
    if (!use_write_) start_buffers();
    return;
  }
  std::string list;
  for (std::uint32_t f : offered_) list += (list.empty() ? "" : ", ") + fourcc_string(f);
  const std::string why = "output device " + device_ + " takes none of YUYV, RGB24 and BGR24 at " +
                          std::to_string(width) + "x" + std::to_string(height) +
                          (list.empty() ? "" : " (it offers: " + list + ")");
  if (opening) throw IoError(why);
  fail(why + ": camera out stopped");
}

void V4l2Output::start_buffers() {
  v4l2_requestbuffers req{};
  req.count = kStreamingBuffers;
  req.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
  req.memory = V4L2_MEMORY_MMAP;
  if (xioctl(*io_, fd_, VIDIOC_REQBUFS, &req) != 0 || req.count < 1)
    throw IoError("output device " + device_ +
                  ": cannot get streaming buffers: " + std::strerror(errno));
  buffers_.assign(req.count, Buffer{});
  for (unsigned i = 0; i < req.count; ++i) {
    v4l2_buffer b{};
    b.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    b.memory = V4L2_MEMORY_MMAP;
    b.index = i;
    if (xioctl(*io_, fd_, VIDIOC_QUERYBUF, &b) != 0)
      throw IoError("output device " + device_ + ": VIDIOC_QUERYBUF: " + std::strerror(errno));
    void* p = io_->mmap(fd_, b.length, off_t(b.m.offset));
    if (p == MAP_FAILED)
      throw IoError("output device " + device_ + ": cannot map a buffer: " + std::strerror(errno));
    buffers_[i].start = p;
    buffers_[i].length = b.length;
  }
}

void V4l2Output::stop_buffers() {
  if (fd_ >= 0 && streaming_) {
    v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    xioctl(*io_, fd_, VIDIOC_STREAMOFF, &type);
  }
  streaming_ = false;
  for (Buffer& b : buffers_)
    if (b.start) io_->munmap(b.start, b.length);
  buffers_.clear();
  if (fd_ >= 0 && !use_write_) {
    // Frees the driver's buffers, so that a new format can be set.
    v4l2_requestbuffers req{};
    req.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    req.memory = V4L2_MEMORY_MMAP;
    xioctl(*io_, fd_, VIDIOC_REQBUFS, &req);
  }
}

void V4l2Output::encode(const OutputFrame& f, std::uint8_t* out) const {
  if (mode_.fourcc == V4L2_PIX_FMT_YUYV) {
    rgba_to_yuyv(f.data, f.width, f.height, out, mode_.bytesperline);
    return;
  }
  const bool bgr = mode_.fourcc == V4L2_PIX_FMT_BGR24;
  for (int y = 0; y < f.height; ++y) {
    const std::uint8_t* s = f.data + std::size_t(y) * f.width * 4;
    std::uint8_t* d = out + std::size_t(y) * mode_.bytesperline;
    for (int x = 0; x < f.width; ++x, s += 4, d += 3) {
      d[0] = bgr ? s[2] : s[0];
      d[1] = s[1];
      d[2] = bgr ? s[0] : s[2];
    }
  }
}

void V4l2Output::fail(const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  status_ = why;
  stopped_ = true;
}

// Converts and writes one frame; false when the output has stopped.
bool V4l2Output::write_frame(const OutputFrame& f) {
  if ((f.width != mode_.width || f.height != mode_.height) && !follow_size(f.width, f.height))
    return false;
  if (f.fps > 0.0 && f.fps != fps_set_) follow_rate(f.fps);
  return use_write_ ? write_once(f) : queue_buffer(f);
}

// The source changed its size: the format is negotiated again; false when the device refuses.
bool V4l2Output::follow_size(int width, int height) {
  stop_buffers();
  try {
    negotiate(width, height, false);
  } catch (const IoError& e) {
    fail(std::string(e.what()) + ": camera out stopped");
  }
  if (stopped_) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  status_.clear();
  return true;
}

// Players read the rate from the capture side; drivers that do not keep one ignore it.
void V4l2Output::follow_rate(double fps) {
  v4l2_streamparm parm{};
  parm.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
  parm.parm.output.timeperframe.numerator = 1000;
  parm.parm.output.timeperframe.denominator = std::uint32_t(fps * 1000.0 + 0.5);
  xioctl(*io_, fd_, VIDIOC_S_PARM, &parm);
  fps_set_ = fps;
}

// True (and the output stopped) when `err` says the device has gone.
bool V4l2Output::gone(int err) {
  if (err == ENODEV || err == EIO || err == EPIPE) {
    fail("output device " + device_ + " disconnected: camera out stopped");
    return true;
  }
  return false;
}

bool V4l2Output::write_once(const OutputFrame& f) {
  scratch_.resize(mode_.sizeimage);
  encode(f, scratch_.data());
  const ssize_t n = io_->write(fd_, scratch_.data(), scratch_.size());
  // EAGAIN: the driver is not ready for a frame; the next one will do.
  if (n < 0) return !gone(errno);
  ++written_;
  return true;
}

// The index of a buffer to fill: one the driver never had, else one it gives back; -1 when none
// came back in time (the frame is skipped) or the device has gone (stopped() says so).
int V4l2Output::free_buffer(v4l2_buffer& b) {
  auto unqueued =
      std::find_if(buffers_.begin(), buffers_.end(), [](const Buffer& x) { return !x.queued; });
  if (unqueued != buffers_.end()) return int(unqueued - buffers_.begin());
  pollfd p{fd_, POLLOUT, 0};
  io_->poll(&p, 1, kBufferWaitMs);
  if (xioctl(*io_, fd_, VIDIOC_DQBUF, &b) != 0) {
    gone(errno);
    return -1;
  }
  buffers_[b.index].queued = false;
  return int(b.index);
}

bool V4l2Output::queue_buffer(const OutputFrame& f) {
  v4l2_buffer b{};
  b.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
  b.memory = V4L2_MEMORY_MMAP;
  const int index = free_buffer(b);
  if (index < 0) return !stopped_;
  b.index = std::uint32_t(index);
  Buffer& buf = buffers_[b.index];
  if (buf.length < mode_.sizeimage) {
    fail("output device " + device_ + ": the driver's buffers are too small: camera out stopped");
    return false;
  }
  encode(f, static_cast<std::uint8_t*>(buf.start));
  b.bytesused = mode_.sizeimage;
  b.field = V4L2_FIELD_NONE;
  if (xioctl(*io_, fd_, VIDIOC_QBUF, &b) != 0) return !gone(errno);
  buf.queued = true;
  if (!streaming_ && !start_streaming()) return false;
  ++written_;
  return true;
}

bool V4l2Output::start_streaming() {
  v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
  if (xioctl(*io_, fd_, VIDIOC_STREAMON, &type) != 0) {
    fail("output device " + device_ + ": cannot start streaming: " + std::strerror(errno));
    return false;
  }
  streaming_ = true;
  return true;
}

void V4l2Output::run() {
  while (true) {
    std::shared_ptr<const OutputFrame> frame;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || pending_; });
      if (stop_) return;
      frame = std::move(pending_);
      busy_ = true;
    }
    const bool more = !stopped_ && write_frame(*frame);
    frame.reset();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      busy_ = false;
      if (!more) pending_.reset();
    }
    idle_.notify_all();
  }
}

void V4l2Output::push(std::shared_ptr<const OutputFrame> frame) {
  if (stopped_ || !frame) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ = std::move(frame);
  }
  wake_.notify_one();
}

void V4l2Output::flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return stop_ || (!pending_ && !busy_); });
}

std::string V4l2Output::description() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return description_;
}

std::string V4l2Output::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

std::unique_ptr<V4l2Output> open_output_device(const std::string& device, int width, int height) {
  return std::make_unique<V4l2Output>(detail::system_v4l2(), device, width, height);
}

}  // namespace rf::app
