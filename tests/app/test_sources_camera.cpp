// V4L2 cameras: the paths testable without a webcam (discovery with none, missing devices, nodes
// that are not cameras).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "app/sources/source.h"
#include "filters/core/errors.h"
#include "sources_test_util.h"

using namespace rf;
using namespace rf::app;

namespace {

std::string open_camera_error(const std::string& device) {
  try {
    open_camera(device);
  } catch (const IoError& e) {
    return e.what();
  }
  return "(opened)";
}

}  // namespace

TEST_CASE("list_cameras lists capture devices, and nothing where there are none") {
  const std::vector<CameraInfo> cameras = list_cameras();
  std::ifstream probe("/dev/video0");
  for (const CameraInfo& c : cameras) {
    CHECK(c.device.rfind("/dev/video", 0) == 0);
    for (const CameraMode& m : c.modes) {
      CHECK(!m.fourcc.empty());
      CHECK(m.width > 0);
      CHECK(m.height > 0);
      // A rate the driver lists for this size, or 0 as the size's only mode when it lists none.
      CAPTURE(m.fps);
      CHECK(std::isfinite(m.fps));
      if (!(m.fps > 0.0)) {
        CHECK(m.fps == 0.0);
        CHECK(std::count_if(c.modes.begin(), c.modes.end(), [&](const CameraMode& o) {
                return o.fourcc == m.fourcc && o.width == m.width && o.height == m.height;
              }) == 1);
      }
    }
  }
  if (!probe.good()) CHECK(cameras.empty());
}

TEST_CASE("a missing camera is an IoError naming the device") {
  const std::string message = open_camera_error("/dev/video99");
  CHECK(message.find("/dev/video99") != std::string::npos);
  CHECK(message.find("no such device") != std::string::npos);
}

TEST_CASE("a node that is not a V4L2 camera is refused with its name") {
  const std::string null_message = open_camera_error("/dev/null");
  CHECK(null_message == "camera /dev/null: not a V4L2 video device");
  rf::test_util::TempDir dir;
  std::ofstream(dir.file("video0")) << "a plain file";
  const std::string file_message = open_camera_error(dir.file("video0"));
  CHECK(file_message.find(dir.file("video0")) != std::string::npos);
  CHECK(file_message.find("not a V4L2 video device") != std::string::npos);
}
