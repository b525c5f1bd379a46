// Writing a file so that nobody ever sees it half-written. The content goes to a temporary file
// next to the destination (same directory, so the same file system), is flushed to the disk, and
// replaces the destination with rename(2) only once complete. A failure on the way (an exception
// from the writer, a full disk, a size limit) removes the temporary and leaves an existing file at
// the destination as it was.
#pragma once

#include <functional>
#include <string>

namespace rf::io {

// Calls `write(temp_path)`, which must create and fill the file at `temp_path` (throwing on
// failure), then renames it to `path`. Throws IoError naming `path` when the temporary cannot be
// created, flushed or renamed; rethrows what `write` throws.
void write_atomically(const std::string& path,
                      const std::function<void(const std::string& temp_path)>& write);

}  // namespace rf::io
