// Every input the fuzz targets (fuzz/) found crashing, hanging or exhausting memory, kept in
// fuzz/regressions/TARGET/ and replayed here against what the reader must do with it. Built with
// the sanitizers (scripts/sanitize.sh), a memory error in a replay fails the suite as well.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "app/io/image_io.h"
#include "app/sources/source.h"
#include "filters/core/errors.h"

using namespace rf;
namespace fs = std::filesystem;

namespace {

const fs::path kRegressions = fs::path(RF_SOURCE_DIR) / "fuzz" / "regressions";

std::vector<std::uint8_t> bytes_of(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// The files of fuzz/regressions/TARGET/, each with the message its refusal must contain.
// A file there without an entry here fails the test: every finding gets its expectation.
void replay(const std::string& target, const std::map<std::string, std::string>& expected,
            const std::function<std::string(const std::vector<std::uint8_t>&)>& read) {
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(kRegressions / target)) {
    const std::string name = entry.path().filename().string();
    CAPTURE(name);
    const auto it = expected.find(name);
    REQUIRE_MESSAGE(it != expected.end(),
                    "no expectation for fuzz/regressions/" << target << "/" << name);
    const std::string message = read(bytes_of(entry.path()));
    CAPTURE(message);
    CHECK(message.find(it->second) != std::string::npos);
    ++seen;
  }
  CHECK(seen == int(expected.size()));
}

}  // namespace

TEST_CASE("fuzz regressions: image reader") {
  replay(
      "image_reader",
      {
          // A DHT segment whose 16 counts sum past 256 codes: stb_image 2.27 wrote past its
          // Huffman arrays (UBSan: index 257 out of bounds in stbi__build_huffman).
          {"jpeg-dht-over-256-codes.jpg", "corrupt JPEG (a Huffman table with more than 256"},
          // The same table behind a fill byte before the start-of-image marker (FF FF D8),
          // which stb_image takes as a JPEG and the check did not.
          {"jpeg-fill-byte-before-soi.jpg", "corrupt JPEG (a Huffman table with more than 256"},
          // The same endless scanline behind a header that ends at a line starting with a NUL
          // byte, which stb_image takes for the empty line and the first check did not.
          {"hdr-header-ends-at-nul-line.hdr",
           "truncated or corrupt HDR (a run-length scanline that never ends)"},
          // A 9x2 PNG whose first IDAT chunk is empty: stb_image copied zero bytes to a null
          // buffer (UBSan: null pointer passed to memcpy).
          {"png-empty-first-idat.png", "corrupt PNG (an empty first image-data chunk)"},
          // A JPEG whose scan holds a code its Huffman table does not assign: stb_image 2.27
          // indexed its 256 symbols with it (UBSan: index 1196315503 out of bounds). JPEG pixels
          // now come from libjpeg-turbo, which refuses the file.
          {"jpeg-scan-bad-huffman-code.jpg", "corrupt JPEG ("},
          // A PNM (P6) header whose width overflows an int inside stb_image's parser (UBSan).
          // PNM is not one of the formats the reader takes: stb_image is built without it.
          {"pnm-size-overflows-int.ppm", "readable formats: PNG, JPEG, BMP, TGA, HDR, TIFF, PFM"},
          // 29 bytes of run-length TGA that claim 17737x17486: stb_image decodes past the end
          // of the data as zeros, 310 million pixels of them (a 10 s timeout in the fuzzer).
          {"tga-rle-claims-17737x17486.tga",
           "truncated or corrupt: 17737x17486 pixels cannot come from 29 bytes"},
          // 53 bytes of Radiance HDR, 9x2, whose run-length data ends early: stb_image reads
          // runs of length 0 past the end and never finishes the scanline (a 10 s timeout).
          {"hdr-rle-run-of-zero.hdr",
           "truncated or corrupt HDR (a run-length scanline that never ends)"},
          // A 512x512 PNG whose chunk declares about 2 GiB of data in a file of 64 KiB:
          // stb_image grew its buffer to the declared length first (2 GiB allocated).
          {"png-idat-claims-2gib.png", "truncated or corrupt PNG (a chunk longer than the file)"},
      },
      [](const std::vector<std::uint8_t>& bytes) -> std::string {
        try {
          io::decode_image(bytes, "input");
        } catch (const IoError& e) {
          return e.what();
        }
        return "decoded";
      });
}

TEST_CASE("fuzz regressions: camera YUYV and NV12 buffers") {
  replay("camera_yuv",
         {
             // NV12, 132x1015, a row stride of 0 bytes: the size check (stride times rows)
             // passed with no bytes, and the conversion read past the buffer (AddressSanitizer).
             {"nv12-stride-0.bin", "NV12 frame: a row stride of 0 bytes is shorter than a row"},
         },
         [](const std::vector<std::uint8_t>& bytes) -> std::string {
           // The framing of fuzz/camera_yuv.cpp: width, height, stride offset, flags, buffer.
           REQUIRE(bytes.size() >= 6);
           app::Frame in;
           in.width = 1 + ((bytes[0] | bytes[1] << 8) % 1024);
           in.height = 1 + ((bytes[2] | bytes[3] << 8) % 1024);
           in.encoding = bytes[5] & 1 ? app::Encoding::Nv12 : app::Encoding::Yuyv;
           const std::size_t min_stride = app::yuv_min_stride(in.encoding, in.width);
           in.stride = bytes[5] & 2 ? min_stride - std::min<std::size_t>(bytes[4], min_stride)
                                    : min_stride + bytes[4];
           in.bytes.assign(bytes.begin() + 6, bytes.end());
           app::Frame out;
           try {
             app::to_rgba(in, out);
           } catch (const IoError& e) {
             return e.what();
           }
           return "converted";
         });
}

TEST_CASE("fuzz regressions: camera MJPEG frames") {
  replay("camera_mjpeg",
         {
             // 393 bytes whose SOF claims 60000x60000: the capture thread allocated 14.4 GB.
             {"header-claims-60000x60000.jpg", "60000x60000 is larger than the stream's 1280x720"},
         },
         [](const std::vector<std::uint8_t>& bytes) -> std::string {
           app::Frame f;
           try {
             app::decode_mjpeg(bytes.data(), bytes.size(), f, 1280, 720);
           } catch (const IoError& e) {
             return e.what();
           }
           return "decoded";
         });
}
