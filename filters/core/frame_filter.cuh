// One planned filter on the GPU as the CUDA engine runs it: the interface each family's CUDA
// filter implements (the recursive family's fully overlapped and direct-form filters, the
// edge-aware filter, Lee et al. 2014). The engine handles host frames, storage kinds a filter does
// not read or write itself (through float buffers), graphs and timing; the filter enqueues its
// kernels.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "filters/core/io.cuh"

namespace rf::cuda {

class FrameFilter {
 public:
  virtual ~FrameFilter() = default;

  // Whether enqueue() reads (writes) frames of this storage kind itself. The engine hands it the
  // others as float buffers of the planned channel count, converted around the call.
  virtual bool reads(IoKind kind) const = 0;
  virtual bool writes(IoKind kind) const = 0;
  // Allocations that depend on the kinds of the frames, done outside any graph capture before
  // the first enqueue() with them.
  virtual void prepare(IoKind /*src*/, IoKind /*dst*/) {}
  // Whether the filter was planned for the engine's batch and enqueue() filters all its frames
  // (src and dst then hold them one after another, `height` rows each); otherwise the engine
  // enqueues it once per frame.
  virtual bool batches() const { return false; }
  // What runs, auto resolved: an algorithm as --algo names it ("alg5", "rt", "exact"), "lines"
  // (lines held whole in shared memory, which only auto takes) or "fir".
  virtual std::string algorithm() const = 0;
  // The stages enqueue() runs, in order, for timing tables.
  virtual std::vector<std::string> stage_names() const = 0;
  // Enqueues the filter on `stream` (src == dst allowed); when `marks` is given, marks[i] is
  // recorded after stage i.
  virtual void enqueue(const Io& src, const Io& dst, cudaStream_t stream, cudaEvent_t* marks) = 0;
};

}  // namespace rf::cuda
