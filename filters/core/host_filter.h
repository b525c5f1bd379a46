// One planned filter on the CPU as the CPU engine runs it: the interface each family's CPU filter
// takes in the engine (the recursive family's line filter and fully overlapped filter, the
// edge-aware filter, Lee et al. 2014). The engine converts frames to packed float (or double) and
// back; the filter filters.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace rf {

class HostFilter {
 public:
  virtual ~HostFilter() = default;

  // Whether run() may be given one buffer as both input and output.
  virtual bool in_place() const = 0;
  // What runs, auto resolved: an algorithm as --algo names it ("rt", "alg5", "exact") or "fir".
  virtual std::string algorithm() const = 0;
  // The stages run() goes through, in order, for timing tables.
  virtual std::vector<std::string> stage_names() const = 0;
  // Filters a packed float frame of the planned size (channels interleaved) from `in` into
  // `out`; calls mark(i) after stage i.
  virtual void run(const float* in, float* out, const std::function<void(std::size_t)>& mark) = 0;
  // Whether the filter runs packed double frames (PixelFormat::R64F) in double throughout, and
  // that run, in place.
  virtual bool runs_double() const { return false; }
  virtual void run(double*, const std::function<void(std::size_t)>&) {}
};

}  // namespace rf
