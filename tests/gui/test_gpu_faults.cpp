// The studio when the GPU fails: the pipelined interop path gives way to the copy path, the CUDA
// engine to the CPU's, the frame is still filtered, and the status bar says what happened.
//   - A simulated fault (an engine whose run() throws rf::DeviceError) checks the fallback logic
//     on every machine.
//   - On a GPU machine the faults are real: device memory taken by a hog, a texture the driver
//     will not register, and a kernel that reads an address that is not there (in a child
//     process: a kernel fault spoils the CUDA context for good). Without a GPU these report
//     themselves skipped.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#ifdef RF_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/gui/studio_harness.h"

using namespace rf;
using namespace rf::gui;

namespace {

// Delegates to a real engine but reports itself as CUDA and fails every run with a DeviceError,
// as a CUDA engine does after a kernel fault.
class SimulatedFaultEngine final : public Engine {
 public:
  Backend backend() const override { return Backend::Cuda; }
  std::string description() const override { return "simulated CUDA device"; }
  std::string method() const override { return inner_->method(); }
  std::string algorithm() const override { return inner_->algorithm(); }
  void plan_batch(const FilterSpec& spec, int w, int h, int frames, PixelFormat f) override {
    inner_->plan_batch(spec, w, h, frames, f);
  }
  void run(const FrameView&, const FrameView&, void*) override {
    ++runs;
    throw DeviceError("CUDA error cudaErrorIllegalAddress (simulated)");
  }
  void set_timing(bool enabled) override { inner_->set_timing(enabled); }
  std::vector<StageTime> timings() const override { return inner_->timings(); }
  static inline int runs = 0;

 private:
  std::unique_ptr<Engine> inner_ = make_cpu_engine();
};

StudioOptions cuda_options() {
  StudioOptions o;
  o.spec.sigma = 3.0;
  o.spec.backend = Backend::Auto;
  o.no_truth = true;
  return o;
}

// The studio's result against the CPU engine's on the same input.
double distance_from_cpu(Studio& st) {
  const Image want = filter_image(st.spec, st.processor.input(), Backend::Cpu);
  const Image& got = st.processor.result();
  REQUIRE(got.pixels.size() == want.pixels.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < got.pixels.size(); ++i)
    worst = std::max(worst, double(std::abs(got.pixels[i] - want.pixels[i])));
  return worst;
}

bool any_message(const Studio& st, const std::string& needle) {
  for (const Message& m : st.messages)
    if (m.text.find(needle) != std::string::npos) return true;
  return false;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

#ifdef RF_HAVE_CUDA
using rf::cuda_test::DeviceMemoryHog;

// The real GPU path, asked for textures wider than GL allows: GL leaves them without storage, and
// CUDA refuses to register them.
class MisregisteringPipeline final : public GpuPipeline {
 public:
  explicit MisregisteringPipeline(std::unique_ptr<GpuPipeline> real) : real_(std::move(real)) {}
  bool configure(int, int height, bool float_frames, std::string* why) override {
    return real_->configure(65536, height, float_frames, why);
  }
  bool can_submit(bool want_output) override { return real_->can_submit(want_output); }
  void submit(Engine& e, const app::Frame* f, std::uint64_t version, std::uint64_t index,
              bool want_output, bool repeat,
              std::chrono::steady_clock::time_point arrival) override {
    real_->submit(e, f, version, index, want_output, repeat, arrival);
  }
  std::vector<PipelineFrame> take_finished() override { return real_->take_finished(); }
  void wait_idle() override { real_->wait_idle(); }
  int in_flight() const override { return real_->in_flight(); }
  unsigned original_texture() const override { return real_->original_texture(); }
  unsigned result_texture() const override { return real_->result_texture(); }

 private:
  std::unique_ptr<GpuPipeline> real_;
};

// A real CUDA engine whose input is a device address where no memory lives: its kernels fault.
class FaultingEngine final : public Engine {
 public:
  Backend backend() const override { return Backend::Cuda; }
  std::string description() const override { return inner_->description() + " (faulting)"; }
  std::string method() const override { return inner_->method(); }
  std::string algorithm() const override { return inner_->algorithm(); }
  void plan_batch(const FilterSpec& spec, int w, int h, int frames, PixelFormat f) override {
    inner_->plan_batch(spec, w, h, frames, f);
  }
  void run(const FrameView& in, const FrameView& out, void* stream) override {
    FrameView bad = in;
    bad.data = reinterpret_cast<void*>(std::uintptr_t(0x1000));
    bad.space = MemorySpace::Device;
    bad.pitch = std::size_t(in.width) * bytes_per_pixel(in.format);
    inner_->set_timing(true);  // synchronise, so the fault surfaces inside run()
    inner_->run(bad, out, stream);
  }
  void set_timing(bool) override {}
  std::vector<StageTime> timings() const override { return inner_->timings(); }

 private:
  std::unique_ptr<Engine> inner_ = make_cuda_engine();
};
#endif

// True where the processor got CUDA-GL interop (a GPU and NVIDIA's EGL); prints why not.
bool has_interop(Studio& st) {
  if (st.processor.path_line().rfind("CUDA-GL interop", 0) == 0) return true;
  std::printf("[skipped] no CUDA-GL interop here: %s\n", st.processor.path_line().c_str());
  return false;
}

}  // namespace

TEST_CASE("GPU faults: a simulated fault falls back to the CPU and says so in the status bar") {
  SimulatedFaultEngine::runs = 0;
  test::StudioHarness h(cuda_options(), [](Studio& st) {
    st.processor.engine_factory = [](Backend, std::string*) {
      return std::unique_ptr<Engine>(new SimulatedFaultEngine);
    };
  });
  // Where a GPU path exists it fails first (one frame), then the copy path (the next).
  h.frame();
  h.frame();
  CHECK(SimulatedFaultEngine::runs >= 1);
  CHECK(h.studio->processor.running_backend() == Backend::Cpu);
  CHECK(h.studio->processor.backend_line().find("CUDA failed: CUDA error "
                                                "cudaErrorIllegalAddress (simulated); running "
                                                "on CPU") != std::string::npos);
  CHECK(any_message(*h.studio, "GPU fault (CUDA error cudaErrorIllegalAddress (simulated))"));
  CHECK(h.studio->processor.error().empty());
  REQUIRE(h.studio->processor.result_texture() != 0);
  CHECK(distance_from_cpu(*h.studio) == 0.0);
  // The studio keeps running on the CPU: a new parameter filters again without a new fault.
  const int runs = SimulatedFaultEngine::runs;
  h.studio->spec.sigma = 7.0;
  h.frame();
  CHECK(SimulatedFaultEngine::runs == runs);
  CHECK(distance_from_cpu(*h.studio) == 0.0);
}

TEST_CASE("GPU faults: out of device memory falls back to the CPU with a message") {
  RF_REQUIRE_CUDA();
#ifdef RF_HAVE_CUDA
  test::StudioHarness h(cuda_options());
  REQUIRE(h.studio->processor.running_backend() == Backend::Cuda);
  {
    // A 3072^2 frame needs 144 MiB of scratch alone; 64 MiB are left.
    DeviceMemoryHog hog(std::size_t(64) << 20);
    SourceChoice big{SourceKind::Pattern, "noise"};
    big.width = big.height = 3072;
    h.studio->open_source(big);
    for (int i = 0; i < 3; ++i) h.frame();
  }
  h.frame();
  CHECK(h.studio->processor.running_backend() == Backend::Cpu);
  CHECK(any_message(*h.studio, "cudaErrorMemoryAllocation"));
  CHECK(h.studio->processor.backend_line().find("running on CPU") != std::string::npos);
  CHECK(h.studio->processor.error().empty());
  CHECK(distance_from_cpu(*h.studio) == 0.0);
#endif
}

TEST_CASE("GPU faults: a texture CUDA cannot register falls back to the copy path") {
  RF_REQUIRE_CUDA();
#ifdef RF_HAVE_CUDA
  {
    test::StudioHarness probe(cuda_options());
    if (!has_interop(*probe.studio)) return;
  }
  test::StudioHarness h(cuda_options(), [](Studio& st) {
    st.processor.pipeline_factory = [](std::string* why) -> std::unique_ptr<GpuPipeline> {
      auto real = make_cuda_gl_pipeline(why);
      if (!real) return nullptr;
      return std::make_unique<MisregisteringPipeline>(std::move(real));
    };
  });
  h.frame();
  CHECK(h.studio->processor.running_backend() == Backend::Cuda);
  CHECK(h.studio->processor.path_line().find(
            "copy path: CUDA-GL interop failed (cudaGraphicsGLRegisterImage: ") == 0);
  CHECK(any_message(*h.studio, "GPU fault on the interop path (cudaGraphicsGLRegisterImage"));
  CHECK(distance_from_cpu(*h.studio) < 1e-5);
#endif
}

// Runs again in a child process (RF_GUI_FAULT_CHILD set): a kernel fault spoils the context.
TEST_CASE("GPU faults: a kernel fault falls back through the copy path to the CPU") {
  RF_REQUIRE_CUDA();
#ifdef RF_HAVE_CUDA
  if (!std::getenv("RF_GUI_FAULT_CHILD")) {
    const std::string log =
        (std::filesystem::temp_directory_path() / ("rf_gui_fault_" + std::to_string(getpid())))
            .string();
    const std::string cmd = "RF_GUI_FAULT_CHILD=1 timeout -k 5 90 /proc/" +
                            std::to_string(getpid()) + "/exe '-tc=GPU faults: a kernel fault*' >'" +
                            log + "' 2>&1";
    // A child that hangs on its spoiled context is stopped (exit 124) rather than waited for.
    const int raw = std::system(cmd.c_str());
    const std::string out = slurp(log);
    std::remove(log.c_str());
    CAPTURE(out);
    REQUIRE(WIFEXITED(raw));
    CHECK(WEXITSTATUS(raw) == 0);
    CHECK(out.find("1 passed") != std::string::npos);
    return;
  }
  test::StudioHarness h(cuda_options(), [](Studio& st) {
    st.processor.engine_factory = [](Backend, std::string*) {
      return std::unique_ptr<Engine>(new FaultingEngine);
    };
  });
  for (int i = 0; i < 3; ++i) h.frame();
  CHECK(h.studio->processor.running_backend() == Backend::Cpu);
  CHECK(any_message(*h.studio, "cudaErrorIllegalAddress"));
  CHECK(h.studio->processor.backend_line().find("running on CPU") != std::string::npos);
  CHECK(h.studio->processor.path_line() == "copy path (glTexSubImage2D)");
  CHECK(h.studio->processor.error().empty());
  CHECK(distance_from_cpu(*h.studio) == 0.0);
#endif
}
