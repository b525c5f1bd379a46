// The V4L2 camera source against a simulated camera (detail::V4l2Io): format negotiation,
// discovery, streaming with mmap buffers, keeping only the newest frame, YUYV with padded rows,
// MJPEG without Huffman tables, pausing, and errors: busy, no USB bandwidth, unplugged.
#include <doctest/doctest.h>
#include <linux/videodev2.h>
#include <turbojpeg.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "app/sources/source.h"
#include "app/sources/v4l2_io.h"
#include "fake_v4l2.h"
#include "filters/core/errors.h"
#include "sources_test_util.h"

using namespace rf;
using namespace rf::app;
using rf::app::test::FakeCamera;
using rf::app::test::FakeOutput;
using rf::app::test::wait_for_frame;
using rf::app::test::wait_until;

namespace {

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

}  // namespace

TEST_CASE("list_cameras reports every format, size and frame rate") {
  auto cam = usual_camera();
  // A size whose frame intervals the driver does not enumerate: one mode, rate 0 (unknown).
  cam->modes.push_back({V4L2_PIX_FMT_MJPEG, 320, 240, {}});
  const auto cameras = detail::list_cameras(*cam);
  REQUIRE(cameras.size() == 1);
  CHECK(cameras[0].device == "/dev/video7");
  CHECK(cameras[0].name == "Fake Camera");
  REQUIRE(cameras[0].modes.size() == 5);
  CHECK(cameras[0].modes[0].fourcc == "YUYV");
  CHECK(cameras[0].modes[0].width == 64);
  CHECK(cameras[0].modes[0].fps == 30.0);
  CHECK(cameras[0].modes[1].fps == 15.0);
  CHECK(cameras[0].modes[2].height == 24);
  CHECK(cameras[0].modes[3].fourcc == "MJPG");
  CHECK(cameras[0].modes[3].fps == 30.0);
  CHECK(cameras[0].modes[4].width == 320);
  CHECK(cameras[0].modes[4].fps == 0.0);
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
    while (frames < 12 && wait_for_frame(*source, f)) ++frames;
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
  while (seen.size() < 6 && wait_for_frame(*source, f)) seen.push_back(sequence_of(f));
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
  Frame kept;  // empty: poll() hands over the source's newest frame
  REQUIRE(source->poll(kept));
  CHECK(kept.width == 160);
  CHECK(std::abs(int(kept.bytes[0]) - 200) <= 3);
  // Good frames again: the message goes once it has been up for a while.
  cam->set_jpeg(stripped);
  REQUIRE(wait_for_frame(*source, f));
  CHECK(std::abs(int(f.bytes[0]) - 200) <= 3);
  CHECK(wait_until([&] { return source->status().empty(); }));
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
    Frame kept;  // empty: poll() hands over the source's newest frame
    REQUIRE(source->poll(kept));
    CHECK(kept.bytes == last);
    CHECK(kept.bytes.size() == 64 * 48 * 4);
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
  Frame kept;  // empty: poll() hands over the source's newest frame
  REQUIRE(source->poll(kept));
  CHECK(kept.bytes.size() == 64 * 48 * 4);
  CHECK(sequence_of(kept) >= 0);
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

  auto not_v4l2 = usual_camera();
  not_v4l2->not_v4l2 = true;
  CHECK(open_error(not_v4l2) == "camera /dev/video7: not a V4L2 video device");
  CHECK(not_v4l2->closes == not_v4l2->opens);

  // A loopback output node is no camera: list_cameras passes it by, open_camera names it.
  auto loopback = std::make_shared<FakeOutput>();
  CHECK(detail::list_cameras(*loopback).empty());
  try {
    detail::open_camera(loopback, loopback->path, 0, 0);
    FAIL("an output node opened as a camera");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()) == "camera /dev/video10 (Fake Loopback) cannot capture video");
  }
  CHECK(loopback->closes == loopback->opens);
}
