#include "app/io/image_io.h"

#include "filters/errors.h"

namespace rf::io {

Image read_image(const std::string& path) { throw IoError(path + ": not implemented yet"); }
void write_image(const std::string& path, const Image&) { throw IoError(path + ": not implemented yet"); }

}  // namespace rf::io
