// The parts of the processing path that need no GL: the frame as each path takes it, and the
// choice of engine and path with its fallbacks.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <string>

#include "app/gui/engine_choice.h"
#include "app/gui/frame_input.h"
#include "app/sources/pattern.h"
#include "filters/core/errors.h"

using namespace rf;
using namespace rf::gui;

namespace {

app::Frame rgba8_frame(int w, int h) {
  app::Frame f;
  f.width = w;
  f.height = h;
  f.format = PixelFormat::RGBA8;
  f.index = 7;
  f.bytes.resize(std::size_t(w) * h * 4);
  for (std::size_t i = 0; i < f.bytes.size(); ++i) f.bytes[i] = std::uint8_t((i * 37 + 11) % 256);
  return f;
}

// A pipeline that is never used: it only marks the pipelined path as taken.
class IdlePipeline final : public GpuPipeline {
 public:
  bool configure(int, int, bool, std::string*) override { return true; }
  bool can_submit(bool) override { return true; }
  void submit(Engine&, const app::Frame*, std::uint64_t, std::uint64_t, bool, bool,
              std::chrono::steady_clock::time_point) override {}
  std::vector<PipelineFrame> take_finished() override { return {}; }
  void wait_idle() override {}
  int in_flight() const override { return 0; }
  unsigned original_texture() const override { return 0; }
  unsigned result_texture() const override { return 0; }
};

// The CPU engine, reporting itself as CUDA.
class PretendCudaEngine final : public Engine {
 public:
  Backend backend() const override { return Backend::Cuda; }
  std::string description() const override { return "pretend CUDA"; }
  std::string method() const override { return inner_->method(); }
  std::string algorithm() const override { return inner_->algorithm(); }
  void plan_batch(const FilterSpec& s, int w, int h, int n, PixelFormat f) override {
    inner_->plan_batch(s, w, h, n, f);
  }
  void run(const FrameView& in, const FrameView& out, void* stream) override {
    inner_->run(in, out, stream);
  }
  void set_timing(bool on) override { inner_->set_timing(on); }
  std::vector<StageTime> timings() const override { return inner_->timings(); }

 private:
  std::unique_ptr<Engine> inner_ = make_cpu_engine();
};

std::unique_ptr<Engine> pretend_cuda(Backend, std::string*) {
  return std::make_unique<PretendCudaEngine>();
}
std::unique_ptr<GpuPipeline> idle_pipeline(std::string*) {
  return std::make_unique<IdlePipeline>();
}
std::unique_ptr<GpuPipeline> no_pipeline(std::string* why) {
  *why = "no interop here";
  return nullptr;
}

}  // namespace

TEST_CASE("frame input: 8-bit samples decode by the library's from_unorm8, bit for bit") {
  const app::Frame f = rgba8_frame(5, 3);
  FrameInput in;
  CHECK_FALSE(in.has_frame());
  in.set(f);
  REQUIRE(in.has_frame());
  CHECK(in.width() == 5);
  CHECK(in.height() == 3);
  CHECK(in.version() == 1);
  CHECK_FALSE(in.input_ready());
  const Image& img = in.input();
  REQUIRE(img.pixels.size() == f.bytes.size());
  for (std::size_t i = 0; i < f.bytes.size(); ++i) {
    CAPTURE(i);
    const float want = from_unorm8(f.bytes[i]);
    CHECK(std::memcmp(&img.pixels[i], &want, sizeof want) == 0);
  }
  CHECK(in.input_ready());
  // Both paths take an RGBA8 frame as it came.
  CHECK(&in.prepared(true) == &f);
  CHECK(&in.prepared(false) == &f);
  in.set(f);
  CHECK(in.version() == 2);
  CHECK_FALSE(in.input_ready());
}

TEST_CASE("frame input: a one-channel float frame is widened to RGBA for either path") {
  app::Frame f;
  f.width = 3;
  f.height = 2;
  f.format = PixelFormat::R32F;
  const float values[6] = {0.0f, 0.25f, -1.5f, 2.0f, 0.5f, 1e-7f};
  f.bytes.resize(sizeof values);
  std::memcpy(f.bytes.data(), values, sizeof values);
  FrameInput in;
  in.set(f);
  const app::Frame& gpu = in.prepared(true);
  REQUIRE(gpu.format == PixelFormat::RGBA32F);
  const float* rgba = reinterpret_cast<const float*>(gpu.bytes.data());
  const Image& img = in.input();
  for (int i = 0; i < 6; ++i)
    for (int c = 0; c < 4; ++c) {
      const float want = c < 3 ? values[i] : 1.0f;
      CHECK(rgba[4 * i + c] == want);
      CHECK(img.pixels[4 * i + c] == want);
    }
  // The copy path takes any RGBA encoding as it came, floats included.
  CHECK(&in.prepared(false) == &f);
}

TEST_CASE("frame input: camera formats pass to the GPU as they came, to the copy path as RGBA") {
  const app::Frame yuyv = app::render_pattern("moving-bar", 16, 8, 3, app::Encoding::Yuyv);
  app::Frame rgba;
  app::to_rgba(yuyv, rgba);
  FrameInput in;
  in.set(yuyv);
  CHECK(&in.prepared(true) == &yuyv);
  const app::Frame& copy = in.prepared(false);
  CHECK(copy.encoding == app::Encoding::Rgba);
  CHECK(copy.bytes == rgba.bytes);
  const Image& img = in.input();
  for (std::size_t i = 0; i < rgba.bytes.size(); ++i)
    CHECK(img.pixels[i] == from_unorm8(rgba.bytes[i]));
}

TEST_CASE("frame input: a frame sent again is converted again, its version kept") {
  // A camera format, so that both conversions (to RGBA for the copy path, to float) are made.
  app::Frame yuyv = app::render_pattern("moving-bar", 16, 8, 3, app::Encoding::Yuyv);
  FrameInput in;
  in.set(yuyv);
  in.input();
  in.prepared(false);
  REQUIRE(in.input_ready());
  const auto first = in.arrival();
  // What the conversions read changes (a frame sent again is the same, but the test must see
  // that they ran again, not that they kept their results).
  for (std::uint8_t& b : yuyv.bytes) b = std::uint8_t(b ^ 0x5a);
  app::Frame rgba;
  app::to_rgba(yuyv, rgba);
  in.resend();
  CHECK(in.version() == 1);
  CHECK(in.arrival() >= first);
  // The path's upload source again; the float input only when the copy path asks for it.
  CHECK(in.prepared(false).bytes == rgba.bytes);
  CHECK(in.input_ready());
  in.reconvert_input();
  CHECK_FALSE(in.input_ready());
  const Image& img = in.input();
  REQUIRE(img.pixels.size() == rgba.bytes.size());
  for (std::size_t i = 0; i < rgba.bytes.size(); ++i)
    CHECK(img.pixels[i] == from_unorm8(rgba.bytes[i]));
  CHECK(in.input_ready());
}

TEST_CASE("engine choice: the CPU, CUDA with and without interop, and the steps down") {
  std::string error;
  EngineChoice cpu;
  CHECK(cpu.select(Backend::Cpu, make_engine, idle_pipeline, &error));
  CHECK_FALSE(cpu.select(Backend::Cpu, make_engine, idle_pipeline, &error));  // made already
  CHECK(cpu.running_backend() == Backend::Cpu);
  CHECK(cpu.pipeline() == nullptr);
  CHECK(cpu.path_line() == "copy path (glTexSubImage2D)");
  CHECK(error.empty());
  CHECK_FALSE(cpu.fall_back_to_cpu("nothing to replace"));

  EngineChoice interop;
  CHECK(interop.select(Backend::Cuda, pretend_cuda, idle_pipeline, &error));
  REQUIRE(interop.pipeline() != nullptr);
  CHECK(interop.path_line().rfind("CUDA-GL interop, pipelined", 0) == 0);
  CHECK(interop.backend_line() == "pretend CUDA");
  const std::unique_ptr<GpuPipeline> failed = interop.drop_pipeline("out of memory");
  CHECK(failed != nullptr);
  CHECK(interop.pipeline() == nullptr);
  CHECK(interop.path_line() == "copy path: CUDA-GL interop failed (out of memory)");
  CHECK(interop.running_backend() == Backend::Cuda);
  CHECK(interop.fall_back_to_cpu("illegal address"));
  CHECK(interop.running_backend() == Backend::Cpu);
  CHECK(interop.backend_line().find("(CUDA failed: illegal address; running on CPU)") !=
        std::string::npos);
  const std::vector<std::string> notices = interop.take_notices();
  REQUIRE(notices.size() == 2);
  CHECK(notices[0] == "GPU fault on the interop path (out of memory): using the copy path");
  CHECK(notices[1] == "GPU fault (illegal address): running on the CPU backend");
  CHECK(interop.take_notices().empty());

  EngineChoice copy;
  copy.select(Backend::Cuda, pretend_cuda, no_pipeline, &error);
  CHECK(copy.pipeline() == nullptr);
  CHECK(copy.path_line() == "copy path: no interop here");

  // A factory that refuses gives the CPU engine, and the reason.
  EngineChoice refused;
  refused.select(
      Backend::Cuda,
      [](Backend, std::string*) -> std::unique_ptr<Engine> { throw DeviceError("no device"); },
      idle_pipeline, &error);
  CHECK(error == "no device");
  CHECK(refused.running_backend() == Backend::Cpu);
  CHECK(refused.backend_line().find("(no device: running on CPU)") != std::string::npos);
  // Another backend asked for makes the engine anew.
  CHECK(refused.select(Backend::Cpu, make_engine, idle_pipeline, &error));
}
