// JPEG decoding through libjpeg-turbo, shared by the image reader (app/io/image_io.cpp) and the
// camera's MJPEG frames (app/sources/pixel_convert.cpp). One decompressor per thread, made on
// first use. Each call returns what went wrong (libjpeg-turbo's words), or nullptr.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rf::io {

// The picture's size from its headers. Frames without Huffman tables (the AVI1 MJPEG
// convention) get the standard ones of ITU-T T.81 annex K.3.
const char* jpeg_size(const std::uint8_t* data, std::size_t size, int* width, int* height);

// The whole picture, width x height as jpeg_size gave it, into `pixels` with `channels` bytes a
// pixel: 1 (gray), 3 (RGB) or 4 (RGBA, alpha 255). A warning (junk after the end, a damaged scan
// that libjpeg-turbo fills in) still yields the picture; an error does not.
const char* jpeg_decode(const std::uint8_t* data, std::size_t size, int width, int height,
                        int channels, std::uint8_t* pixels);

}  // namespace rf::io
