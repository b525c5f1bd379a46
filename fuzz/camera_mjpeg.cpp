// libFuzzer target: an MJPEG camera frame, Huffman tables (DHT) present or not, as the capture
// thread decodes it for a camera negotiated at 1280x720. Damaged frames must be refused with
// IoError; a decoded frame is whole and no larger than the stream. libjpeg-turbo is Debian's
// build, not instrumented: the fuzzer is guided by this project's code only, and sanitizers see
// the library's allocations but not its reads and writes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "app/sources/source.h"
#include "filters/core/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rf::app::Frame frame;
  try {
    rf::app::decode_mjpeg(data, size, frame, 1280, 720);
    if (frame.width < 1 || frame.height < 1 || frame.width > 1280 || frame.height > 720 ||
        frame.bytes.size() != std::size_t(frame.width) * frame.height * 4)
      std::abort();
  } catch (const rf::IoError&) {
  }
  return 0;
}
