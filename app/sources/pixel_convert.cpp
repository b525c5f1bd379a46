// Camera pixel formats to RGBA8: YUYV and NV12 (BT.601 limited range) and MJPEG (libturbojpeg);
// and RGBA8 to YUYV and NV12 for frames sent on in a camera's format.

#include <algorithm>
#include <string>

#include "app/io/jpeg.h"
#include "app/sources/source.h"
#include "app/sources/yuv.h"
#include "filters/core/errors.h"

namespace rf::app {
namespace {

// BT.601 limited range to full-range RGB as yuv.h's yuv_to_rgb8 computes it (the GPU kernels use
// that function): its terms per 8-bit value, and a clamp table, so a pixel costs five lookups and
// three adds (a 1080p YUYV frame is 2 Mpx, converted on the capture thread at the camera's rate).
struct Bt601Tables {
  static constexpr int kClipOffset = 384;  // the sums span -277..534 after the shift
  int y[256], rv[256], gu[256], gv[256], bu[256];
  std::uint8_t clip[1024];
  Bt601Tables() {
    for (int i = 0; i < 256; ++i) {
      y[i] = 298 * (i - 16) + 128;
      rv[i] = 409 * (i - 128);
      gu[i] = -100 * (i - 128);
      gv[i] = -208 * (i - 128);
      bu[i] = 516 * (i - 128);
    }
    for (int i = 0; i < 1024; ++i) clip[i] = std::uint8_t(std::clamp(i - kClipOffset, 0, 255));
  }
};

const Bt601Tables& bt601() {
  static const Bt601Tables kTables;
  return kTables;
}

inline void yuv_to_rgba(const Bt601Tables& t, int y, int u, int v, std::uint8_t* out) {
  const int c = t.y[y];
  constexpr int o = Bt601Tables::kClipOffset;
  out[0] = t.clip[((c + t.rv[v]) >> 8) + o];
  out[1] = t.clip[((c + t.gu[u] + t.gv[v]) >> 8) + o];
  out[2] = t.clip[((c + t.bu[u]) >> 8) + o];
  out[3] = 255;
}

}  // namespace

void yuyv_to_rgba(const std::uint8_t* yuyv, int width, int height, std::size_t stride,
                  std::uint8_t* rgba) {
  const Bt601Tables& t = bt601();
  for (int row = 0; row < height; ++row) {
    const std::uint8_t* s = yuyv + std::size_t(row) * stride;
    std::uint8_t* d = rgba + std::size_t(row) * width * 4;
    int x = 0;
    for (; x + 1 < width; x += 2, s += 4, d += 8) {
      yuv_to_rgba(t, s[0], s[1], s[3], d);
      yuv_to_rgba(t, s[2], s[1], s[3], d + 4);
    }
    if (x < width) yuv_to_rgba(t, s[0], s[1], s[3], d);
  }
}

void yuyv_to_rgba(const std::uint8_t* yuyv, int width, int height, std::uint8_t* rgba) {
  yuyv_to_rgba(yuyv, width, height, std::size_t((width + 1) / 2) * 4, rgba);
}

void nv12_to_rgba(const std::uint8_t* nv12, int width, int height, std::size_t stride,
                  std::uint8_t* rgba) {
  const Bt601Tables& t = bt601();
  const std::uint8_t* chroma = nv12 + stride * std::size_t(height);
  for (int row = 0; row < height; ++row) {
    const std::uint8_t* luma = nv12 + std::size_t(row) * stride;
    const std::uint8_t* uv = chroma + std::size_t(row / 2) * stride;
    std::uint8_t* d = rgba + std::size_t(row) * width * 4;
    for (int x = 0; x < width; ++x, d += 4) yuv_to_rgba(t, luma[x], uv[x & ~1], uv[x | 1], d);
  }
}

void rgba_to_yuyv(const std::uint8_t* rgba, int width, int height, std::uint8_t* yuyv,
                  std::size_t stride) {
  for (int row = 0; row < height; ++row) {
    const std::uint8_t* s = rgba + std::size_t(row) * width * 4;
    std::uint8_t* d = yuyv + std::size_t(row) * stride;
    for (int x = 0; x < width; x += 2, s += 8, d += 4) {
      // The last group of an odd width repeats its one pixel.
      const std::uint8_t* q = x + 1 < width ? s + 4 : s;
      d[0] = std::uint8_t(rgb_to_y(s[0], s[1], s[2]));
      d[2] = std::uint8_t(rgb_to_y(q[0], q[1], q[2]));
      const int r = s[0] + q[0], g = s[1] + q[1], b = s[2] + q[2];
      d[1] = std::uint8_t(clamp_u8(rgb_to_u(r, g, b, 2)));
      d[3] = std::uint8_t(clamp_u8(rgb_to_v(r, g, b, 2)));
    }
  }
}

void rgba_to_nv12(const std::uint8_t* rgba, int width, int height, std::uint8_t* nv12,
                  std::size_t stride) {
  for (int row = 0; row < height; ++row) {
    const std::uint8_t* s = rgba + std::size_t(row) * width * 4;
    std::uint8_t* d = nv12 + std::size_t(row) * stride;
    for (int x = 0; x < width; ++x)
      d[x] = std::uint8_t(rgb_to_y(s[4 * x], s[4 * x + 1], s[4 * x + 2]));
  }
  // Chroma from 2x2 blocks: the sums of four pixels (edge pixels repeated), halved to the sums of
  // two that rgb_to_u and rgb_to_v take.
  std::uint8_t* chroma = nv12 + stride * std::size_t(height);
  for (int row = 0; row < height; row += 2) {
    const int row2 = std::min(row + 1, height - 1);
    std::uint8_t* d = chroma + std::size_t(row / 2) * stride;
    for (int x = 0; x < width; x += 2) {
      const int x2 = std::min(x + 1, width - 1);
      int sum[3] = {0, 0, 0};
      for (int yy : {row, row2})
        for (int xx : {x, x2})
          for (int c = 0; c < 3; ++c) sum[c] += rgba[(std::size_t(yy) * width + xx) * 4 + c];
      const int r = (sum[0] + 1) / 2, g = (sum[1] + 1) / 2, b = (sum[2] + 1) / 2;
      d[x] = std::uint8_t(clamp_u8(rgb_to_u(r, g, b, 2)));
      d[x + 1] = std::uint8_t(clamp_u8(rgb_to_v(r, g, b, 2)));
    }
  }
}

const char* to_string(Encoding e) {
  switch (e) {
    case Encoding::Yuyv:
      return "YUYV";
    case Encoding::Nv12:
      return "NV12";
    case Encoding::Rgba:
      break;
  }
  return "RGBA";
}

std::size_t yuv_min_stride(Encoding e, int width) {
  const std::size_t groups = std::size_t(width + 1) / 2;
  return e == Encoding::Yuyv ? groups * 4 : groups * 2;
}

std::size_t yuv_frame_bytes(Encoding e, int height, std::size_t stride) {
  const std::size_t rows =
      e == Encoding::Nv12 ? std::size_t(height) + std::size_t(height + 1) / 2 : std::size_t(height);
  return stride * rows;
}

void to_rgba(const Frame& in, Frame& out) {
  out.width = in.width;
  out.height = in.height;
  out.index = in.index;
  out.encoding = Encoding::Rgba;
  out.stride = 0;
  if (in.encoding == Encoding::Rgba) {
    out.format = in.format;
    out.bytes = in.bytes;
    return;
  }
  out.format = PixelFormat::RGBA8;
  out.bytes.resize(std::size_t(in.width) * in.height * 4);
  const std::size_t min_stride = yuv_min_stride(in.encoding, in.width);
  if (in.stride < min_stride)
    throw IoError(std::string(to_string(in.encoding)) + " frame: a row stride of " +
                  std::to_string(in.stride) + " bytes is shorter than a row of " +
                  std::to_string(in.width) + " pixels (" + std::to_string(min_stride) + ")");
  if (in.bytes.size() < yuv_frame_bytes(in.encoding, in.height, in.stride))
    throw IoError(std::string(to_string(in.encoding)) + " frame: fewer bytes than its size needs");
  if (in.encoding == Encoding::Yuyv)
    yuyv_to_rgba(in.bytes.data(), in.width, in.height, in.stride, out.bytes.data());
  else
    nv12_to_rgba(in.bytes.data(), in.width, in.height, in.stride, out.bytes.data());
}

void decode_mjpeg(const std::uint8_t* data, std::size_t size, Frame& out, int max_width,
                  int max_height) {
  // Webcam frames often omit the DHT segment (the AVI1 MJPEG convention); libjpeg-turbo then
  // installs the standard Huffman tables itself, so no patching is needed.
  int width = 0, height = 0;
  if (const char* problem = io::jpeg_size(data, size, &width, &height))
    throw IoError(std::string("MJPEG frame: ") + problem);
  if (width > max_width || height > max_height)
    throw IoError("MJPEG frame: " + std::to_string(width) + "x" + std::to_string(height) +
                  " is larger than the stream's " + std::to_string(max_width) + "x" +
                  std::to_string(max_height));
  out.width = width;
  out.height = height;
  out.format = PixelFormat::RGBA8;
  out.encoding = Encoding::Rgba;
  out.stride = 0;
  out.bytes.resize(std::size_t(width) * height * 4);
  // A warning (junk after EOI, a truncated scan whose tail libjpeg fills in) still yields a whole
  // picture, which beats dropping a live frame; an error does not.
  if (const char* problem = io::jpeg_decode(data, size, width, height, 4, out.bytes.data()))
    throw IoError(std::string("MJPEG frame: ") + problem);
}

}  // namespace rf::app
