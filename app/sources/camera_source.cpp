// Webcams through V4L2 with raw ioctls: discovery (QUERYCAP, ENUM_FMT, ENUM_FRAMESIZES,
// ENUM_FRAMEINTERVALS), format negotiation (YUYV preferred, then NV12, then MJPEG), mmap streaming
// buffers and a capture thread that keeps only the newest frame.
#include <dirent.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

#include "app/sources/source.h"
#include "app/sources/source_detail.h"
#include "app/sources/v4l2_io.h"
#include "filters/core/errors.h"

namespace rf::app {
namespace {

constexpr unsigned kBufferCount = 4;
constexpr int kPollTimeoutMs = 200;
// A camera that delivers nothing for this long is reported stalled (but not given up on).
constexpr double kStallSeconds = 3.0;
// How long a message about a passing problem stays up after frames flow again.
constexpr std::chrono::seconds kTransientStatus{2};

using detail::fourcc_string;
using detail::xioctl;

class SystemV4l2 final : public detail::V4l2Io {
 public:
  int open(const std::string& path) override {
    return ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  }
  int close(int fd) override { return ::close(fd); }
  int ioctl(int fd, unsigned long request, void* arg) override { return ::ioctl(fd, request, arg); }
  void* mmap(int fd, std::size_t length, off_t offset) override {
    return ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
  }
  int munmap(void* address, std::size_t length) override { return ::munmap(address, length); }
  int poll(pollfd* fds, nfds_t count, int timeout_ms) override {
    return ::poll(fds, count, timeout_ms);
  }
  ssize_t write(int fd, const void* data, std::size_t bytes) override {
    return ::write(fd, data, bytes);
  }
  std::vector<std::string> nodes() override {
    std::vector<std::string> nodes;
    if (DIR* d = ::opendir("/dev")) {
      while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.size() > 5 && name.compare(0, 5, "video") == 0 &&
            std::all_of(name.begin() + 5, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
          nodes.push_back("/dev/" + name);
      }
      ::closedir(d);
    }
    std::sort(nodes.begin(), nodes.end(), detail::natural_less);
    return nodes;
  }
};

// The capture capabilities of the node itself: a UVC camera exposes a second /dev/video node for
// metadata, which reports VIDEO_CAPTURE only in the physical device's `capabilities`.
std::uint32_t node_caps(const v4l2_capability& cap) {
  return (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
}

std::vector<std::uint32_t> enum_formats(detail::V4l2Io& io, int fd) {
  std::vector<std::uint32_t> formats;
  for (v4l2_fmtdesc d{};; ++d.index) {
    d.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(io, fd, VIDIOC_ENUM_FMT, &d) != 0) break;
    formats.push_back(d.pixelformat);
  }
  return formats;
}

std::vector<std::pair<int, int>> enum_sizes(detail::V4l2Io& io, int fd, std::uint32_t fourcc) {
  std::vector<std::pair<int, int>> sizes;
  for (v4l2_frmsizeenum s{};; ++s.index) {
    s.pixel_format = fourcc;
    if (xioctl(io, fd, VIDIOC_ENUM_FRAMESIZES, &s) != 0) break;
    if (s.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
      sizes.emplace_back(int(s.discrete.width), int(s.discrete.height));
    } else {
      // Stepwise or continuous ranges come as one entry: offer their two ends.
      sizes.emplace_back(int(s.stepwise.min_width), int(s.stepwise.min_height));
      sizes.emplace_back(int(s.stepwise.max_width), int(s.stepwise.max_height));
      break;
    }
  }
  return sizes;
}

std::vector<double> enum_rates(detail::V4l2Io& io, int fd, std::uint32_t fourcc, int width,
                               int height) {
  std::vector<double> rates;
  for (v4l2_frmivalenum iv{};; ++iv.index) {
    iv.pixel_format = fourcc;
    iv.width = std::uint32_t(width);
    iv.height = std::uint32_t(height);
    if (xioctl(io, fd, VIDIOC_ENUM_FRAMEINTERVALS, &iv) != 0) break;
    // Intervals are seconds per frame; the shortest interval is the highest rate.
    const v4l2_fract t = iv.type == V4L2_FRMIVAL_TYPE_DISCRETE ? iv.discrete : iv.stepwise.min;
    if (t.numerator > 0) rates.push_back(double(t.denominator) / t.numerator);
    if (iv.type != V4L2_FRMIVAL_TYPE_DISCRETE) break;
  }
  return rates;
}

std::string open_error(const std::string& device, int err) {
  switch (err) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
      return "camera " + device + ": no such device (is it plugged in?)";
    case EBUSY:
      return "camera " + device + " is busy: another program is using it";
    case EACCES:
    case EPERM:
      return "camera " + device + ": permission denied (is your user in the 'video' group?)";
    default:
      return "camera " + device + ": " + std::strerror(err);
  }
}

class CameraSource final : public Source {
 public:
  CameraSource(std::shared_ptr<detail::V4l2Io> io, const std::string& device, int width, int height)
      : io_(std::move(io)), device_(device) {
    fd_ = io_->open(device);
    if (fd_ < 0) throw IoError(open_error(device, errno));
    try {
      configure(width, height);
      start_streaming();
    } catch (...) {
      release();
      throw;
    }
    capture_ = std::thread([this] { run(); });
  }

  ~CameraSource() override {
    stop_ = true;
    if (capture_.joinable()) capture_.join();
    release();
  }

  std::string description() const override { return description_; }

  bool poll(Frame& frame) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (latest_.bytes.empty()) return false;
    if (!frame.bytes.empty() && frame.index >= latest_.index) return false;
    frame = latest_;
    return true;
  }

  std::string status() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return status_;
  }

  // A paused camera keeps capturing (the driver would drop frames anyway) but shows none.
  void set_paused(bool paused) override {
    std::lock_guard<std::mutex> lock(mutex_);
    paused_ = paused;
  }
  bool animated() const override { return true; }
  double fps() const override { return fps_; }
  void set_raw_yuv(bool enabled) override { raw_yuv_ = enabled; }

 private:
  struct Buffer {
    void* start = MAP_FAILED;
    std::size_t length = 0;
  };

  void fail(const std::string& what, int err) {
    if (err == EBUSY) throw IoError(open_error(device_, EBUSY));
    throw IoError("camera " + device_ + ": " + what + ": " + std::strerror(err));
  }

  // Asks for `fourcc` at the requested size; the driver answers with what it will really do.
  bool try_format(std::uint32_t fourcc, int width, int height, v4l2_format& got) {
    v4l2_format f{};
    f.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    f.fmt.pix.width = std::uint32_t(width);
    f.fmt.pix.height = std::uint32_t(height);
    f.fmt.pix.pixelformat = fourcc;
    f.fmt.pix.field = V4L2_FIELD_NONE;
    if (xioctl(*io_, fd_, VIDIOC_S_FMT, &f) != 0) {
      if (errno == EBUSY) fail("cannot set the format", EBUSY);
      return false;
    }
    got = f;
    return f.fmt.pix.pixelformat == fourcc;
  }

  void configure(int width, int height) {
    check_capabilities();
    const Candidates c = candidates(enum_formats(*io_, fd_));
    if (width <= 0 || height <= 0) current_size(width, height);
    set_format(negotiate(c, width, height));
    fps_ = set_highest_rate();
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.3g", fps_);
    description_ = device_ + " " + fourcc_string(format_.pixelformat) + " " +
                   std::to_string(format_.width) + "x" + std::to_string(format_.height) +
                   (fps_ > 0.0 ? std::string(" ") + rate + " fps" : std::string());
  }

  // A V4L2 node that captures video with streaming I/O; its name goes to card_.
  void check_capabilities() {
    v4l2_capability cap{};
    if (xioctl(*io_, fd_, VIDIOC_QUERYCAP, &cap) != 0) {
      if (errno == ENOTTY || errno == EINVAL)
        throw IoError("camera " + device_ + ": not a V4L2 video device");
      fail("VIDIOC_QUERYCAP", errno);
    }
    card_ = reinterpret_cast<const char*>(cap.card);
    const std::uint32_t caps = node_caps(cap);
    if (!(caps & V4L2_CAP_VIDEO_CAPTURE))
      throw IoError("camera " + device_ + " (" + card_ + ") cannot capture video");
    if (!(caps & V4L2_CAP_STREAMING))
      throw IoError("camera " + device_ + " (" + card_ + ") does not support streaming I/O");
  }

  // The formats this source takes of those the camera offers.
  struct Candidates {
    std::vector<std::uint32_t> raw;  // sent as they come, in order of preference
    std::uint32_t mjpeg = 0;         // the camera's motion JPEG fourcc; 0: none
  };

  Candidates candidates(const std::vector<std::uint32_t>& formats) const {
    auto offered = [&](std::uint32_t f) {
      return std::find(formats.begin(), formats.end(), f) != formats.end();
    };
    Candidates c;
    // YUYV (2 bytes a pixel, no decoding, exact), then NV12 (1.5 bytes a pixel).
    for (std::uint32_t f : {V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_NV12})
      if (offered(f)) c.raw.push_back(f);
    // Some cameras name their motion JPEG 'JPEG' rather than 'MJPG'; the frames are the same.
    for (std::uint32_t f : {V4L2_PIX_FMT_MJPEG, V4L2_PIX_FMT_JPEG})
      if (!c.mjpeg && offered(f)) c.mjpeg = f;
    if (c.raw.empty() && !c.mjpeg) {
      std::string list;
      for (std::uint32_t f : formats) list += (list.empty() ? "" : ", ") + fourcc_string(f);
      throw IoError("camera " + device_ + " offers none of YUYV, NV12 and MJPEG (it offers: " +
                    (list.empty() ? "nothing" : list) + ")");
    }
    return c;
  }

  // No size asked for: keep the driver's current one (640x480 when it reports none).
  void current_size(int& width, int& height) {
    v4l2_format current{};
    current.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(*io_, fd_, VIDIOC_G_FMT, &current) == 0) {
      width = int(current.fmt.pix.width);
      height = int(current.fmt.pix.height);
    }
    if (width <= 0 || height <= 0) width = 640, height = 480;
  }

  // An uncompressed format at the size asked for; else MJPEG at that size (USB 2 cameras offer
  // large sizes in MJPEG only); else an uncompressed format at the size the driver picks.
  v4l2_format negotiate(const Candidates& c, int width, int height) {
    auto exact = [&](const v4l2_format& f) {
      return int(f.fmt.pix.width) == width && int(f.fmt.pix.height) == height;
    };
    v4l2_format got{};
    for (std::uint32_t f : c.raw)
      if (try_format(f, width, height, got) && exact(got)) return got;
    if (c.mjpeg && try_format(c.mjpeg, width, height, got) && exact(got)) return got;
    for (std::uint32_t f : c.raw)
      if (try_format(f, width, height, got)) return got;
    if (c.mjpeg && try_format(c.mjpeg, width, height, got)) return got;
    throw IoError("camera " + device_ + ": the driver accepts none of YUYV, NV12 and MJPEG");
  }

  void set_format(const v4l2_format& got) {
    format_ = got.fmt.pix;
    if (format_.width == 0 || format_.height == 0)
      throw IoError("camera " + device_ + ": the driver reports a 0x0 frame size");
    if (is_raw())
      format_.bytesperline = std::max<std::uint32_t>(
          format_.bytesperline, std::uint32_t(yuv_min_stride(encoding(), int(format_.width))));
  }

  // Asks for the highest frame rate of the mode (drivers without VIDIOC_S_PARM keep their own)
  // and returns the rate the driver then reports, 0 when it reports none.
  double set_highest_rate() {
    const std::vector<double> rates =
        enum_rates(*io_, fd_, format_.pixelformat, int(format_.width), int(format_.height));
    v4l2_streamparm parm{};
    parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (!rates.empty() && xioctl(*io_, fd_, VIDIOC_G_PARM, &parm) == 0 &&
        (parm.parm.capture.capability & V4L2_CAP_TIMEPERFRAME)) {
      const double best = *std::max_element(rates.begin(), rates.end());
      parm.parm.capture.timeperframe.numerator = 1000;
      parm.parm.capture.timeperframe.denominator = std::uint32_t(best * 1000.0 + 0.5);
      xioctl(*io_, fd_, VIDIOC_S_PARM, &parm);
    }
    v4l2_streamparm now{};
    now.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(*io_, fd_, VIDIOC_G_PARM, &now) == 0 && now.parm.capture.timeperframe.numerator > 0)
      return double(now.parm.capture.timeperframe.denominator) /
             now.parm.capture.timeperframe.numerator;
    return 0.0;
  }

  void start_streaming() {
    v4l2_requestbuffers req{};
    req.count = kBufferCount;
    req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    req.memory = V4L2_MEMORY_MMAP;
    if (xioctl(*io_, fd_, VIDIOC_REQBUFS, &req) != 0) fail("cannot get streaming buffers", errno);
    if (req.count < 2) throw IoError("camera " + device_ + ": the driver gave too few buffers");
    buffers_.resize(req.count);
    for (unsigned i = 0; i < req.count; ++i) {
      v4l2_buffer b{};
      b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
      b.memory = V4L2_MEMORY_MMAP;
      b.index = i;
      if (xioctl(*io_, fd_, VIDIOC_QUERYBUF, &b) != 0) fail("VIDIOC_QUERYBUF", errno);
      buffers_[i].length = b.length;
      buffers_[i].start = io_->mmap(fd_, b.length, off_t(b.m.offset));
      if (buffers_[i].start == MAP_FAILED) fail("cannot map a capture buffer", errno);
    }
    for (unsigned i = 0; i < req.count; ++i) {
      v4l2_buffer b{};
      b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
      b.memory = V4L2_MEMORY_MMAP;
      b.index = i;
      if (xioctl(*io_, fd_, VIDIOC_QBUF, &b) != 0) fail("VIDIOC_QBUF", errno);
    }
    v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(*io_, fd_, VIDIOC_STREAMON, &type) != 0) {
      // ENOSPC: the USB bus has no bandwidth left for this mode.
      if (errno == ENOSPC)
        throw IoError("camera " + device_ +
                      ": not enough USB bandwidth (try a smaller size or another port)");
      fail("cannot start streaming", errno);
    }
    streaming_ = true;
  }

  void release() {
    if (fd_ >= 0 && streaming_) {
      v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
      xioctl(*io_, fd_, VIDIOC_STREAMOFF, &type);  // fails harmlessly on an unplugged device
    }
    streaming_ = false;
    for (Buffer& b : buffers_)
      if (b.start != MAP_FAILED) io_->munmap(b.start, b.length);
    buffers_.clear();
    if (fd_ >= 0) io_->close(fd_);
    fd_ = -1;
  }

  void set_status(std::string s) {
    std::lock_guard<std::mutex> lock(mutex_);
    status_ = std::move(s);
    transient_ = false;
  }

  // A status about one bad frame or a pause in the stream; good frames clear it once it has
  // been up long enough for a person to read it.
  void set_transient_status(std::string s) {
    std::lock_guard<std::mutex> lock(mutex_);
    status_ = std::move(s);
    transient_ = true;
    transient_since_ = std::chrono::steady_clock::now();
  }

  void disconnected() { set_status("camera " + device_ + " disconnected: showing the last frame"); }

  bool is_raw() const {
    return format_.pixelformat == V4L2_PIX_FMT_YUYV || format_.pixelformat == V4L2_PIX_FMT_NV12;
  }
  Encoding encoding() const {
    return format_.pixelformat == V4L2_PIX_FMT_NV12 ? Encoding::Nv12 : Encoding::Yuyv;
  }

  // Converts one filled buffer into `out` (or copies it as it is, when raw frames are wanted);
  // false (with a status) for a damaged frame.
  bool convert(const v4l2_buffer& b, Frame& out) {
    const std::uint8_t* data = static_cast<const std::uint8_t*>(buffers_[b.index].start);
    const std::size_t used = std::min<std::size_t>(b.bytesused, buffers_[b.index].length);
    if (!is_raw()) {
      try {
        decode_mjpeg(data, used, out, int(format_.width), int(format_.height));
      } catch (const IoError& e) {
        set_transient_status("camera " + device_ + ": skipped a damaged frame (" + e.what() + ")");
        return false;
      }
      return true;
    }
    const Encoding e = encoding();
    const std::size_t needed = yuv_frame_bytes(e, int(format_.height), format_.bytesperline);
    // Some drivers report bytesused 0 for full buffers; trust the length then.
    if ((b.bytesused != 0 && used < needed) || buffers_[b.index].length < needed) {
      set_transient_status("camera " + device_ + ": skipped a short frame");
      return false;
    }
    out.width = int(format_.width);
    out.height = int(format_.height);
    out.format = PixelFormat::RGBA8;
    if (raw_yuv_) {
      out.encoding = e;
      out.stride = format_.bytesperline;
      out.bytes.assign(data, data + needed);
      return true;
    }
    out.encoding = Encoding::Rgba;
    out.stride = 0;
    out.bytes.resize(std::size_t(out.width) * out.height * 4);
    if (e == Encoding::Yuyv)
      yuyv_to_rgba(data, out.width, out.height, format_.bytesperline, out.bytes.data());
    else
      nv12_to_rgba(data, out.width, out.height, format_.bytesperline, out.bytes.data());
    return true;
  }

  // What the capture loop does next: use the buffer, try again, or stop for good (the status
  // says why).
  enum class Step { Ready, Again, Stop };

  void run() {
    Frame back;
    auto last_frame = std::chrono::steady_clock::now();
    int errors_in_a_row = 0;
    while (!stop_) {
      Step step = wait_for_buffer(last_frame);
      if (step == Step::Stop) return;
      if (step == Step::Again) continue;
      v4l2_buffer newest{};
      step = dequeue_newest(newest, errors_in_a_row);
      if (step == Step::Stop) return;
      if (step == Step::Again) continue;
      errors_in_a_row = 0;
      if (take(newest, back, last_frame) == Step::Stop) return;
    }
  }

  // Polls for a filled buffer; a camera quiet since `last_frame` for too long is said to stall.
  Step wait_for_buffer(std::chrono::steady_clock::time_point last_frame) {
    pollfd p{fd_, POLLIN, 0};
    const int n = io_->poll(&p, 1, kPollTimeoutMs);
    if (n < 0) {
      if (errno == EINTR) return Step::Again;
      disconnected();
      return Step::Stop;
    }
    if (n == 0) {
      const double quiet =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - last_frame).count();
      if (quiet > kStallSeconds)
        set_transient_status("camera " + device_ + " sends no frames: showing the last frame");
      return Step::Again;
    }
    // poll() reports POLLERR when the stream is dead: an unplugged USB camera (whose ioctls
    // then fail with ENODEV) or a driver that flagged its queue as failed.
    if (p.revents & (POLLERR | POLLHUP | POLLNVAL)) {
      v4l2_capability cap{};
      if (xioctl(*io_, fd_, VIDIOC_QUERYCAP, &cap) != 0 && errno == ENODEV)
        disconnected();
      else
        set_status("camera " + device_ +
                   " stopped streaming (driver error): showing the last frame");
      return Step::Stop;
    }
    return Step::Ready;
  }

  // Dequeues everything that is ready and keeps only the newest buffer, giving the others back:
  // a slow consumer sees the latest picture instead of a growing backlog.
  Step dequeue_newest(v4l2_buffer& newest, int& errors_in_a_row) {
    bool have = false;
    while (true) {
      v4l2_buffer b{};
      b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
      b.memory = V4L2_MEMORY_MMAP;
      if (xioctl(*io_, fd_, VIDIOC_DQBUF, &b) != 0) {
        const int err = errno;
        if (err == EAGAIN) break;
        if (err == ENODEV) {
          disconnected();
          return Step::Stop;
        }
        // EIO: a transient capture error; the driver may keep the buffer or drop it.
        if (++errors_in_a_row > 50) {
          set_status("camera " + device_ + ": capture failed (" + std::strerror(err) +
                     "): showing the last frame");
          return Step::Stop;
        }
        break;
      }
      if (have && xioctl(*io_, fd_, VIDIOC_QBUF, &newest) != 0 && errno == ENODEV) {
        disconnected();
        return Step::Stop;
      }
      newest = b;
      have = true;
    }
    return have ? Step::Ready : Step::Again;
  }

  // Converts the buffer into `back`, gives the buffer back to the driver and, unless paused,
  // makes `back` the newest frame.
  Step take(v4l2_buffer& b, Frame& back, std::chrono::steady_clock::time_point& last_frame) {
    const bool good = !(b.flags & V4L2_BUF_FLAG_ERROR) && convert(b, back);
    if (xioctl(*io_, fd_, VIDIOC_QBUF, &b) != 0 && errno == ENODEV) {
      disconnected();
      return Step::Stop;
    }
    if (!good) return Step::Again;
    last_frame = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    if (transient_ && last_frame - transient_since_ > kTransientStatus) {
      status_.clear();
      transient_ = false;
    }
    if (paused_) return Step::Again;
    back.index = detail::next_frame_index();
    std::swap(latest_, back);
    return Step::Ready;
  }

  const std::shared_ptr<detail::V4l2Io> io_;
  const std::string device_;
  int fd_ = -1;
  bool streaming_ = false;
  std::string card_;
  std::string description_;
  v4l2_pix_format format_{};
  std::vector<Buffer> buffers_;
  double fps_ = 0.0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> raw_yuv_{false};
  mutable std::mutex mutex_;  // guards latest_, paused_ and the status
  Frame latest_;
  bool paused_ = false;
  bool transient_ = false;
  std::chrono::steady_clock::time_point transient_since_;
  std::string status_;
  std::thread capture_;
};

}  // namespace

namespace detail {

int xioctl(V4l2Io& io, int fd, unsigned long request, void* arg) {
  int r;
  do r = io.ioctl(fd, request, arg);
  while (r == -1 && errno == EINTR);
  return r;
}

std::string fourcc_string(std::uint32_t f) {
  std::string s;
  for (int k = 0; k < 4; ++k) {
    const char c = char((f >> (8 * k)) & 0xff);
    if (c != ' ' && c != 0) s += c;
  }
  return s;
}

std::shared_ptr<V4l2Io> system_v4l2() {
  static const std::shared_ptr<V4l2Io> kSystem = std::make_shared<SystemV4l2>();
  return kSystem;
}

std::vector<CameraInfo> list_cameras(V4l2Io& io) {
  std::vector<CameraInfo> cameras;
  for (const std::string& node : io.nodes()) {
    const int fd = io.open(node);
    if (fd < 0) continue;
    v4l2_capability cap{};
    if (xioctl(io, fd, VIDIOC_QUERYCAP, &cap) == 0 && (node_caps(cap) & V4L2_CAP_VIDEO_CAPTURE)) {
      CameraInfo info;
      info.device = node;
      info.name = reinterpret_cast<const char*>(cap.card);
      for (std::uint32_t fourcc : enum_formats(io, fd))
        for (const auto& [w, h] : enum_sizes(io, fd, fourcc)) {
          const std::vector<double> rates = enum_rates(io, fd, fourcc, w, h);
          if (rates.empty()) info.modes.push_back({fourcc_string(fourcc), w, h, 0.0});
          for (double r : rates) info.modes.push_back({fourcc_string(fourcc), w, h, r});
        }
      cameras.push_back(std::move(info));
    }
    io.close(fd);
  }
  return cameras;
}

std::unique_ptr<Source> open_camera(std::shared_ptr<V4l2Io> io, const std::string& device,
                                    int width, int height) {
  return std::make_unique<CameraSource>(std::move(io), device, width, height);
}

}  // namespace detail

std::vector<CameraInfo> list_cameras() {
  return detail::list_cameras(*detail::system_v4l2());
}

std::unique_ptr<Source> open_camera(const std::string& device, int width, int height) {
  return detail::open_camera(detail::system_v4l2(), device, width, height);
}

}  // namespace rf::app
