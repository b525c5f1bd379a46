// The one filtering API every front end uses: plan once per spec and size, run per frame.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "image.h"
#include "spec.h"

namespace rf {

struct StageTime {
  std::string stage;  // "columns", "rows", "carries", ...
  double ms = 0.0;    // CUDA events on the CUDA backend, steady clock on the CPU
};

class Engine {
 public:
  virtual ~Engine() = default;

  virtual Backend backend() const = 0;
  // A line for people: "CPU, OpenMP 2 threads" or "CUDA, NVIDIA H100 80GB HBM3 (sm_90)".
  virtual std::string description() const = 0;
  // What the last plan computes the filter with, for people: "recursive order 3", "FIR radius 9"
  // (the Gaussian's --gaussian-method, auto resolved), "edge-aware filter".
  virtual std::string method() const = 0;
  // What the last plan runs it with, auto resolved, for the timing panel, rfcli's summary line
  // and benchmark rows: an algorithm as --algo names it ("alg5", "rt", "exact"), "lines" (CUDA:
  // lines held whole in shared memory, a launch per axis, which only auto takes) or "fir" (the
  // Gaussian's truncated kernel).
  virtual std::string algorithm() const = 0;

  // Designs the filter, precomputes boundary matrices and allocates scratch for frames of this
  // size and format. Throws InvalidParameter for a bad spec. Planning an unchanged spec, size and
  // format again does nothing.
  void plan(const FilterSpec& spec, int width, int height, PixelFormat format) {
    plan_batch(spec, width, height, 1, format);
  }
  // The same for a batch of `frames` frames, each filtered alone, that run() takes in one view
  // (FrameView::frames). The CUDA backend's block algorithms (alg5, alg6: auto on both axes)
  // filter a batch in their four launches; the other filters run frame after frame.
  virtual void plan_batch(const FilterSpec& spec, int width, int height, int frames,
                          PixelFormat format) = 0;

  // Whether the last plan runs a batch in one set of launches (CUDA's alg5 and alg6) rather than
  // frame after frame.
  virtual bool batches_whole() const { return false; }

  // Filters `in` into `out` (same size, format and frames as planned; in == out allowed). No
  // allocation, but for the CPU engine's staging copy on the first run with a pitched float output.
  // On the CUDA backend an RGBA32F plan also takes an RGBA8 input in device memory (values v / 255,
  // as the host conversion makes them): a camera or video frame filtered to float without a float
  // copy of it.
  // `stream` is a cudaStream_t on the CUDA backend (nullptr: the default stream) and ignored on
  // the CPU. The CUDA backend does not synchronise unless timing is enabled.
  virtual void run(const FrameView& in, const FrameView& out, void* stream = nullptr) = 0;

  // Per-stage times of the last run, when enabled (CUDA events synchronise the stream).
  virtual void set_timing(bool enabled) = 0;
  virtual std::vector<StageTime> timings() const = 0;
};

// What the engine's last plan computes the filter with and by which algorithm, auto resolved,
// for people: "recursive order 3 by lines in shared memory", "recursive order 1 by alg5", "FIR
// radius 9"; empty before the first plan.
std::string method_line(const Engine& engine);

// True when a CUDA device can be used; otherwise `why` says why not ("no CUDA device found",
// "built without CUDA").
bool cuda_available(std::string* why = nullptr);

// Auto picks CUDA when a device exists, otherwise the CPU, and says so in `note`.
// Cuda without a usable device throws BackendUnavailable.
std::unique_ptr<Engine> make_engine(Backend requested, std::string* note = nullptr);

std::unique_ptr<Engine> make_cpu_engine();
std::unique_ptr<Engine> make_cuda_engine();  // throws BackendUnavailable without CUDA

// The algorithms a backend offers for a filter kind, Auto first (Backend::Auto: the union of the
// CPU's and CUDA's), for the GUI's algorithm box, the benchmark and the algorithm race.
std::vector<Algorithm> algorithms_for(Backend backend, FilterKind kind);

// Throws InvalidParameter, naming what the backend offers, unless `spec.algo` is among
// algorithms_for(backend, spec.kind).
void check_algorithm(Backend backend, const FilterSpec& spec);

// Throws InvalidParameter when frames of `format` cannot hold what `spec` computes: a derivative
// is signed, so its plans take float frames (R32F, RGBA32F, R16F), not RGBA8 or R16U. Both
// engines check.
void check_format(const FilterSpec& spec, PixelFormat format);

// Filters a host image of 1 to 4 channels with `engine`, planning it for the image first (engines
// take 1 or 4 channels: 2 or 3 are padded to 4 and the padding dropped again). 1 and 4 channels
// are filtered in place: an image passed with std::move is not copied.
Image filter_image(Engine& engine, const FilterSpec& spec, Image in);

// The same with an engine made for `backend`, for tools and tests that filter one image.
Image filter_image(const FilterSpec& spec, const Image& in, Backend backend = Backend::Auto);

}  // namespace rf
