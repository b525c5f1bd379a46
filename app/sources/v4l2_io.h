// The system calls behind the V4L2 camera source, as an interface: the real kernel in the
// application, a simulated camera in tests (no webcam is needed to exercise format negotiation,
// streaming, keeping the newest frame and unplugging).
#pragma once

#include <poll.h>
#include <sys/types.h>

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
  // The candidate device nodes (/dev/video0, /dev/video1, ...), in natural order.
  virtual std::vector<std::string> nodes() = 0;
};

// The kernel's V4L2.
std::shared_ptr<V4l2Io> system_v4l2();

std::vector<CameraInfo> list_cameras(V4l2Io& io);
std::unique_ptr<Source> open_camera(std::shared_ptr<V4l2Io> io, const std::string& device,
                                    int width, int height);

}  // namespace rf::app::detail
