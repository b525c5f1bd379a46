// The V4L2 camera source against a simulated camera (detail::V4l2Io): format negotiation,
// discovery, streaming with mmap buffers, keeping only the newest frame, YUYV with padded rows,
// MJPEG without Huffman tables, pausing, and errors: busy, no USB bandwidth, unplugged.
#include <doctest/doctest.h>
#include <linux/videodev2.h>
#include <sys/mman.h>
#include <turbojpeg.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "app/sources/source.h"
#include "app/sources/v4l2_io.h"
#include "filters/core/errors.h"
#include "sources_test_util.h"

using namespace rf;
using namespace rf::app;
using rf::app::test::wait_for_frame;

namespace {

struct FakeMode {
  std::uint32_t fourcc;
  int width, height;
  std::vector<int> fps;
};

// A UVC-like camera in memory. A frame "arrives" every `period` while streaming: the fake fills
// `burst` queued buffers at once (with consecutive sequence numbers) and wakes poll().
class FakeCamera final : public detail::V4l2Io {
 public:
  static constexpr int kFd = 42;
  static constexpr std::size_t kOffsetStep = 1 << 24;

  std::string path = "/dev/video7";
  std::vector<FakeMode> modes;
  std::uint32_t device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
  std::uint32_t padding = 0;  // extra bytes per YUYV row
  int burst = 1;
  std::chrono::milliseconds period{5};
  bool busy = false;
  bool no_bandwidth = false;
  std::atomic<bool> unplugged{false};
  std::atomic<bool> queue_error{false};  // the driver flagged its queue as failed
  // The content of every MJPEG frame from now on.
  void set_jpeg(std::vector<std::uint8_t> bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    jpeg_ = std::move(bytes);
  }

  // What the source did, for the tests to inspect.
  std::atomic<int> opens{0}, closes{0}, unmaps{0}, stream_offs{0};
  std::size_t buffer_count() const { return buffers_.size(); }

  // Luma of YUYV frames: a diagonal ramp moving with the frame number, so that every pixel tells
  // its position and frame and a wrong row stride shows.
  static int luma(int x, int y, std::uint32_t sequence) {
    return 16 + int((sequence + std::uint32_t(x) + 2u * std::uint32_t(y)) % 200u);
  }

  int open(const std::string& p) override {
    if (p != path) {
      errno = ENOENT;
      return -1;
    }
    ++opens;
    return kFd;
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

  int ioctl(int fd, unsigned long request, void* arg) override {
    if (fd != kFd) return fail(EBADF);
    if (unplugged) return fail(ENODEV);
    std::lock_guard<std::mutex> lock(mutex_);
    switch (request) {
      case VIDIOC_QUERYCAP: {
        auto* cap = static_cast<v4l2_capability*>(arg);
        *cap = {};
        std::strcpy(reinterpret_cast<char*>(cap->driver), "fake");
        std::strcpy(reinterpret_cast<char*>(cap->card), "Fake Camera");
        cap->capabilities = device_caps | V4L2_CAP_DEVICE_CAPS;
        cap->device_caps = device_caps;
        return 0;
      }
      case VIDIOC_ENUM_FMT: {
        auto* d = static_cast<v4l2_fmtdesc*>(arg);
        const auto formats = fourccs();
        if (d->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || d->index >= formats.size())
          return fail(EINVAL);
        d->pixelformat = formats[d->index];
        return 0;
      }
      case VIDIOC_ENUM_FRAMESIZES: {
        auto* s = static_cast<v4l2_frmsizeenum*>(arg);
        std::uint32_t n = 0;
        for (const FakeMode& m : modes)
          if (m.fourcc == s->pixel_format && n++ == s->index) {
            s->type = V4L2_FRMSIZE_TYPE_DISCRETE;
            s->discrete = {std::uint32_t(m.width), std::uint32_t(m.height)};
            return 0;
          }
        return fail(EINVAL);
      }
      case VIDIOC_ENUM_FRAMEINTERVALS: {
        auto* iv = static_cast<v4l2_frmivalenum*>(arg);
        for (const FakeMode& m : modes)
          if (m.fourcc == iv->pixel_format && std::uint32_t(m.width) == iv->width &&
              std::uint32_t(m.height) == iv->height && iv->index < m.fps.size()) {
            iv->type = V4L2_FRMIVAL_TYPE_DISCRETE;
            iv->discrete = {1, std::uint32_t(m.fps[iv->index])};
            return 0;
          }
        return fail(EINVAL);
      }
      case VIDIOC_G_FMT:
        if (format_.width == 0) set_format(modes.front());  // the power-on default
        static_cast<v4l2_format*>(arg)->fmt.pix = format_;
        return 0;
      case VIDIOC_S_FMT: {
        if (busy || streaming_) return fail(EBUSY);
        v4l2_pix_format& want = static_cast<v4l2_format*>(arg)->fmt.pix;
        // Like a driver: an unknown format becomes the first one; the size becomes the largest
        // offered that fits, or the smallest.
        const auto formats = fourccs();
        if (std::find(formats.begin(), formats.end(), want.pixelformat) == formats.end())
          want.pixelformat = formats.front();
        // Among this format's sizes: the largest that fits, else the smallest.
        const FakeMode* best = nullptr;
        auto fits = [&](const FakeMode& m) {
          return m.width <= int(want.width) && m.height <= int(want.height);
        };
        auto area = [](const FakeMode& m) { return m.width * m.height; };
        for (const FakeMode& m : modes) {
          if (m.fourcc != want.pixelformat) continue;
          if (!best || (fits(m) && !fits(*best)) ||
              (fits(m) == fits(*best) && (fits(m) ? area(m) > area(*best) : area(m) < area(*best))))
            best = &m;
        }
        set_format(*best);
        want = format_;
        return 0;
      }
      case VIDIOC_G_PARM:
      case VIDIOC_S_PARM: {
        auto* parm = static_cast<v4l2_streamparm*>(arg);
        if (request == VIDIOC_S_PARM) timeperframe_ = parm->parm.capture.timeperframe;
        parm->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
        parm->parm.capture.timeperframe = timeperframe_;
        return 0;
      }
      case VIDIOC_REQBUFS: {
        if (busy) return fail(EBUSY);
        auto* req = static_cast<v4l2_requestbuffers*>(arg);
        if (req->memory != V4L2_MEMORY_MMAP) return fail(EINVAL);
        req->count = std::min<std::uint32_t>(req->count, 6);
        buffers_.assign(req->count, Buffer{});
        for (Buffer& b : buffers_) b.memory.assign(format_.sizeimage, 0);
        return 0;
      }
      case VIDIOC_QUERYBUF: {
        auto* b = static_cast<v4l2_buffer*>(arg);
        if (b->index >= buffers_.size()) return fail(EINVAL);
        b->length = std::uint32_t(buffers_[b->index].memory.size());
        b->m.offset = std::uint32_t(b->index * kOffsetStep);
        return 0;
      }
      case VIDIOC_QBUF: {
        auto* b = static_cast<v4l2_buffer*>(arg);
        if (b->index >= buffers_.size() || buffers_[b->index].queued) return fail(EINVAL);
        buffers_[b->index].queued = true;
        return 0;
      }
      case VIDIOC_DQBUF: {
        if (done_.empty()) return fail(EAGAIN);
        auto* b = static_cast<v4l2_buffer*>(arg);
        const std::uint32_t i = done_.front();
        done_.pop_front();
        b->index = i;
        b->bytesused = buffers_[i].bytesused;
        b->sequence = buffers_[i].sequence;
        b->flags = V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_DONE;
        return 0;
      }
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

 private:
  struct Buffer {
    std::vector<std::uint8_t> memory;
    bool queued = false;
    std::uint32_t bytesused = 0;
    std::uint32_t sequence = 0;
  };

  static int fail(int err) {
    errno = err;
    return -1;
  }

  std::vector<std::uint32_t> fourccs() const {
    std::vector<std::uint32_t> f;
    for (const FakeMode& m : modes)
      if (std::find(f.begin(), f.end(), m.fourcc) == f.end()) f.push_back(m.fourcc);
    return f;
  }

  void set_format(const FakeMode& m) {
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
    timeperframe_ = {1, std::uint32_t(m.fps.front())};
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

  std::mutex mutex_;
  std::vector<std::uint8_t> jpeg_;
  v4l2_pix_format format_{};
  v4l2_fract timeperframe_{1, 30};
  std::vector<Buffer> buffers_;
  std::deque<std::uint32_t> done_;
  bool streaming_ = false;
  std::uint32_t sequence_ = 0;
};

std::shared_ptr<FakeCamera> usual_camera() {
  auto cam = std::make_shared<FakeCamera>();
  cam->modes = {{V4L2_PIX_FMT_YUYV, 64, 48, {30, 15}},
                {V4L2_PIX_FMT_YUYV, 32, 24, {30}},
                {V4L2_PIX_FMT_MJPEG, 160, 120, {30}}};
  return cam;
}

// The gray that YUYV luma y with neutral chroma converts to.
int gray_of_luma(int y) {
  const std::uint8_t in[4] = {std::uint8_t(y), 128, std::uint8_t(y), 128};
  std::uint8_t out[8];
  yuyv_to_rgba(in, 2, 1, out);
  return out[0];
}

// The frame's sequence number modulo 200, read back from pixel (0, 0); -1 if no luma fits.
int sequence_of(const Frame& f) {
  for (int s = 0; s < 200; ++s)
    if (gray_of_luma(FakeCamera::luma(0, 0, std::uint32_t(s))) == f.bytes[0]) return s;
  return -1;
}

std::string open_error(std::shared_ptr<FakeCamera> cam, const std::string& device = "") {
  try {
    detail::open_camera(cam, device.empty() ? cam->path : device, 0, 0);
  } catch (const IoError& e) {
    return e.what();
  }
  return "(opened)";
}

bool wait_until(const std::function<bool()>& done, double timeout_s = 3.0) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long>(timeout_s * 1000.0));
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

}  // namespace

TEST_CASE("list_cameras reports every format, size and frame rate") {
  auto cam = usual_camera();
  const auto cameras = detail::list_cameras(*cam);
  REQUIRE(cameras.size() == 1);
  CHECK(cameras[0].device == "/dev/video7");
  CHECK(cameras[0].name == "Fake Camera");
  REQUIRE(cameras[0].modes.size() == 4);
  CHECK(cameras[0].modes[0].fourcc == "YUYV");
  CHECK(cameras[0].modes[0].width == 64);
  CHECK(cameras[0].modes[0].fps == 30.0);
  CHECK(cameras[0].modes[1].fps == 15.0);
  CHECK(cameras[0].modes[2].height == 24);
  CHECK(cameras[0].modes[3].fourcc == "MJPG");
  CHECK(cam->opens == cam->closes);
  // A metadata node (no VIDEO_CAPTURE) is not a camera.
  cam->device_caps = V4L2_CAP_META_CAPTURE | V4L2_CAP_STREAMING;
  CHECK(detail::list_cameras(*cam).empty());
}

TEST_CASE("a YUYV camera streams converted frames, padded rows and all") {
  auto cam = usual_camera();
  cam->padding = 24;
  {
    auto source = detail::open_camera(cam, cam->path, 0, 0);
    CHECK(source->description() == "/dev/video7 YUYV 64x48 30 fps");
    CHECK(source->animated());
    Frame f;
    REQUIRE(wait_for_frame(*source, f));
    REQUIRE(f.width == 64);
    REQUIRE(f.height == 48);
    CHECK(f.format == PixelFormat::RGBA8);
    const int s = sequence_of(f);
    REQUIRE(s >= 0);
    int wrong = 0;
    for (int y = 0; y < 48; ++y)
      for (int x = 0; x < 64; ++x) {
        const std::uint8_t* p = &f.bytes[(std::size_t(y) * 64 + x) * 4];
        const int g = gray_of_luma(FakeCamera::luma(x, y, std::uint32_t(s)));
        if (p[0] != g || p[1] != g || p[2] != g || p[3] != 255) ++wrong;
      }
    CHECK(wrong == 0);
    // Frames keep coming: more than the 4 buffers, so the source gives them back to the driver.
    int frames = 0;
    while (frames < 12 && wait_for_frame(*source, f, 2.0)) ++frames;
    CHECK(frames == 12);
    CHECK(source->status().empty());
  }
  CHECK(cam->stream_offs == 1);
  CHECK(cam->unmaps == int(cam->buffer_count()));
  CHECK(cam->opens == 1);
  CHECK(cam->closes == 1);
}

TEST_CASE("an NV12 camera streams converted frames, or its bytes as they came when asked") {
  auto cam = std::make_shared<FakeCamera>();
  cam->modes = {{V4L2_PIX_FMT_NV12, 64, 47, {30}}, {V4L2_PIX_FMT_MJPEG, 64, 47, {30}}};
  cam->padding = 16;
  auto source = detail::open_camera(cam, cam->path, 0, 0);
  CHECK(source->description() == "/dev/video7 NV12 64x47 30 fps");
  Frame f;
  REQUIRE(wait_for_frame(*source, f));
  CHECK(f.encoding == Encoding::Rgba);
  REQUIRE(f.bytes.size() == 64 * 47 * 4);
  const int s = sequence_of(f);
  REQUIRE(s >= 0);
  int wrong = 0;
  for (int y = 0; y < 47; ++y)
    for (int x = 0; x < 64; ++x) {
      const int g = gray_of_luma(FakeCamera::luma(x, y, std::uint32_t(s)));
      wrong += f.bytes[(std::size_t(y) * 64 + x) * 4] != g;
    }
  CHECK(wrong == 0);

  // A GPU path converts NV12 itself: the frame comes as it was captured, padding and all.
  source->set_raw_yuv(true);
  REQUIRE(wait_for_frame(*source, f));
  while (f.encoding != Encoding::Nv12 && wait_for_frame(*source, f)) {
  }
  REQUIRE(f.encoding == Encoding::Nv12);
  CHECK(f.stride == 64 + 16);
  CHECK(f.bytes.size() == yuv_frame_bytes(Encoding::Nv12, 47, f.stride));
  CHECK(f.bytes[64] == 0xEE);  // padding of row 0, as the driver left it
  Frame rgba;
  to_rgba(f, rgba);
  const int s2 = sequence_of(rgba);
  REQUIRE(s2 >= 0);
  CHECK(f.bytes[5 * f.stride + 7] == FakeCamera::luma(7, 5, std::uint32_t(s2)));
  source->set_raw_yuv(false);
  while (f.encoding != Encoding::Rgba && wait_for_frame(*source, f)) {
  }
  CHECK(f.encoding == Encoding::Rgba);
}

TEST_CASE("a YUYV camera delivers its frames unconverted when raw frames are asked for") {
  auto cam = usual_camera();
  cam->padding = 12;
  auto source = detail::open_camera(cam, cam->path, 0, 0);
  source->set_raw_yuv(true);
  Frame f;
  REQUIRE(wait_for_frame(*source, f));
  while (f.encoding != Encoding::Yuyv && wait_for_frame(*source, f)) {
  }
  REQUIRE(f.encoding == Encoding::Yuyv);
  CHECK(f.width == 64);
  CHECK(f.stride == 64 * 2 + 12);
  CHECK(f.format == PixelFormat::RGBA8);
  Frame converted;
  to_rgba(f, converted);
  std::vector<std::uint8_t> expected(64 * 48 * 4);
  yuyv_to_rgba(f.bytes.data(), 64, 48, f.stride, expected.data());
  CHECK(converted.bytes == expected);
}

TEST_CASE("a camera shows only the newest of frames that arrive together") {
  auto cam = usual_camera();
  cam->burst = 3;
  cam->period = std::chrono::milliseconds(20);
  auto source = detail::open_camera(cam, cam->path, 64, 48);
  Frame f;
  std::vector<int> seen;
  while (seen.size() < 6 && wait_for_frame(*source, f, 2.0)) seen.push_back(sequence_of(f));
  REQUIRE(seen.size() == 6);
  // Bursts fill sequences 0-2, 3-5, ...: only 2, 5, 8, ... are shown.
  for (int s : seen) CHECK(s % 3 == 2);
}

TEST_CASE("a size only MJPEG offers selects MJPEG, whose frames lack Huffman tables") {
  auto cam = usual_camera();
  // A 160x120 JPEG like a webcam's: 4:2:2 and no DHT segment.
  std::vector<std::uint8_t> rgba(160 * 120 * 4);
  for (std::size_t i = 0; i < rgba.size(); i += 4) {
    rgba[i] = 200;
    rgba[i + 1] = 40;
    rgba[i + 2] = 90;
    rgba[i + 3] = 255;
  }
  tjhandle tj = tjInitCompress();
  unsigned char* out = nullptr;
  unsigned long size = 0;
  REQUIRE(tjCompress2(tj, rgba.data(), 160, 0, 120, TJPF_RGBA, &out, &size, TJSAMP_422, 85, 0) ==
          0);
  std::vector<std::uint8_t> jpeg(out, out + size);
  tjFree(out);
  tjDestroy(tj);
  std::vector<std::uint8_t> stripped(jpeg.begin(), jpeg.begin() + 2);
  std::size_t i = 2;
  while (jpeg[i + 1] != 0xDA) {
    const std::size_t length = (std::size_t(jpeg[i + 2]) << 8) | jpeg[i + 3];
    if (jpeg[i + 1] != 0xC4) stripped.insert(stripped.end(), &jpeg[i], &jpeg[i] + 2 + length);
    i += 2 + length;
  }
  stripped.insert(stripped.end(), jpeg.begin() + std::ptrdiff_t(i), jpeg.end());
  REQUIRE(stripped.size() < jpeg.size());
  cam->set_jpeg(stripped);

  auto source = detail::open_camera(cam, cam->path, 160, 120);
  CHECK(source->description() == "/dev/video7 MJPG 160x120 30 fps");
  Frame f;
  REQUIRE(wait_for_frame(*source, f));
  CHECK(f.width == 160);
  CHECK(f.height == 120);
  CHECK(std::abs(int(f.bytes[0]) - 200) <= 3);
  CHECK(std::abs(int(f.bytes[1]) - 40) <= 3);
  CHECK(std::abs(int(f.bytes[2]) - 90) <= 3);

  // A damaged frame is skipped with a status; the last good one stays.
  cam->set_jpeg(std::vector<std::uint8_t>(64, 0x55));
  REQUIRE(wait_until([&] { return !source->status().empty(); }));
  CHECK(source->status().find("damaged frame") != std::string::npos);
  CHECK(std::abs(int(f.bytes[0]) - 200) <= 3);
  // Good frames again: the message goes once it has been up for a while.
  cam->set_jpeg(stripped);
  REQUIRE(wait_for_frame(*source, f));
  CHECK(std::abs(int(f.bytes[0]) - 200) <= 3);
  CHECK(wait_until([&] { return source->status().empty(); }, 5.0));
}

TEST_CASE("a camera prefers YUYV, at the size asked for or the driver's nearest") {
  auto cam = usual_camera();
  CHECK(detail::open_camera(cam, cam->path, 32, 24)->description() ==
        "/dev/video7 YUYV 32x24 30 fps");
  // No exact match in any format: YUYV at the size the driver picks.
  auto other = usual_camera();
  CHECK(detail::open_camera(other, other->path, 48, 40)->description() ==
        "/dev/video7 YUYV 32x24 30 fps");
}

TEST_CASE("a paused camera delivers nothing until resumed") {
  auto cam = usual_camera();
  auto source = detail::open_camera(cam, cam->path, 0, 0);
  Frame f;
  REQUIRE(wait_for_frame(*source, f));
  source->set_paused(true);
  source->poll(f);  // a frame published before the pause may still be waiting
  CHECK_FALSE(wait_for_frame(*source, f, 0.2));
  source->set_paused(false);
  CHECK(wait_for_frame(*source, f));
}

TEST_CASE("an unplugged camera says so, keeps its last frame and stops cleanly") {
  auto cam = usual_camera();
  {
    auto source = detail::open_camera(cam, cam->path, 0, 0);
    Frame f;
    REQUIRE(wait_for_frame(*source, f));
    cam->unplugged = true;
    REQUIRE(wait_until([&] { return !source->status().empty(); }));
    CHECK(source->status() == "camera /dev/video7 disconnected: showing the last frame");
    source->poll(f);
    const auto last = f.bytes;
    CHECK_FALSE(wait_for_frame(*source, f, 0.1));
    CHECK(f.bytes == last);
    CHECK(f.bytes.size() == 64 * 48 * 4);
  }
  CHECK(cam->closes == 1);
  CHECK(cam->unmaps == int(cam->buffer_count()));
}

TEST_CASE("a camera whose driver fails the stream says so and keeps its last frame") {
  auto cam = usual_camera();
  auto source = detail::open_camera(cam, cam->path, 0, 0);
  Frame f;
  REQUIRE(wait_for_frame(*source, f));
  cam->queue_error = true;
  REQUIRE(wait_until([&] { return !source->status().empty(); }));
  CHECK(source->status() ==
        "camera /dev/video7 stopped streaming (driver error): showing the last frame");
  source->poll(f);
  CHECK(f.bytes.size() == 64 * 48 * 4);
}

TEST_CASE("busy, bandwidth-starved and unsuitable cameras are IoErrors naming the device") {
  auto busy = usual_camera();
  busy->busy = true;
  CHECK(open_error(busy) == "camera /dev/video7 is busy: another program is using it");
  CHECK(busy->closes == busy->opens);

  auto starved = usual_camera();
  starved->no_bandwidth = true;
  const std::string bandwidth = open_error(starved);
  CHECK(bandwidth.find("/dev/video7") != std::string::npos);
  CHECK(bandwidth.find("USB bandwidth") != std::string::npos);
  CHECK(starved->unmaps == int(starved->buffer_count()));

  auto gray = std::make_shared<FakeCamera>();
  gray->modes = {{V4L2_PIX_FMT_GREY, 64, 48, {30}}};
  CHECK(open_error(gray) ==
        "camera /dev/video7 offers none of YUYV, NV12 and MJPEG (it offers: GREY)");

  auto no_streaming = usual_camera();
  no_streaming->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_READWRITE;
  CHECK(open_error(no_streaming).find("does not support streaming") != std::string::npos);

  CHECK(open_error(usual_camera(), "/dev/video3") ==
        "camera /dev/video3: no such device (is it plugged in?)");
}
