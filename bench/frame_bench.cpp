// The CPU's frame bench; the CUDA one is frame_bench_cuda.cu.
#include "bench/frame_bench.h"

#include "bench/copy.h"
#include "filters/core/errors.h"
#include "filters/core/response.h"

namespace rf::bench {

namespace {

class CpuFrameBench final : public FrameBench {
 public:
  explicit CpuFrameBench(const Image& frame) : in_(frame), out_(frame), timer_(Clock::Host) {}

  std::string description() const override { return make_cpu_engine()->description(); }
  std::unique_ptr<Engine> make_engine() const override { return make_cpu_engine(); }
  FrameView input() const override { return in_.view(); }
  FrameView output() const override { return out_.view(); }
  void* stream() const override { return nullptr; }
  Timer& timer() override { return timer_; }

  // The baselines (FIR, cuFFT) run on the GPU only; they are listed, not run.
  std::vector<Contender> baselines(const FilterSpec& spec) override {
    std::vector<Contender> out;
    if (approximates_gaussian(spec.kind)) {
      out.push_back({"fir", "direct FIR Gaussian", true, "on the CUDA backend only", {}, {}});
      out.push_back({"cufft", "cuFFT convolution", true, "on the CUDA backend only", {}, {}});
    }
    return out;
  }

  Contender copy_floor() override {
    const std::size_t bytes = in_.pixels.size() * sizeof(float);
    const int threads = host_copy_threads(bytes);
    Contender c;
    c.name = "copy";
    c.label = "memcpy of the frame (read + write), " + std::to_string(threads) +
              (threads == 1 ? " thread" : " threads");
    c.prepare = [] {};
    c.run = [this, bytes, threads] {
      host_copy(in_.pixels.data(), out_.pixels.data(), bytes, threads);
    };
    return c;
  }

 private:
  mutable Image in_, out_;
  Timer timer_;
};

}  // namespace

std::unique_ptr<FrameBench> make_frame_bench(Backend backend, const Image& frame) {
  if (frame.empty() || frame.channels != 4)
    throw InvalidParameter("a frame bench needs a float RGBA frame");
  if (backend == Backend::Cuda) return make_cuda_frame_bench(frame);
  if (backend != Backend::Cpu)
    throw InvalidParameter("a frame bench runs on the CPU or on CUDA, not on 'auto'");
  return std::make_unique<CpuFrameBench>(frame);
}

}  // namespace rf::bench
