// Frame sources for the GUI: still images, image folders, video files, webcams, patterns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "filters/core/image.h"

namespace rf::app {

// How a frame's bytes are laid out. Rgba: `format` (RGBA8 or RGBA32F), rows packed. Yuyv and Nv12
// are camera formats kept as they came (BT.601 limited range, rows `stride` bytes apart; NV12's
// interleaved Cb/Cr plane of ceil(height / 2) rows follows the luma plane), for a GPU that
// converts them itself; `format` is then RGBA8, what they convert to.
enum class Encoding { Rgba, Yuyv, Nv12 };

const char* to_string(Encoding e);

// One frame in host memory: RGBA8 (cameras, video, 8-bit images) or RGBA32F (PFM, HDR), rows
// packed; or a camera's YUYV or NV12 bytes (see Encoding).
struct Frame {
  int width = 0;
  int height = 0;
  PixelFormat format = PixelFormat::RGBA8;
  Encoding encoding = Encoding::Rgba;
  std::size_t stride = 0;  // bytes per row of Yuyv and Nv12 frames
  std::vector<std::uint8_t> bytes;
  // Increases with every new frame of the source. Indices come from one process-wide counter
  // (starting at 1), so a frame of a source opened later is always newer than a kept one.
  std::uint64_t index = 0;
  // Only for Rgba frames.
  FrameView view() {
    FrameView v;
    v.data = bytes.data();
    v.width = width;
    v.height = height;
    v.pitch = std::size_t(width) * bytes_per_pixel(format);
    v.format = format;
    v.space = MemorySpace::Host;
    return v;
  }
};

class Source {
 public:
  virtual ~Source() = default;
  // For people: "astronaut.png 512x512", "/dev/video0 YUYV 640x480 30 fps", "pattern: impulses".
  virtual std::string description() const = 0;
  // Copies the newest frame into `frame` and returns true when there is one newer than
  // frame.index (or frame is empty). Never blocks for long; safe to call every UI frame.
  virtual bool poll(Frame& frame) = 0;
  // Empty while healthy; otherwise a message a person can act on ("camera unplugged: showing the
  // last frame"). The source keeps its last frame.
  virtual std::string status() const { return {}; }
  // Sequences (folders, video, moving patterns, cameras) can pause; stills ignore it.
  virtual void set_paused(bool) {}
  // While paused, advances a sequence by one frame (folders, video, moving patterns); the frame
  // arrives through poll(). Live cameras and stills ignore it.
  virtual void step() {}
  virtual bool animated() const { return false; }
  // The nominal rate of a sequence (a recording plays at it); 0 when there is none (stills).
  virtual double fps() const { return 0.0; }
  // Cameras deliver YUYV and NV12 frames as they come (Frame::encoding) when enabled, for a
  // processing path that converts them on the GPU; otherwise they convert to RGBA8 themselves.
  virtual void set_raw_yuv(bool) {}
};

// Each throws IoError with a message naming the file or device when it cannot open at all.
// A multi-page TIFF opens as a sequence of its pages (a stack, at `fps`, looping; page by page
// while paused), as a folder plays: each page filtered as an image of its own.
std::unique_ptr<Source> open_image(const std::string& path);
std::unique_ptr<Source> open_folder(const std::string& dir, double fps = 10.0, bool loop = true);
std::unique_ptr<Source> open_video(const std::string& path, bool loop = true);  // ffmpeg process
std::unique_ptr<Source> open_camera(const std::string& device, int width = 0, int height = 0);
// name: impulses, steps, checkerboard, periodic, noise, moving-bar (app/sources/pattern.h
// describes each); an unknown name or a size outside 1..16384 throws InvalidParameter.
// `encoding` Yuyv or Nv12 delivers the pattern the way such a camera would.
std::unique_ptr<Source> open_pattern(const std::string& name, int width = 512, int height = 512,
                                     Encoding encoding = Encoding::Rgba);
// The source for a command-line or dropped path: folder, video (by extension) or image.
std::unique_ptr<Source> open_path(const std::string& path);

// Webcam discovery through V4L2.
struct CameraMode {
  std::string fourcc;  // "YUYV", "MJPG"
  int width = 0;
  int height = 0;
  double fps = 0.0;
};
struct CameraInfo {
  std::string device;  // /dev/video0
  std::string name;    // the driver's card name
  std::vector<CameraMode> modes;
};
std::vector<CameraInfo> list_cameras();

// Conversions, exposed for tests. YUYV (BT.601 limited range) to RGBA8.
// Each row holds ceil(width / 2) Y0 U Y1 V groups; for an odd width the last Y1 is not shown.
void yuyv_to_rgba(const std::uint8_t* yuyv, int width, int height, std::uint8_t* rgba);
// The same with rows `stride` bytes apart (V4L2's bytesperline, which drivers may pad).
void yuyv_to_rgba(const std::uint8_t* yuyv, int width, int height, std::size_t stride,
                  std::uint8_t* rgba);
// NV12 (a luma plane, then interleaved Cb/Cr at half resolution both ways; rows `stride` bytes
// apart in both planes) to RGBA8.
void nv12_to_rgba(const std::uint8_t* nv12, int width, int height, std::size_t stride,
                  std::uint8_t* rgba);
// RGBA8 (rows packed) to YUYV with rows `stride` bytes apart, and to NV12 the same way; each
// chroma sample is the mean of the pixels that share it.
void rgba_to_yuyv(const std::uint8_t* rgba, int width, int height, std::uint8_t* yuyv,
                  std::size_t stride);
void rgba_to_nv12(const std::uint8_t* rgba, int width, int height, std::uint8_t* nv12,
                  std::size_t stride);
// Bytes of a Yuyv or Nv12 frame of this height and stride, and the smallest stride for a width.
std::size_t yuv_frame_bytes(Encoding e, int height, std::size_t stride);
std::size_t yuv_min_stride(Encoding e, int width);
// `in` with RGBA pixels: Yuyv and Nv12 frames are converted to RGBA8, Rgba frames copied.
void to_rgba(const Frame& in, Frame& out);
// Decodes an MJPEG frame (Huffman tables may be missing: the standard ones are assumed) to RGBA8.
// Throws IoError on corrupt data, and for a header larger than max_width x max_height (the size
// the camera negotiated): a damaged header must not make the capture thread allocate and decode
// gigabytes.
void decode_mjpeg(const std::uint8_t* data, std::size_t size, Frame& out, int max_width = 16384,
                  int max_height = 16384);

}  // namespace rf::app
