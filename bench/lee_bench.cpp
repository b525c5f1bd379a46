// Lee et al. 2014's CUDA kernels on a host image (built with and without CUDA: the library's
// lee2014::cuda::filter says when it has none).
#include "bench/lee_bench.h"

#include "filters/lee2014/lee2014_cuda.h"

namespace rf::bench {

static_assert(kLeeLinesPerBlock == lee2014::cuda::kLinesPerBlock);

Image lee_cuda(lee2014::Partition p, double sigma, const Image& in) {
  return lee2014::cuda::filter(p, sigma, in);
}

}  // namespace rf::bench
