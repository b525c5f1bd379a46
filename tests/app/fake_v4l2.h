// Simulated V4L2 devices behind detail::V4l2Io, for the camera source and the camera output: no
// webcam or v4l2loopback module is needed to exercise format negotiation, mmap streaming, write()
// I/O, unplugging and the errors a person meets. Each fake answers the ioctls the code under test
// sends the way a driver does, and counts what it was asked to do.
#pragma once

#include <linux/videodev2.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/sources/v4l2_io.h"

namespace rf::app::test {

// What every simulated node has: one path and one file descriptor, the capabilities QUERYCAP
// reports, buffers mapped by offset (buffer i at i * kOffsetStep), and counts of opens, closes and
// unmaps. The device classes below answer the rest of the ioctls.
class FakeV4l2Node : public detail::V4l2Io {
 public:
  static constexpr std::size_t kOffsetStep = 1 << 24;

  std::string path;
  std::uint32_t device_caps;
  bool not_v4l2 = false;               // a node that answers no V4L2 ioctl (ENOTTY), like /dev/null
  std::atomic<bool> unplugged{false};  // from now on every call fails with ENODEV
  std::atomic<int> opens{0}, closes{0}, unmaps{0};

  std::size_t buffer_count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return buffers_.size();
  }

  int open(const std::string& p) override {
    if (p != path) return fail(ENOENT);
    ++opens;
    return fd_;
  }
  int close(int) override {
    ++closes;
    return 0;
  }
  void* mmap(int, std::size_t length, off_t offset) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t i = std::size_t(offset) / kOffsetStep;
    if (i >= buffers_.size() || length != buffers_[i].memory.size()) {
      errno = EINVAL;
      return MAP_FAILED;
    }
    return buffers_[i].memory.data();
  }
  int munmap(void*, std::size_t) override {
    ++unmaps;
    return 0;
  }
  std::vector<std::string> nodes() override { return {path}; }

  int ioctl(int fd, unsigned long request, void* arg) final {
    if (fd != fd_) return fail(EBADF);
    if (not_v4l2) return fail(ENOTTY);
    if (unplugged) return fail(ENODEV);
    std::lock_guard<std::mutex> lock(mutex_);
    switch (request) {
      case VIDIOC_QUERYCAP: {
        auto* cap = static_cast<v4l2_capability*>(arg);
        *cap = {};
        std::strncpy(reinterpret_cast<char*>(cap->driver), driver_.c_str(), sizeof cap->driver - 1);
        std::strncpy(reinterpret_cast<char*>(cap->card), card_.c_str(), sizeof cap->card - 1);
        cap->capabilities = device_caps | V4L2_CAP_DEVICE_CAPS;
        cap->device_caps = device_caps;
        return 0;
      }
      case VIDIOC_QUERYBUF: {
        auto* b = static_cast<v4l2_buffer*>(arg);
        if (b->index >= buffers_.size()) return fail(EINVAL);
        b->length = std::uint32_t(buffers_[b->index].memory.size());
        b->m.offset = std::uint32_t(b->index * kOffsetStep);
        return 0;
      }
      default:
        return device_ioctl(request, arg);
    }
  }

 protected:
  FakeV4l2Node(std::string node_path, int fd, std::string driver, std::string card,
               std::uint32_t caps)
      : path(std::move(node_path)),
        device_caps(caps),
        fd_(fd),
        driver_(std::move(driver)),
        card_(std::move(card)) {}

  struct Buffer {
    std::vector<std::uint8_t> memory;
    bool queued = false;  // given to the driver (QBUF), not yet taken back (DQBUF)
    std::uint32_t bytesused = 0;
    std::uint32_t sequence = 0;
  };

  static int fail(int err) {
    errno = err;
    return -1;
  }

  const int fd_;

  // Every other request, with mutex_ held.
  virtual int device_ioctl(unsigned long request, void* arg) = 0;

  // REQBUFS for mmap buffers: at most `most` of `bytes` each (what a driver grants may be fewer).
  int allocate(v4l2_requestbuffers* req, std::uint32_t most, std::size_t bytes) {
    if (req->memory != V4L2_MEMORY_MMAP) return fail(EINVAL);
    req->count = std::min(req->count, most);
    buffers_.assign(req->count, Buffer{});
    for (Buffer& b : buffers_) b.memory.assign(bytes, 0);
    done_.clear();
    return 0;
  }

  std::mutex mutex_;  // guards everything below and the devices' state
  std::vector<Buffer> buffers_;
  std::deque<std::uint32_t> done_;  // buffers the driver is done with, in order, for DQBUF
  bool streaming_ = false;

 private:
  const std::string driver_, card_;
};

// A size a camera offers in one format, and the rates it lists for it (none: it lists no frame
// intervals for that size, as some drivers do).
struct FakeCameraMode {
  std::uint32_t fourcc;
  int width, height;
  std::vector<int> fps;
};

// A UVC-like camera in memory. A frame "arrives" every `period` while streaming: the fake fills
// `burst` queued buffers at once (with consecutive sequence numbers) and wakes poll().
class FakeCamera final : public FakeV4l2Node {
 public:
  FakeCamera()
      : FakeV4l2Node("/dev/video7", 42, "fake", "Fake Camera",
                     V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING) {}

  std::vector<FakeCameraMode> modes;
  std::uint32_t padding = 0;  // extra bytes per YUYV or NV12 row
  int burst = 1;
  std::chrono::milliseconds period{5};
  bool busy = false;
  bool no_bandwidth = false;
  std::atomic<bool> queue_error{false};  // the driver flagged its queue as failed
  std::atomic<int> stream_offs{0};

  // The content of every MJPEG frame from now on.
  void set_jpeg(std::vector<std::uint8_t> bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    jpeg_ = std::move(bytes);
  }

  // Luma of YUYV and NV12 frames: a diagonal ramp moving with the frame number, so that every
  // pixel tells its position and frame and a wrong row stride shows.
  static int luma(int x, int y, std::uint32_t sequence) {
    return 16 + int((sequence + std::uint32_t(x) + 2u * std::uint32_t(y)) % 200u);
  }

  int poll(pollfd* fds, nfds_t, int timeout_ms) override {
    fds[0].revents = 0;
    if (unplugged || queue_error) {
      fds[0].revents = unplugged ? POLLERR | POLLHUP : POLLERR;
      return 1;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!done_.empty()) {
        fds[0].revents = POLLIN;
        return 1;
      }
    }
    std::this_thread::sleep_for(std::min(period, std::chrono::milliseconds(timeout_ms)));
    std::lock_guard<std::mutex> lock(mutex_);
    if (!streaming_) return 0;
    for (int k = 0; k < burst; ++k) {
      Buffer* free = nullptr;
      for (Buffer& b : buffers_)
        if (b.queued) {
          free = &b;
          break;
        }
      if (!free) break;
      fill(*free);
    }
    if (done_.empty()) return 0;
    fds[0].revents = POLLIN;
    return 1;
  }

 private:
  int device_ioctl(unsigned long request, void* arg) override {
    switch (request) {
      case VIDIOC_ENUM_FMT:
        return enum_format(*static_cast<v4l2_fmtdesc*>(arg));
      case VIDIOC_ENUM_FRAMESIZES:
        return enum_size(*static_cast<v4l2_frmsizeenum*>(arg));
      case VIDIOC_ENUM_FRAMEINTERVALS:
        return enum_interval(*static_cast<v4l2_frmivalenum*>(arg));
      case VIDIOC_G_FMT:
        if (format_.width == 0) set_format(modes.front());  // the power-on default
        static_cast<v4l2_format*>(arg)->fmt.pix = format_;
        return 0;
      case VIDIOC_S_FMT:
        return take_format(static_cast<v4l2_format*>(arg)->fmt.pix);
      case VIDIOC_G_PARM:
      case VIDIOC_S_PARM:
        return stream_parm(request == VIDIOC_S_PARM, *static_cast<v4l2_streamparm*>(arg));
      case VIDIOC_REQBUFS:
        if (busy) return fail(EBUSY);
        return allocate(static_cast<v4l2_requestbuffers*>(arg), 6, format_.sizeimage);
      case VIDIOC_QBUF:
        return queue(*static_cast<v4l2_buffer*>(arg));
      case VIDIOC_DQBUF:
        return dequeue(*static_cast<v4l2_buffer*>(arg));
      case VIDIOC_STREAMON:
        if (no_bandwidth) return fail(ENOSPC);
        streaming_ = true;
        return 0;
      case VIDIOC_STREAMOFF:
        ++stream_offs;
        streaming_ = false;
        done_.clear();
        return 0;
      default:
        return fail(ENOTTY);
    }
  }

  int enum_format(v4l2_fmtdesc& d) const {
    const auto formats = fourccs();
    if (d.type != V4L2_BUF_TYPE_VIDEO_CAPTURE || d.index >= formats.size()) return fail(EINVAL);
    d.pixelformat = formats[d.index];
    return 0;
  }

  int enum_size(v4l2_frmsizeenum& s) const {
    std::uint32_t n = 0;
    for (const FakeCameraMode& m : modes)
      if (m.fourcc == s.pixel_format && n++ == s.index) {
        s.type = V4L2_FRMSIZE_TYPE_DISCRETE;
        s.discrete = {std::uint32_t(m.width), std::uint32_t(m.height)};
        return 0;
      }
    return fail(EINVAL);
  }

  int enum_interval(v4l2_frmivalenum& iv) const {
    for (const FakeCameraMode& m : modes)
      if (m.fourcc == iv.pixel_format && std::uint32_t(m.width) == iv.width &&
          std::uint32_t(m.height) == iv.height && iv.index < m.fps.size()) {
        iv.type = V4L2_FRMIVAL_TYPE_DISCRETE;
        iv.discrete = {1, std::uint32_t(m.fps[iv.index])};
        return 0;
      }
    return fail(EINVAL);
  }

  // S_FMT: the mode a driver would pick for `want`, written back into it.
  int take_format(v4l2_pix_format& want) {
    if (busy || streaming_) return fail(EBUSY);
    // Like a driver: an unknown format becomes the first one.
    const auto formats = fourccs();
    if (std::find(formats.begin(), formats.end(), want.pixelformat) == formats.end())
      want.pixelformat = formats.front();
    // Among this format's sizes: the largest that fits, else the smallest.
    const FakeCameraMode* best = nullptr;
    auto fits = [&](const FakeCameraMode& m) {
      return m.width <= int(want.width) && m.height <= int(want.height);
    };
    auto area = [](const FakeCameraMode& m) { return m.width * m.height; };
    for (const FakeCameraMode& m : modes) {
      if (m.fourcc != want.pixelformat) continue;
      if (!best || (fits(m) && !fits(*best)) ||
          (fits(m) == fits(*best) && (fits(m) ? area(m) > area(*best) : area(m) < area(*best))))
        best = &m;
    }
    set_format(*best);
    want = format_;
    return 0;
  }

  int stream_parm(bool set, v4l2_streamparm& parm) {
    if (set) timeperframe_ = parm.parm.capture.timeperframe;
    parm.parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
    parm.parm.capture.timeperframe = timeperframe_;
    return 0;
  }

  int queue(const v4l2_buffer& b) {
    if (b.index >= buffers_.size() || buffers_[b.index].queued) return fail(EINVAL);
    buffers_[b.index].queued = true;
    return 0;
  }

  int dequeue(v4l2_buffer& b) {
    if (done_.empty()) return fail(EAGAIN);
    const std::uint32_t i = done_.front();
    done_.pop_front();
    b.index = i;
    b.bytesused = buffers_[i].bytesused;
    b.sequence = buffers_[i].sequence;
    b.flags = V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_DONE;
    return 0;
  }

  std::vector<std::uint32_t> fourccs() const {
    std::vector<std::uint32_t> f;
    for (const FakeCameraMode& m : modes)
      if (std::find(f.begin(), f.end(), m.fourcc) == f.end()) f.push_back(m.fourcc);
    return f;
  }

  void set_format(const FakeCameraMode& m) {
    format_ = {};
    format_.width = std::uint32_t(m.width);
    format_.height = std::uint32_t(m.height);
    format_.pixelformat = m.fourcc;
    format_.field = V4L2_FIELD_NONE;
    if (m.fourcc == V4L2_PIX_FMT_YUYV) {
      format_.bytesperline = std::uint32_t(m.width) * 2 + padding;
      format_.sizeimage = format_.bytesperline * std::uint32_t(m.height);
    } else if (m.fourcc == V4L2_PIX_FMT_NV12) {
      format_.bytesperline = std::uint32_t(m.width) + padding;
      format_.sizeimage = format_.bytesperline * std::uint32_t(m.height + (m.height + 1) / 2);
    } else {
      format_.sizeimage = std::uint32_t(m.width * m.height * 2);
    }
    if (!m.fps.empty()) timeperframe_ = {1, std::uint32_t(m.fps.front())};
  }

  void fill(Buffer& b) {
    b.queued = false;
    b.sequence = sequence_++;
    if (format_.pixelformat == V4L2_PIX_FMT_YUYV) {
      std::fill(b.memory.begin(), b.memory.end(), 0xEE);  // padding shows as garbage
      for (std::uint32_t y = 0; y < format_.height; ++y)
        for (std::uint32_t x = 0; x < format_.width; ++x) {
          std::uint8_t* p = &b.memory[y * format_.bytesperline + x * 2];
          p[0] = std::uint8_t(luma(int(x), int(y), b.sequence));
          p[1] = 128;  // U for even x, V for odd x: neutral chroma
        }
      b.bytesused = format_.sizeimage;
    } else if (format_.pixelformat == V4L2_PIX_FMT_NV12) {
      std::fill(b.memory.begin(), b.memory.end(), 0xEE);
      for (std::uint32_t y = 0; y < format_.height; ++y)
        for (std::uint32_t x = 0; x < format_.width; ++x)
          b.memory[y * format_.bytesperline + x] = std::uint8_t(luma(int(x), int(y), b.sequence));
      const std::size_t chroma = std::size_t(format_.bytesperline) * format_.height;
      for (std::uint32_t y = 0; y < (format_.height + 1) / 2; ++y)
        std::fill_n(&b.memory[chroma + y * format_.bytesperline], format_.width, 128);
      b.bytesused = format_.sizeimage;
    } else {
      const std::size_t n = std::min(jpeg_.size(), b.memory.size());
      std::copy_n(jpeg_.begin(), n, b.memory.begin());
      b.bytesused = std::uint32_t(n);
    }
    done_.push_back(std::uint32_t(&b - buffers_.data()));
  }

  std::vector<std::uint8_t> jpeg_;
  v4l2_pix_format format_{};
  v4l2_fract timeperframe_{1, 30};
  std::uint32_t sequence_ = 0;
};

// A v4l2loopback-like output node in memory: it takes a format, then frames by write() (when it
// has V4L2_CAP_READWRITE) or through mmap buffers queued for output, and keeps every frame it was
// given.
class FakeOutput final : public FakeV4l2Node {
 public:
  FakeOutput()
      : FakeV4l2Node("/dev/video10", 17, "v4l2 loopback", "Fake Loopback",
                     V4L2_CAP_VIDEO_OUTPUT | V4L2_CAP_READWRITE | V4L2_CAP_STREAMING) {}

  std::vector<std::uint32_t> formats = {V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_RGB24};
  std::uint32_t padding = 0;  // extra bytes per row the driver asks for
  bool busy = false;          // another writer holds it
  // Sizes the driver refuses once frames flow (a reader holds the format).
  bool fixed_size_after_start = false;

  struct Written {
    std::uint32_t fourcc;
    int width, height;
    std::uint32_t bytesperline;
    std::vector<std::uint8_t> bytes;
  };
  std::vector<Written> frames() {
    std::lock_guard<std::mutex> lock(mutex_);
    return written_;
  }

  int poll(pollfd* fds, nfds_t, int) override {
    fds[0].revents = POLLOUT;
    return 1;
  }

  ssize_t write(int fd, const void* data, std::size_t bytes) override {
    if (fd != fd_) return fail(EBADF);
    if (unplugged) return fail(ENODEV);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!(device_caps & V4L2_CAP_READWRITE) || format_.width == 0) return fail(EINVAL);
    const auto* p = static_cast<const std::uint8_t*>(data);
    keep(std::vector<std::uint8_t>(p, p + std::min<std::size_t>(bytes, format_.sizeimage)));
    started_ = true;
    return ssize_t(bytes);
  }

 private:
  int device_ioctl(unsigned long request, void* arg) override {
    switch (request) {
      case VIDIOC_ENUM_FMT: {
        auto* d = static_cast<v4l2_fmtdesc*>(arg);
        if (d->type != V4L2_BUF_TYPE_VIDEO_OUTPUT || d->index >= formats.size())
          return fail(EINVAL);
        d->pixelformat = formats[d->index];
        return 0;
      }
      case VIDIOC_S_FMT:
        return take_format(*static_cast<v4l2_format*>(arg));
      case VIDIOC_S_PARM:
        return 0;
      case VIDIOC_REQBUFS: {
        auto* req = static_cast<v4l2_requestbuffers*>(arg);
        if (req->type != V4L2_BUF_TYPE_VIDEO_OUTPUT) return fail(EINVAL);
        if (streaming_) return fail(EBUSY);
        return allocate(req, 4, format_.sizeimage);
      }
      case VIDIOC_QBUF:
        return queue(*static_cast<v4l2_buffer*>(arg));
      case VIDIOC_DQBUF:
        return dequeue(*static_cast<v4l2_buffer*>(arg));
      case VIDIOC_STREAMON:
        streaming_ = true;
        started_ = true;
        return 0;
      case VIDIOC_STREAMOFF:
        streaming_ = false;
        for (Buffer& b : buffers_) b.queued = false;
        done_.clear();
        return 0;
      default:
        return fail(ENOTTY);
    }
  }

  // S_FMT: the format a loopback driver takes, written back into `f`.
  int take_format(v4l2_format& f) {
    if (f.type != V4L2_BUF_TYPE_VIDEO_OUTPUT) return fail(EINVAL);
    if (busy || streaming_) return fail(EBUSY);
    v4l2_pix_format& want = f.fmt.pix;
    if (fixed_size_after_start && started_ &&
        (want.width != format_.width || want.height != format_.height))
      return fail(EBUSY);
    // Like a driver: an unknown format becomes the first one it takes.
    if (std::find(formats.begin(), formats.end(), want.pixelformat) == formats.end())
      want.pixelformat = formats.front();
    const std::uint32_t bpp = want.pixelformat == V4L2_PIX_FMT_YUYV ? 2 : 3;
    want.bytesperline =
        (want.pixelformat == V4L2_PIX_FMT_YUYV ? (want.width + 1) / 2 * 4 : want.width * bpp) +
        padding;
    want.sizeimage = want.bytesperline * want.height;
    format_ = want;
    return 0;
  }

  // The "reader" takes the frame at once; the buffer comes back on the next DQBUF.
  int queue(const v4l2_buffer& b) {
    if (b.index >= buffers_.size() || buffers_[b.index].queued) return fail(EINVAL);
    const auto& mem = buffers_[b.index].memory;
    keep(std::vector<std::uint8_t>(mem.begin(), mem.begin() + b.bytesused));
    buffers_[b.index].queued = true;
    done_.push_back(b.index);
    return 0;
  }

  int dequeue(v4l2_buffer& b) {
    if (done_.empty()) return fail(EAGAIN);
    b.index = done_.front();
    done_.pop_front();
    buffers_[b.index].queued = false;
    return 0;
  }

  void keep(std::vector<std::uint8_t> bytes) {
    written_.push_back({format_.pixelformat, int(format_.width), int(format_.height),
                        format_.bytesperline, std::move(bytes)});
  }

  v4l2_pix_format format_{};
  bool started_ = false;
  std::vector<Written> written_;
};

}  // namespace rf::app::test
