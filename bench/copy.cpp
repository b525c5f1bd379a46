#include "bench/copy.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace rf::bench {

int host_copy_threads(std::size_t bytes) {
  return bytes >= (std::size_t(1) << 22) ? omp_get_max_threads() : 1;
}

void host_copy(const void* src, void* dst, std::size_t bytes, int threads) {
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  const std::size_t chunk = (bytes + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int i = 0; i < threads; ++i) {
    const std::size_t begin = std::size_t(i) * chunk;
    if (begin < bytes) std::memcpy(to + begin, from + begin, std::min(chunk, bytes - begin));
  }
}

}  // namespace rf::bench
