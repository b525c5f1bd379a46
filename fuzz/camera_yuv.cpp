// libFuzzer target: a raw camera buffer (YUYV or NV12) converted to RGBA, as the capture thread
// and the video pipeline convert it (rf::app::to_rgba). The first six bytes choose what a driver
// would report: width and height (1..1024), the encoding, and the row stride as the encoding's
// smallest stride plus or minus up to 255 bytes; the rest is the buffer. A buffer or stride too
// small for the frame must be refused with IoError; a converted frame is whole.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "app/sources/source.h"
#include "filters/core/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 6) return 0;
  rf::app::Frame in;
  in.width = 1 + ((data[0] | data[1] << 8) % 1024);
  in.height = 1 + ((data[2] | data[3] << 8) % 1024);
  in.encoding = data[5] & 1 ? rf::app::Encoding::Nv12 : rf::app::Encoding::Yuyv;
  const std::size_t min_stride = rf::app::yuv_min_stride(in.encoding, in.width);
  in.stride =
      data[5] & 2 ? min_stride - std::min<std::size_t>(data[4], min_stride) : min_stride + data[4];
  in.bytes.assign(data + 6, data + size);
  rf::app::Frame out;
  try {
    rf::app::to_rgba(in, out);
    if (out.width != in.width || out.height != in.height ||
        out.bytes.size() != std::size_t(in.width) * in.height * 4)
      std::abort();
  } catch (const rf::IoError&) {
  }
  return 0;
}
