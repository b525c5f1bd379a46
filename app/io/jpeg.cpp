#include "app/io/jpeg.h"

#include <turbojpeg.h>

namespace rf::io {
namespace {

// One decompressor per thread: creating one allocates libjpeg's state, and a camera decodes on
// one capture thread for its whole life.
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

tjhandle decompressor() {
  thread_local Decompressor tj;
  return tj.get();
}

}  // namespace

const char* jpeg_size(const std::uint8_t* data, std::size_t size, int* width, int* height) {
  tjhandle tj = decompressor();
  if (!tj) return tjGetErrorStr();
  if (size == 0 || size > 0xffffffffu) return "empty or too large";
  int subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(tj, data, static_cast<unsigned long>(size), width, height, &subsampling,
                          &colorspace) != 0)
    return tjGetErrorStr2(tj);
  if (*width <= 0 || *height <= 0) return "no image size in the header";
  return nullptr;
}

const char* jpeg_decode(const std::uint8_t* data, std::size_t size, int width, int height,
                        int channels, std::uint8_t* pixels) {
  tjhandle tj = decompressor();
  if (!tj) return tjGetErrorStr();
  const int format = channels == 1 ? TJPF_GRAY : channels == 3 ? TJPF_RGB : TJPF_RGBA;
  if (tjDecompress2(tj, data, static_cast<unsigned long>(size), pixels, width, 0, height, format,
                    0) != 0 &&
      tjGetErrorCode(tj) != TJERR_WARNING)
    return tjGetErrorStr2(tj);
  return nullptr;
}

}  // namespace rf::io
