// The system calls behind the V4L2 camera source and the camera output, as an interface: the real
// kernel in the application, simulated devices in tests (no webcam or v4l2loopback module is needed
// to exercise format negotiation, streaming, keeping the newest frame and unplugging).
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/sources/source.h"

namespace rf::app::detail {

// Each call behaves like the system call of the same name: -1 (or MAP_FAILED) with errno set on
// failure. ioctl is retried on EINTR by the caller.
class V4l2Io {
 public:
  virtual ~V4l2Io() = default;
  virtual int open(const std::string& path) = 0;  // O_RDWR | O_NONBLOCK | O_CLOEXEC
  virtual int close(int fd) = 0;
  virtual int ioctl(int fd, unsigned long request, void* arg) = 0;
  virtual void* mmap(int fd, std::size_t length, off_t offset) = 0;  // shared, read-write
  virtual int munmap(void* address, std::size_t length) = 0;
  virtual int poll(pollfd* fds, nfds_t count, int timeout_ms) = 0;
  // Output devices that support read/write I/O (V4L2_CAP_READWRITE) take frames through write();
  // devices that cannot write fail with EINVAL.
  virtual ssize_t write(int, const void*, std::size_t) {
    errno = EINVAL;
    return -1;
  }
  // The candidate device nodes (/dev/video0, /dev/video1, ...), in natural order.
  virtual std::vector<std::string> nodes() = 0;
};

// The kernel's V4L2.
std::shared_ptr<V4l2Io> system_v4l2();

// io.ioctl, retried on EINTR.
int xioctl(V4l2Io& io, int fd, unsigned long request, void* arg);
// A four-character code as text without padding: "YUYV", "MJPG", "RGB3".
std::string fourcc_string(std::uint32_t fourcc);

std::vector<CameraInfo> list_cameras(V4l2Io& io);
std::unique_ptr<Source> open_camera(std::shared_ptr<V4l2Io> io, const std::string& device,
                                    int width, int height);

}  // namespace rf::app::detail
