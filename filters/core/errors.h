// Error types shared by the library and its front ends.
#pragma once

#include <stdexcept>
#include <string>

namespace rf {

// A parameter a person chose is invalid or would make the filter unstable. The message names it.
struct InvalidParameter : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A requested backend cannot run here (no CUDA device, no CUDA in this build).
struct BackendUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The GPU failed a call the program had every right to make: out of device memory, a kernel
// that faulted or could not launch, a GL texture the driver would not register. Thrown by
// CUDA_CHECK (filters/core/cuda_check.cuh). Front ends fall back (the GUI to the copy path, then
// to the CPU backend) or stop cleanly (rfcli: one line, exit 2), and say so.
struct DeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A file could not be read or written; the message names the file and the problem.
struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace rf
