// The fully overlapped filter's block kernels for one channel (fully_overlapped_blocks.cuh).
#include "filters/recursive/fully_overlapped_blocks.cuh"

namespace rf::fully_overlapped::device {

template BlockLaunches block_launches<1>(const Plan& plan, bool overlap);

}  // namespace rf::fully_overlapped::device
