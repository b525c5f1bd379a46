// The camera output against a simulated V4L2 output device (detail::V4l2Io), the way the camera
// source is tested: format negotiation (YUYV, else RGB24), frames written through write() or mmap
// streaming buffers, a size change, and the one-line errors for a missing, busy or wrong device.
#include <doctest/doctest.h>
#include <linux/videodev2.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "app/sources/output_frame.h"
#include "app/sources/source.h"
#include "app/sources/v4l2_io.h"
#include "app/sources/v4l2_output.h"
#include "fake_v4l2.h"
#include "filters/core/errors.h"
#include "tests/random_data.h"

using namespace rf;
using namespace rf::app;
using rf::app::test::FakeOutput;

namespace {

// A seeded random RGBA frame from a pool (the pipeline's kind of frame).
std::shared_ptr<OutputFrame> random_frame(OutputFramePool& pool, int w, int h, unsigned seed) {
  auto f = pool.acquire(w, h);
  REQUIRE(bool(f));
  const std::vector<std::uint8_t> bytes = rf::test::random_bytes(f->bytes(), seed);
  std::copy(bytes.begin(), bytes.end(), f->data);
  f->fps = 30.0;
  return f;
}

std::string open_error(std::shared_ptr<FakeOutput> dev, const std::string& path = "") {
  try {
    V4l2Output out(dev, path.empty() ? dev->path : path, 64, 48);
  } catch (const IoError& e) {
    return e.what();
  }
  return "(opened)";
}

}  // namespace

TEST_CASE("camera out negotiates YUYV and writes each frame converted") {
  auto dev = std::make_shared<FakeOutput>();
  dev->padding = 8;
  OutputFramePool pool(4);
  {
    V4l2Output out(dev, dev->path, 37, 21);  // odd width: the last YUYV group repeats its pixel
    CHECK(out.description() == "/dev/video10 YUYV 37x21 (write)");
    for (unsigned k = 0; k < 3; ++k) {
      auto f = random_frame(pool, 37, 21, k);
      out.push(f);
      out.flush();
      const auto written = dev->frames();
      REQUIRE(written.size() == k + 1);
      const auto& w = written.back();
      CHECK(w.fourcc == V4L2_PIX_FMT_YUYV);
      CHECK(w.bytesperline == 19 * 4 + 8);
      std::vector<std::uint8_t> expected(w.bytes.size(), 0);
      rgba_to_yuyv(f->data, 37, 21, expected.data(), w.bytesperline);
      // Padding bytes are the driver's; the rows must match.
      int wrong = 0;
      for (int y = 0; y < 21; ++y)
        wrong += std::memcmp(&w.bytes[std::size_t(y) * w.bytesperline],
                             &expected[std::size_t(y) * w.bytesperline], 19 * 4) != 0;
      CHECK(wrong == 0);
    }
    CHECK(out.frames_written() == 3);
    CHECK(out.status().empty());
  }
  CHECK(dev->opens == 1);
  CHECK(dev->closes == 1);
}

TEST_CASE("camera out takes RGB24 when the device does not offer YUYV, over mmap streaming") {
  auto dev = std::make_shared<FakeOutput>();
  dev->formats = {V4L2_PIX_FMT_RGB24};
  dev->device_caps = V4L2_CAP_VIDEO_OUTPUT | V4L2_CAP_STREAMING;
  OutputFramePool pool(8);
  {
    V4l2Output out(dev, dev->path, 16, 9);
    CHECK(out.description() == "/dev/video10 RGB3 16x9 (streaming)");
    // More frames than buffers: the output reuses the ones the driver gives back.
    std::vector<std::shared_ptr<OutputFrame>> sent;
    for (unsigned k = 0; k < 7; ++k) {
      sent.push_back(random_frame(pool, 16, 9, 100 + k));
      out.push(sent.back());
      out.flush();
    }
    const auto written = dev->frames();
    REQUIRE(written.size() == 7);
    for (std::size_t k = 0; k < 7; ++k) {
      const auto& w = written[k];
      CHECK(w.fourcc == V4L2_PIX_FMT_RGB24);
      int wrong = 0;
      for (int i = 0; i < 16 * 9; ++i)
        for (int c = 0; c < 3; ++c)
          wrong += w.bytes[std::size_t(i) * 3 + c] != sent[k]->data[i * 4 + c];
      CHECK(wrong == 0);
    }
  }
  CHECK(dev->unmaps > 0);
  CHECK(dev->closes == 1);
}

TEST_CASE("camera out follows a size change, or stops with a message when the device refuses") {
  OutputFramePool pool(4);
  auto dev = std::make_shared<FakeOutput>();
  {
    V4l2Output out(dev, dev->path, 32, 24);
    out.push(random_frame(pool, 32, 24, 1));
    out.flush();
    out.push(random_frame(pool, 40, 30, 2));
    out.flush();
    CHECK(out.description() == "/dev/video10 YUYV 40x30 (write)");
    const auto written = dev->frames();
    REQUIRE(written.size() == 2);
    CHECK(written[1].width == 40);
    CHECK(out.status().empty());
  }
  auto held = std::make_shared<FakeOutput>();
  held->fixed_size_after_start = true;
  V4l2Output out(held, held->path, 32, 24);
  out.push(random_frame(pool, 32, 24, 3));
  out.flush();
  out.push(random_frame(pool, 40, 30, 4));
  out.flush();
  CHECK(out.stopped());
  CHECK(out.status() ==
        "output device /dev/video10 is busy and keeps 32x24; the source is now 40x30: camera "
        "out stopped");
  out.push(random_frame(pool, 32, 24, 5));  // refused quietly once stopped
  out.flush();
  CHECK(held->frames().size() == 1);
}

TEST_CASE("camera out says when the device goes away, and keeps the application running") {
  OutputFramePool pool(4);
  auto dev = std::make_shared<FakeOutput>();
  V4l2Output out(dev, dev->path, 16, 16);
  out.push(random_frame(pool, 16, 16, 1));
  out.flush();
  dev->unplugged = true;
  out.push(random_frame(pool, 16, 16, 2));
  out.flush();
  CHECK(out.stopped());
  CHECK(out.status() == "output device /dev/video10 disconnected: camera out stopped");
}

TEST_CASE("a missing, busy or unsuitable output device is one line naming it") {
  CHECK(open_error(std::make_shared<FakeOutput>(), "/dev/video11") ==
        "output device /dev/video11: no such device (load v4l2loopback: sudo modprobe "
        "v4l2loopback)");

  auto busy = std::make_shared<FakeOutput>();
  busy->busy = true;
  CHECK(open_error(busy) == "output device /dev/video10 is busy: another program is using it");
  CHECK(busy->closes == busy->opens);

  auto camera = std::make_shared<FakeOutput>();
  camera->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
  CHECK(open_error(camera) ==
        "output device /dev/video10 (Fake Loopback) is not a video output but a camera; camera "
        "out needs a v4l2loopback device");

  auto other = std::make_shared<FakeOutput>();
  other->not_v4l2 = true;
  CHECK(open_error(other) == "output device /dev/video10 is not a V4L2 video device");

  auto gray = std::make_shared<FakeOutput>();
  gray->formats = {V4L2_PIX_FMT_GREY};
  CHECK(open_error(gray) ==
        "output device /dev/video10 takes none of YUYV, RGB24 and BGR24 at 64x48 (it offers: "
        "GREY)");
  CHECK(gray->closes == gray->opens);
}
