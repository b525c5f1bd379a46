// Camera pixel formats to RGBA8: YUYV (BT.601 limited range) and MJPEG (libturbojpeg).
#include <turbojpeg.h>

#include <algorithm>
#include <string>

#include "app/sources/source.h"
#include "filters/errors.h"

namespace rf::app {
namespace {

// BT.601 limited range (Y in 16..235, Cb/Cr in 16..240 centred on 128) to full-range RGB:
//   R = 1.164 (Y-16)                 + 1.596 (Cr-128)
//   G = 1.164 (Y-16) - 0.392 (Cb-128) - 0.813 (Cr-128)
//   B = 1.164 (Y-16) + 2.017 (Cb-128)
// in 8.8 fixed point (298/256 = 1.164, 409/256 = 1.598, 100/256 = 0.391, 208/256 = 0.813,
// 516/256 = 2.016), rounded, then clamped: the values outside the nominal range (Y < 16,
// saturated chroma) saturate rather than wrap.
inline std::uint8_t clamp8(int v) {
  return std::uint8_t(std::clamp(v, 0, 255));
}

inline void yuv_to_rgba(int y, int u, int v, std::uint8_t* out) {
  const int c = 298 * (y - 16) + 128;
  const int d = u - 128;
  const int e = v - 128;
  out[0] = clamp8((c + 409 * e) >> 8);
  out[1] = clamp8((c - 100 * d - 208 * e) >> 8);
  out[2] = clamp8((c + 516 * d) >> 8);
  out[3] = 255;
}

// One TurboJPEG decompressor per thread: creating one costs an allocation of libjpeg's state,
// and a camera decodes on one capture thread for its whole life.
class Decompressor {
 public:
  Decompressor() : handle_(tjInitDecompress()) {}
  ~Decompressor() {
    if (handle_) tjDestroy(handle_);
  }
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;
  tjhandle get() const { return handle_; }

 private:
  tjhandle handle_;
};

}  // namespace

void yuyv_to_rgba(const std::uint8_t* yuyv, int width, int height, std::size_t stride,
                  std::uint8_t* rgba) {
  for (int row = 0; row < height; ++row) {
    const std::uint8_t* s = yuyv + std::size_t(row) * stride;
    std::uint8_t* d = rgba + std::size_t(row) * width * 4;
    int x = 0;
    for (; x + 1 < width; x += 2, s += 4, d += 8) {
      yuv_to_rgba(s[0], s[1], s[3], d);
      yuv_to_rgba(s[2], s[1], s[3], d + 4);
    }
    if (x < width) yuv_to_rgba(s[0], s[1], s[3], d);
  }
}

void yuyv_to_rgba(const std::uint8_t* yuyv, int width, int height, std::uint8_t* rgba) {
  yuyv_to_rgba(yuyv, width, height, std::size_t((width + 1) / 2) * 4, rgba);
}

void decode_mjpeg(const std::uint8_t* data, std::size_t size, Frame& out) {
  thread_local Decompressor tj;
  if (!tj.get()) throw IoError(std::string("MJPEG: cannot start libturbojpeg: ") + tjGetErrorStr());
  if (size == 0 || size > 0xffffffffu) throw IoError("MJPEG frame: empty or too large");
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  // Webcam frames often omit the DHT segment (the AVI1 MJPEG convention); libjpeg-turbo then
  // installs the standard Huffman tables of ITU-T T.81 annex K.3 itself, so no patching is needed.
  if (tjDecompressHeader3(tj.get(), data, static_cast<unsigned long>(size), &width, &height,
                          &subsampling, &colorspace) != 0)
    throw IoError(std::string("MJPEG frame: ") + tjGetErrorStr2(tj.get()));
  if (width <= 0 || height <= 0) throw IoError("MJPEG frame: no image size in the header");
  out.width = width;
  out.height = height;
  out.format = PixelFormat::RGBA8;
  out.bytes.resize(std::size_t(width) * height * 4);
  if (tjDecompress2(tj.get(), data, static_cast<unsigned long>(size), out.bytes.data(), width, 0,
                    height, TJPF_RGBA, 0) != 0) {
    // A warning (junk after EOI, a truncated scan whose tail libjpeg fills in) still yields a
    // whole picture, which beats dropping a live frame; an error does not.
    if (tjGetErrorCode(tj.get()) != TJERR_WARNING)
      throw IoError(std::string("MJPEG frame: ") + tjGetErrorStr2(tj.get()));
  }
}

}  // namespace rf::app
