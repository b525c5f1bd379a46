// N-D arrays (1-D signals, images, volumes, batches, any channel count) filtered one axis at a
// time on the engines: what scipy.ndimage, ITK and rfcli's --axes ask of a separable filter.
//
// A pass filters one axis k of a C-contiguous array of shape (d_0, ..., d_{n-1}) seen as
// outer x d_k x inner (outer = d_0 ... d_{k-1}, inner = d_{k+1} ... d_{n-1}): its lines are the
// inner columns of each of the outer frames of inner x d_k samples, which the engine filters
// along y alone (FilterSpec::axes); where inner is 1 (the last axis) or 4 (the last axis before
// four interleaved channels), the lines are the rows of one frame of d_k x outer, filtered along x
// alone. Two passes over adjacent axes with the same extension whose inner is 1 or 4 are one 2-D
// plan, as an image is filtered (every algorithm, alg5 included), of the batch of outer frames
// (Engine::plan_batch; on the device only where the engine runs a batch whole, alg5 and alg6).
// The columns of a batch are one plan of the batch too where the engine runs it whole (on the
// device auto's pass with its lines in shared memory), and otherwise, on the device, gathered into
// one wide frame and scattered back. Every extension stays exact:
// each pass sees the array continued by its own axis's extension, and under the constant
// extension the value `cval` filtered by the passes before it (cval times their gain at DC for a
// smoothing, 0 after a derivative), which is the N-D array continued by cval in every direction.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine.h"
#include "spec.h"

namespace rf {

// The filtering of one axis of an array.
struct AxisPass {
  int axis = 0;
  double sigma = 4.0;  // the kinds with a sigma; others ignore it
  int derivative = 0;  // 0, 1 or 2: the order of the Gaussian derivative along the axis
  Extension ext = Extension::Mirror;
};

// What an array is filtered with. `filter` gives the kind, order, pole, cval, algorithm and
// (derivative.normalized) scale normalisation; its sigma, sigma_y, ext, derivative orders and axes
// are the passes'. A measure (filter.derivative.measure) is made over the axes of the passes: the
// gradient magnitude of the first derivatives along each, the Laplacian of the second ones.
struct ArraySpec {
  FilterSpec filter;
  std::vector<AxisPass> passes;  // at most one per axis, in any order
};

// Sample types of arrays in and out. Integers are filtered as their values (not normalised to
// [0, 1]) and written back rounded to nearest, saturated; float16 is IEEE binary16.
enum class DType { U8, U16, F16, F32, F64 };
const char* to_string(DType);
std::size_t size_of(DType);

// Plans the passes of `spec` for C-contiguous float32 arrays of `shape` on engines of `backend`
// (one engine per distinct pass, so a run replans nothing), in host memory (MemorySpace::Host) or
// in the CUDA engine's device memory (MemorySpace::Device: the CUDA backend; no measure there).
// Throws InvalidParameter for an axis out of range or given twice, an empty or too large axis, a
// spec the engines refuse (naming the pass's axis), a derivative or measure without passes.
// `precision` F64 plans float64 arrays filtered in double throughout, on the CPU's line filter
// (rt or auto; derivatives and measures too), in host memory; F32 (the default) float32 arrays
// in float32.
class ArrayFilter {
 public:
  ArrayFilter(const ArraySpec& spec, std::vector<std::int64_t> shape, Backend backend,
              MemorySpace space = MemorySpace::Host, DType precision = DType::F32);
  ~ArrayFilter();
  ArrayFilter(ArrayFilter&&) noexcept;
  ArrayFilter& operator=(ArrayFilter&&) noexcept;

  // `in` may be `out`. On the device, `stream` is the cudaStream_t the passes run on.
  void run(const float* in, float* out, void* stream = nullptr);
  void run(const double* in, double* out);  // a float64 plan

  const std::vector<std::int64_t>& shape() const;
  std::string description() const;  // the engines', e.g. "CPU, OpenMP 2 threads"
  // What each step of the first partial runs, auto resolved (Engine::algorithm), joined by '+':
  // "lines+rt" for a volume's x,y plan and its pass through the pages.
  std::string algorithms() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Whether filter_array takes float64 arrays in double: on the CPU (`backend` Cpu or Auto), the line
// filter (algorithm rt or auto, not the edge-aware kind), its derivatives and measures too.
bool filters_in_double(const ArraySpec& spec, Backend backend);

// A host array of any DType filtered into a host array of any DType (the same shape, C-contiguous;
// in == out allowed when the types are equal), through float32; float64 into float64 in double
// where filters_in_double() says so.
void filter_array(const ArraySpec& spec, const std::vector<std::int64_t>& shape, const void* in,
                  DType in_type, void* out, DType out_type, Backend backend = Backend::Auto);

}  // namespace rf
