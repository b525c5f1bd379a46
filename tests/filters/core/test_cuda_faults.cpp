// Faults of the GPU, made for real: device memory taken by a hog (as another process or a huge
// frame takes it), and a kernel that reads an address that is not there. The engine reports each
// as rf::DeviceError; rfcli stops with one line and exit status 2 and writes nothing.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

#include "filters/core/cuda_check.cuh"
#endif

#include "app/io/image_io.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "tests/filters/core/cuda_test.h"
#include "tests/random_data.h"

using namespace rf;
namespace fs = std::filesystem;

namespace {

#ifdef RF_HAVE_CUDA
using rf::cuda_test::DeviceMemoryHog;
#endif

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

TEST_CASE("CUDA faults: out of device memory while planning is a DeviceError, then plans again") {
  RF_REQUIRE_CUDA();
#ifdef RF_HAVE_CUDA
  auto engine = make_cuda_engine();
  FilterSpec spec;
  spec.sigma = 5.0;
  {
    DeviceMemoryHog hog(std::size_t(32) << 20);
    std::string message;
    try {
      engine->plan(spec, 8192, 8192, PixelFormat::RGBA32F);
    } catch (const DeviceError& e) {
      message = e.what();
    }
    CAPTURE(message);
    CHECK(message.find("out of memory") != std::string::npos);
    // The source is named by its path in the tree, not by the build machine's checkout.
    CHECK(message.find(" at filters/") != std::string::npos);
  }
  // Memory is back: the same engine plans and filters, and agrees with the CPU.
  Image img = rf::test::random_image(301, 257, 4, 3);
  const Image want = filter_image(spec, img, Backend::Cpu);
  FrameView v = img.view();
  engine->plan(spec, img.width, img.height, v.format);
  engine->run(v, v);
  double worst = 0.0;
  for (std::size_t i = 0; i < img.pixels.size(); ++i)
    worst = std::max(worst, double(std::abs(img.pixels[i] - want.pixels[i])));
  CHECK(worst < 1e-5);
#endif
}

TEST_CASE("CUDA errors name a source by its path in the tree, not the build machine's") {
#ifdef RF_HAVE_CUDA
  CHECK(std::string(cuda::tree_path(__FILE__)) == "tests/filters/core/test_cuda_faults.cpp");
  CHECK(std::string(cuda::tree_path("/elsewhere/kernel.cu")) == "/elsewhere/kernel.cu");
#else
  std::printf("[skipped] built without CUDA\n");
#endif
}

TEST_CASE("CUDA faults: rfcli out of device memory says so in one line, exit 2, writes nothing") {
  RF_REQUIRE_CUDA();
#ifdef RF_HAVE_CUDA
  const fs::path dir = fs::temp_directory_path() / ("rf_cuda_oom_" + std::to_string(getpid()));
  fs::create_directories(dir);
  // 4096^2 RGB: the CUDA engine needs three 256 MiB buffers (RGBA float) for it.
  io::write_image((dir / "in.pfm").string(), rf::test::random_image(4096, 4096, 3, 5));
  {
    std::ofstream f(dir / "out.pfm");
    f << "the previous result";
  }
  int raw = 0;
  {
    DeviceMemoryHog hog(std::size_t(512) << 20);
    // rfcli sits beside this test binary (bin/), wherever the build directory was copied to.
    const fs::path rfcli = fs::read_symlink("/proc/self/exe").parent_path() / "rfcli";
    REQUIRE(fs::exists(rfcli));
    const std::string cmd = "cd '" + dir.string() + "' && '" + rfcli.string() +
                            "' filter in.pfm out.pfm --backend cuda >stdout.txt 2>stderr.txt";
    raw = std::system(cmd.c_str());
  }
  REQUIRE(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 2);
  const std::string err = slurp((dir / "stderr.txt").string());
  CAPTURE(err);
  CHECK(err.rfind("rfcli: CUDA error ", 0) == 0);
  CHECK(err.find("--backend cpu") != std::string::npos);
  CHECK(err.find('\n') == err.size() - 1);
  CHECK(slurp((dir / "out.pfm").string()) == "the previous result");
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  CHECK(files == 4);  // in.pfm, out.pfm, stdout.txt, stderr.txt
  fs::remove_all(dir);
#endif
}

// A kernel fault spoils the process's CUDA context for good, so the case runs itself again in a
// child process (RF_CUDA_FAULT_CHILD set) and checks the child's verdict.
TEST_CASE("CUDA faults: a kernel fault is a DeviceError; the CPU backend still filters") {
  RF_REQUIRE_CUDA();
#ifdef RF_HAVE_CUDA
  if (!std::getenv("RF_CUDA_FAULT_CHILD")) {
    const std::string log =
        (fs::temp_directory_path() / ("rf_cuda_fault_" + std::to_string(getpid()) + ".txt"))
            .string();
    const std::string cmd = "RF_CUDA_FAULT_CHILD=1 timeout -k 5 90 /proc/" +
                            std::to_string(getpid()) +
                            "/exe '-tc=CUDA faults: a kernel fault*' >'" + log + "' 2>&1";
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
  auto engine = make_cuda_engine();
  FilterSpec spec;
  engine->plan(spec, 256, 128, PixelFormat::R32F);
  engine->set_timing(true);  // timing synchronises, so the fault surfaces inside run()
  void* out = nullptr;
  std::size_t pitch = 0;
  REQUIRE(cudaMallocPitch(&out, &pitch, 256 * sizeof(float), 128) == cudaSuccess);
  FrameView in;
  in.data = reinterpret_cast<void*>(std::uintptr_t(0x1000));  // no device memory lives there
  in.width = 256;
  in.height = 128;
  in.pitch = 256 * sizeof(float);
  in.format = PixelFormat::R32F;
  in.space = MemorySpace::Device;
  FrameView o = in;
  o.data = out;
  o.pitch = pitch;
  CHECK_THROWS_AS(engine->run(in, o), DeviceError);
  const Image img = rf::test::random_image(64, 48, 1, 9);
  CHECK_NOTHROW(filter_image(spec, img, Backend::Cpu));
#endif
}
