#include "app/io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "filters/core/errors.h"

namespace rf::io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw IoError(path + ": " + what + " (" + std::strerror(err) + ")");
}

// A name no other writer uses: the process id and a per-process counter, retried while taken.
// Created with O_EXCL and mode 0666, so the final file gets the umask's permissions as a plain
// fopen() would give it. The leading dot keeps half-written files out of folder listings.
std::string reserve_temp_name(const std::string& path) {
  static std::atomic<unsigned> serial{0};
  const std::filesystem::path p(path);
  const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : ".";
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string name = "." + p.filename().string() + ".partial-" +
                             std::to_string(::getpid()) + "-" + std::to_string(serial++);
    const std::string temp = (dir / name).string();
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return temp;
    }
    if (errno != EEXIST) fail(path, "cannot write", errno);
  }
  fail(path, "cannot create a temporary file", EEXIST);
}

// Flushes the file's data to the disk, so that the rename never publishes a file whose blocks a
// power cut could still lose.
void sync_file(const std::string& temp, const std::string& path) {
  const int fd = ::open(temp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot write", errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) fail(path, "write error", err);
}

}  // namespace

void write_atomically(const std::string& path,
                      const std::function<void(const std::string& temp_path)>& write) {
  const std::string temp = reserve_temp_name(path);
  try {
    write(temp);
    sync_file(temp, path);
    if (std::rename(temp.c_str(), path.c_str()) != 0) fail(path, "cannot write", errno);
  } catch (...) {
    std::remove(temp.c_str());
    throw;
  }
}

}  // namespace rf::io
