// Files as bytes, and the one-line error reading an image gives: what the I/O and rfcli tests
// write, read back and expect.
#pragma once

#include <fstream>
#include <iterator>
#include <string>

#include "app/io/image_io.h"
#include "filters/core/errors.h"

namespace rf::test_util {

inline std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
}

// The message of the IoError thrown by io::read_image(path), or "" if none was thrown.
inline std::string read_error(const std::string& path) {
  try {
    io::read_image(path);
  } catch (const IoError& e) {
    return e.what();
  }
  return "";
}

}  // namespace rf::test_util
