// The copy floor on the host: a frame read once and written once, the time no filter that reads
// and writes it can beat.
#pragma once

#include <cstddef>

namespace rf::bench {

// Threads for a copy of `bytes`: every OpenMP thread from 4 MiB on, else one (waking the others
// would cost more than the copy).
int host_copy_threads(std::size_t bytes);

// memcpy split into `threads` contiguous parts, one per OpenMP thread.
void host_copy(const void* src, void* dst, std::size_t bytes, int threads);

}  // namespace rf::bench
