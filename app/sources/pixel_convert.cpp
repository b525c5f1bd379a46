// Camera pixel formats to RGBA8: YUYV (BT.601 limited range) and MJPEG (libturbojpeg).
#include <turbojpeg.h>

#include <algorithm>
#include <string>

#include "app/sources/source.h"
#include "filters/core/errors.h"

namespace rf::app {
namespace {

// BT.601 limited range (Y in 16..235, Cb/Cr in 16..240 centred on 128) to full-range RGB:
//   R = 1.164 (Y-16)                 + 1.596 (Cr-128)
//   G = 1.164 (Y-16) - 0.392 (Cb-128) - 0.813 (Cr-128)
//   B = 1.164 (Y-16) + 2.017 (Cb-128)
// in 8.8 fixed point (298/256 = 1.164, 409/256 = 1.598, 100/256 = 0.391, 208/256 = 0.813,
// 516/256 = 2.016), rounded, then clamped: the values outside the nominal range (Y < 16,
// saturated chroma) saturate rather than wrap.
//
// The terms above per 8-bit value, and a clamp table: a pixel costs five lookups and three adds
// (a 1080p YUYV frame is 2 Mpx, converted on the capture thread at the camera's rate).
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
