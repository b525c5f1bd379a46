// The pipelined CUDA-GL path of interop.h. Three streams: uploads (host staging to device), compute
// (map, convert, filter, pack) and readback (packed result to pinned host memory), plus an idle
// stream the finished slots are unmapped on. Events order them; the host only ever queries.
#include <glad/gl.h>

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>

#include "app/gui/gl_util.h"
#include "app/gui/interop.h"
#include "app/sources/yuv.h"
#include "filters/core/cuda_check.cuh"
#include "filters/core/device_buffer.cuh"

namespace rf::gui {
namespace {

using app::Encoding;
using rf::cuda::DeviceBuffer;

// ---- Device helpers and kernels ---------------------------------------------------------------

__device__ __forceinline__ const std::uint8_t* row_of(const std::uint8_t* base, std::size_t pitch,
                                                      int y) {
  return base + std::size_t(y) * pitch;
}

__device__ __forceinline__ uchar4 rgb8(int y, int u, int v) {
  std::uint8_t r, g, b;
  app::yuv_to_rgb8(y, u, v, &r, &g, &b);
  return make_uchar4(r, g, b, 255);
}

// One pixel of the frame as it came, as 8-bit RGBA: RGBA8 as is, YUYV and NV12 through BT.601
// (yuv.h, the CPU's conversion). NV12's chroma plane follows `height` rows of luma.
template <Encoding E>
__device__ __forceinline__ uchar4 load_rgba8(const std::uint8_t* raw, std::size_t pitch, int x,
                                             int y, int height) {
  if constexpr (E == Encoding::Yuyv) {
    const std::uint8_t* group = row_of(raw, pitch, y) + std::size_t(x >> 1) * 4;
    return rgb8(group[(x & 1) * 2], group[1], group[3]);
  } else if constexpr (E == Encoding::Nv12) {
    const std::uint8_t* uv = row_of(raw, pitch, height + (y >> 1)) + (x & ~1);
    return rgb8(row_of(raw, pitch, y)[x], uv[0], uv[1]);
  } else {
    return reinterpret_cast<const uchar4*>(row_of(raw, pitch, y))[x];
  }
}

// The uploaded frame into the engine's float input (on [0, 1]) and into the original texture the
// view shows (8 bits, as it came). One thread a pixel: the kernel moves 2 to 4 bytes in and 20
// out per pixel and is bound by memory.
template <Encoding E>
__global__ void convert_8bit(const std::uint8_t* raw, std::size_t raw_pitch, int width, int height,
                             float4* input, std::size_t input_pitch, cudaSurfaceObject_t original) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const uchar4 p = load_rgba8<E>(raw, raw_pitch, x, y, height);
  constexpr float k = 1.0f / 255.0f;
  reinterpret_cast<float4*>(reinterpret_cast<char*>(input) + std::size_t(y) * input_pitch)[x] =
      make_float4(p.x * k, p.y * k, p.z * k, p.w * k);
  surf2Dwrite(p, original, x * int(sizeof(uchar4)), y);
}

// Float frames (HDR stills): uploaded straight into the input; the original texture is float too.
__global__ void show_float(const float4* input, std::size_t input_pitch, int width, int height,
                           cudaSurfaceObject_t original) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float4 v =
      reinterpret_cast<const float4*>(reinterpret_cast<const char*>(input) + y * input_pitch)[x];
  surf2Dwrite(v, original, x * int(sizeof(float4)), y);
}

// A frame filtered again (new parameters) lands in another slot, whose original texture is
// refilled from the input already on the GPU: 8-bit values come back exactly (v = p / 255).
__global__ void show_8bit(const float4* input, std::size_t input_pitch, int width, int height,
                          cudaSurfaceObject_t original) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float4 v =
      reinterpret_cast<const float4*>(reinterpret_cast<const char*>(input) + y * input_pitch)[x];
  surf2Dwrite(make_uchar4(app::unit_to_u8(v.x), app::unit_to_u8(v.y), app::unit_to_u8(v.z),
                          app::unit_to_u8(v.w)),
              original, x * int(sizeof(uchar4)), y);
}

// The float result as 8-bit RGBA for recording and camera out, quantised as the CPU path does.
__global__ void pack_result(cudaSurfaceObject_t result, int width, int height, uchar4* out,
                            std::size_t out_pitch) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float4 v = surf2Dread<float4>(result, x * int(sizeof(float4)), y);
  reinterpret_cast<uchar4*>(reinterpret_cast<char*>(out) + std::size_t(y) * out_pitch)[x] =
      make_uchar4(app::unit_to_u8(v.x), app::unit_to_u8(v.y), app::unit_to_u8(v.z),
                  app::unit_to_u8(v.w));
}

// ---- Host side --------------------------------------------------------------------------------

dim3 grid_for(int width, int height, dim3 block) {
  return dim3((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
}

void log_error(const char* what, cudaError_t err) {
  if (err != cudaSuccess) std::fprintf(stderr, "rfstudio: %s: %s\n", what, cudaGetErrorName(err));
}

// Page-locked host memory: copies from it run asynchronously at full PCIe bandwidth.
struct PinnedBuffer {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  unsigned flags = cudaHostAllocDefault;
  void ensure(std::size_t n) {
    if (ptr && bytes >= n) return;
    reset();
    CUDA_CHECK(cudaHostAlloc(&ptr, n, flags));
    bytes = n;
  }
  void reset() {
    if (ptr) log_error("cudaFreeHost", cudaFreeHost(ptr));
    ptr = nullptr;
    bytes = 0;
  }
  ~PinnedBuffer() { reset(); }
};

// Rows of a frame as uploaded: its bytes per row on the device and the number of rows (NV12's
// chroma rows follow its luma rows in the same buffer).
struct RawShape {
  std::size_t row_bytes = 0;
  std::size_t rows = 0;
  std::size_t host_pitch = 0;
};

RawShape raw_shape(const app::Frame& f) {
  RawShape s;
  if (f.encoding == Encoding::Rgba) {
    s.row_bytes = std::size_t(f.width) * bytes_per_pixel(f.format);
    s.rows = std::size_t(f.height);
    s.host_pitch = s.row_bytes;
  } else {
    s.row_bytes = app::yuv_min_stride(f.encoding, f.width);
    s.rows = f.encoding == Encoding::Nv12 ? std::size_t(f.height) + std::size_t(f.height + 1) / 2
                                          : std::size_t(f.height);
    s.host_pitch = f.stride;
  }
  return s;
}

class CudaGlPipeline final : public GpuPipeline {
 public:
  CudaGlPipeline() {
    for (cudaStream_t* s : {&upload_, &compute_, &readback_, &unmap_})
      CUDA_CHECK(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
    for (Record& r : records_)
      for (cudaEvent_t& e : r.events) CUDA_CHECK(cudaEventCreate(&e));
    for (Slot& s : slots_) s.staging.flags = cudaHostAllocWriteCombined;
    outputs_ = std::make_unique<app::OutputFramePool>(
        kOutputFrames,
        [](std::size_t bytes) {
          void* p = nullptr;
          CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
          return static_cast<std::uint8_t*>(p);
        },
        [](std::uint8_t* p) { log_error("cudaFreeHost", cudaFreeHost(p)); });
  }

  ~CudaGlPipeline() override {
    for (cudaStream_t s : {upload_, compute_, readback_, unmap_})
      log_error("cudaStreamSynchronize", cudaStreamSynchronize(s));
    release_slots();
    for (Record& r : records_) {
      r.output.reset();
      for (cudaEvent_t e : r.events) cudaEventDestroy(e);
    }
    for (cudaStream_t s : {upload_, compute_, readback_, unmap_}) cudaStreamDestroy(s);
  }

  bool configure(int width, int height, bool float_frames, std::string* why) override {
    if (width == width_ && height == height_ && float_frames == float_frames_ && configured_)
      return true;
    wait_idle();
    settle();
    release_slots();
    configured_ = false;
    width_ = width;
    height_ = height;
    float_frames_ = float_frames;
    input_.allocate_pitched(std::size_t(width) * sizeof(float4), std::size_t(height));
    for (Slot& s : slots_) {
      s.original.allocate(float_frames ? GL_RGBA32F : GL_RGBA8, width, height);
      s.result.allocate(GL_RGBA32F, width, height);
      const GLuint textures[2] = {s.original.id(), s.result.id()};
      for (int k = 0; k < 2; ++k) {
        const cudaError_t err = cudaGraphicsGLRegisterImage(
            &s.resources[k], textures[k], GL_TEXTURE_2D, cudaGraphicsRegisterFlagsSurfaceLoadStore);
        if (err != cudaSuccess) {
          cudaGetLastError();
          s.resources[k] = nullptr;
          release_slots();
          if (why)
            *why = std::string("cudaGraphicsGLRegisterImage: ") + cudaGetErrorName(err) + " (" +
                   cudaGetErrorString(err) + ")";
          return false;
        }
      }
    }
    configured_ = true;
    return true;
  }

  bool can_submit(bool want_output) override {
    if (!configured_ || int(pending_.size()) >= kRecords - 1) return false;
    if (want_output && outputs_->available() == 0) return false;
    return free_slot() >= 0;
  }

  void submit(Engine& engine, const app::Frame* frame, std::uint64_t version, std::uint64_t index,
              bool want_output, std::chrono::steady_clock::time_point arrival) override {
    const int slot_index = free_slot();
    if (slot_index < 0 || !configured_)
      throw std::logic_error("GpuPipeline::submit without a slot");
    Slot& s = slots_[slot_index];
    const int record_index = next_record_;
    Record& r = records_[record_index];
    r = Record{r.events};
    r.slot = slot_index;
    r.version = version;
    r.index = index;
    r.arrival = arrival;
    r.uploaded = frame != nullptr;
    if (want_output) {
      r.output = outputs_->acquire(width_, height_);
      if (!r.output) throw std::logic_error("GpuPipeline::submit without an output buffer");
    }
    s.pending = true;
    try {
      if (frame) upload(s, r, *frame, version);
      CUDA_CHECK(cudaEventRecord(r.events[kMapBegin], compute_));
      // Waits, on the GPU, for the GL commands issued so far (those that last read this slot).
      CUDA_CHECK(cudaGraphicsMapResources(2, s.resources, compute_));
      s.mapped = true;
      update_surfaces(s);
      CUDA_CHECK(cudaEventRecord(r.events[kConvertBegin], compute_));
      const dim3 block(32, 8);
      const dim3 grid = grid_for(width_, height_, block);
      float4* input = static_cast<float4*>(input_.ptr);
      if (frame && !float_frames_) {
        const std::uint8_t* raw = static_cast<const std::uint8_t*>(s.raw.ptr);
        switch (frame->encoding) {
          case Encoding::Rgba:
            convert_8bit<Encoding::Rgba><<<grid, block, 0, compute_>>>(
                raw, s.raw.pitch, width_, height_, input, input_.pitch, s.original_surface);
            break;
          case Encoding::Yuyv:
            convert_8bit<Encoding::Yuyv><<<grid, block, 0, compute_>>>(
                raw, s.raw.pitch, width_, height_, input, input_.pitch, s.original_surface);
            break;
          case Encoding::Nv12:
            convert_8bit<Encoding::Nv12><<<grid, block, 0, compute_>>>(
                raw, s.raw.pitch, width_, height_, input, input_.pitch, s.original_surface);
            break;
        }
      } else if (float_frames_) {
        show_float<<<grid, block, 0, compute_>>>(input, input_.pitch, width_, height_,
                                                 s.original_surface);
      } else {
        show_8bit<<<grid, block, 0, compute_>>>(input, input_.pitch, width_, height_,
                                                s.original_surface);
      }
      CUDA_CHECK_LAUNCH();
      CUDA_CHECK(cudaEventRecord(r.events[kFilterBegin], compute_));

      FrameView in;
      in.data = input_.ptr;
      in.width = width_;
      in.height = height_;
      in.pitch = input_.pitch;
      in.format = PixelFormat::RGBA32F;
      in.space = MemorySpace::Device;
      FrameView out = in;
      out.data = nullptr;
      out.pitch = 0;
      out.surface = s.result_surface;
      out.space = MemorySpace::CudaSurface;
      engine.run(in, out, compute_);
      CUDA_CHECK(cudaEventRecord(r.events[kFilterEnd], compute_));
      r.stages = engine.timings();

      if (r.output) {
        if (!s.packed.ptr)
          s.packed.allocate_pitched(std::size_t(width_) * sizeof(uchar4), std::size_t(height_));
        pack_result<<<grid, block, 0, compute_>>>(
            s.result_surface, width_, height_, static_cast<uchar4*>(s.packed.ptr), s.packed.pitch);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(r.events[kPacked], compute_));
        CUDA_CHECK(cudaStreamWaitEvent(readback_, r.events[kPacked], 0));
        CUDA_CHECK(cudaEventRecord(r.events[kReadbackBegin], readback_));
        CUDA_CHECK(cudaMemcpy2DAsync(r.output->data, std::size_t(width_) * 4, s.packed.ptr,
                                     s.packed.pitch, std::size_t(width_) * 4, std::size_t(height_),
                                     cudaMemcpyDeviceToHost, readback_));
        CUDA_CHECK(cudaEventRecord(r.events[kReadbackEnd], readback_));
      }
      CUDA_CHECK(cudaEventRecord(r.events[kDone], compute_));
    } catch (...) {
      // The slot goes back unused; what was queued on the GPU is waited for first.
      cudaStreamSynchronize(compute_);
      cudaStreamSynchronize(readback_);
      if (s.mapped) cudaGraphicsUnmapResources(2, s.resources, unmap_);
      s.mapped = false;
      s.pending = false;
      s.staged_version = ~0ull;
      r.output.reset();
      throw;
    }
    pending_.push_back(record_index);
    next_record_ = (next_record_ + 1) % kRecords;
  }

  std::vector<PipelineFrame> take_finished() override {
    std::vector<PipelineFrame> done;
    done.swap(settled_);
    // Compute finished: unmap the slot and show it. Frames finish in submission order, since one
    // stream computes them.
    for (int i : pending_) {
      Record& r = records_[i];
      if (r.computed) continue;
      if (!ready(r.events[kDone])) break;
      Slot& s = slots_[r.slot];
      // Nothing is pending on the unmap stream, so no later GL command waits on CUDA work.
      CUDA_CHECK(cudaGraphicsUnmapResources(2, s.resources, unmap_));
      s.mapped = false;
      if (shown_ >= 0) slots_[shown_].shown = false;
      shown_ = r.slot;
      s.shown = true;
      r.computed = true;
      r.latency_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r.arrival)
              .count();
    }
    // Fully finished, readback included: report in order and free the slot's buffers.
    while (!pending_.empty()) {
      Record& r = records_[pending_.front()];
      if (!r.computed || (r.output && !ready(r.events[kReadbackEnd]))) break;
      done.push_back(finish(r));
      slots_[r.slot].pending = false;
      last_done_ = pending_.front();
      pending_.pop_front();
    }
    return done;
  }

  void wait_idle() override {
    for (cudaStream_t s : {upload_, compute_, readback_}) CUDA_CHECK(cudaStreamSynchronize(s));
  }

  int in_flight() const override { return int(pending_.size()); }

  unsigned original_texture() const override {
    return shown_ >= 0 ? slots_[shown_].original.id() : 0;
  }
  unsigned result_texture() const override { return shown_ >= 0 ? slots_[shown_].result.id() : 0; }

 private:
  static constexpr int kRecords = 8;  // more than can be in flight: a finished frame's events
                                      // stay readable while the next ones are queued
  static constexpr std::size_t kOutputFrames = 6;
  enum EventIndex {
    kUploadBegin,
    kUploadEnd,
    kMapBegin,
    kConvertBegin,
    kFilterBegin,
    kFilterEnd,
    kPacked,
    kReadbackBegin,
    kReadbackEnd,
    kDone,
    kEventCount
  };

  struct Slot {
    Texture original, result;
    cudaGraphicsResource_t resources[2] = {nullptr, nullptr};
    cudaArray_t arrays[2] = {nullptr, nullptr};  // what the surfaces were made for
    cudaSurfaceObject_t original_surface = 0, result_surface = 0;
    PinnedBuffer staging;
    std::uint64_t staged_version = ~0ull;  // the frame the staging buffer holds
    DeviceBuffer raw, packed;
    RawShape raw_shape;
    bool mapped = false;
    bool pending = false;  // a frame in flight or reading back
    bool shown = false;    // the view draws its textures
  };

  struct Record {
    cudaEvent_t events[kEventCount] = {};
    int slot = -1;
    std::uint64_t version = 0, index = 0;
    std::chrono::steady_clock::time_point arrival;
    bool uploaded = false;
    bool computed = false;
    double latency_ms = 0.0;
    std::vector<StageTime> stages;
    std::shared_ptr<app::OutputFrame> output;

    Record() = default;
    explicit Record(const cudaEvent_t (&e)[kEventCount]) { std::copy(e, e + kEventCount, events); }
  };

  int free_slot() const {
    for (int i = 0; i < kSlots; ++i)
      if (!slots_[i].pending && !slots_[i].shown) return i;
    return -1;
  }

  bool ready(cudaEvent_t e) const {
    const cudaError_t err = cudaEventQuery(e);
    if (err == cudaSuccess) return true;
    if (err == cudaErrorNotReady) return false;
    CUDA_CHECK(err);
    return false;
  }

  float elapsed(cudaEvent_t a, cudaEvent_t b) const {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms;
  }

  // Host frame -> pinned staging (skipped when the slot holds this frame already, as when the
  // same frame is uploaded every frame for timing) -> the slot's device buffer, on the upload
  // stream. The slot is free, so its previous convert has read the device buffer already.
  void upload(Slot& s, Record& r, const app::Frame& f, std::uint64_t version) {
    if (f.width != width_ || f.height != height_)
      throw std::logic_error("GpuPipeline: frame size differs from the configured size");
    if ((f.format == PixelFormat::RGBA32F) != float_frames_ || f.format == PixelFormat::R32F)
      throw std::logic_error("GpuPipeline: frame format differs from the configured one");
    const RawShape shape = raw_shape(f);
    if (shape.host_pitch < shape.row_bytes)
      throw std::runtime_error("frame rows of " + std::to_string(shape.host_pitch) +
                               " bytes are shorter than its width needs");
    if (f.bytes.size() < shape.host_pitch * (shape.rows - 1) + shape.row_bytes)
      throw std::runtime_error("frame has fewer bytes than its size needs");
    if (s.staged_version != version) {
      s.staging.ensure(f.bytes.size());
      std::memcpy(s.staging.ptr, f.bytes.data(), f.bytes.size());
      s.staged_version = version;
    }
    void* destination = nullptr;
    std::size_t destination_pitch = 0;
    if (float_frames_) {
      // Float frames go straight into the engine's input; the compute stream has finished with
      // it once the previous frame's filter is done, which the upload waits for.
      CUDA_CHECK(cudaStreamWaitEvent(upload_, last_filter_end(), 0));
      destination = input_.ptr;
      destination_pitch = input_.pitch;
    } else {
      if (!s.raw.ptr || s.raw_shape.row_bytes != shape.row_bytes ||
          s.raw_shape.rows != shape.rows) {
        s.raw.allocate_pitched(shape.row_bytes, shape.rows);
        s.raw_shape = shape;
      }
      destination = s.raw.ptr;
      destination_pitch = s.raw.pitch;
    }
    CUDA_CHECK(cudaEventRecord(r.events[kUploadBegin], upload_));
    CUDA_CHECK(cudaMemcpy2DAsync(destination, destination_pitch, s.staging.ptr, shape.host_pitch,
                                 shape.row_bytes, shape.rows, cudaMemcpyHostToDevice, upload_));
    CUDA_CHECK(cudaEventRecord(r.events[kUploadEnd], upload_));
    CUDA_CHECK(cudaStreamWaitEvent(compute_, r.events[kUploadEnd], 0));
  }

  // The newest submitted frame's filter-end event (an event never recorded counts as complete).
  cudaEvent_t last_filter_end() const {
    const int last = (next_record_ + kRecords - 1) % kRecords;
    return records_[last].events[kFilterEnd];
  }

  // Surface objects are made once per mapped array: the array of a registered texture stays the
  // same from one map to the next, and the engine's CUDA graph keys on the surface it writes.
  void update_surfaces(Slot& s) {
    cudaArray_t arrays[2] = {nullptr, nullptr};
    for (int k = 0; k < 2; ++k)
      CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&arrays[k], s.resources[k], 0, 0));
    cudaSurfaceObject_t* surfaces[2] = {&s.original_surface, &s.result_surface};
    for (int k = 0; k < 2; ++k) {
      if (*surfaces[k] && arrays[k] == s.arrays[k]) continue;
      if (*surfaces[k]) cudaDestroySurfaceObject(*surfaces[k]);
      *surfaces[k] = 0;
      cudaResourceDesc desc{};
      desc.resType = cudaResourceTypeArray;
      desc.res.array.array = arrays[k];
      CUDA_CHECK(cudaCreateSurfaceObject(surfaces[k], &desc));
      s.arrays[k] = arrays[k];
    }
  }

  PipelineFrame finish(Record& r) {
    PipelineFrame f;
    f.version = r.version;
    f.index = r.index;
    FrameTiming& t = f.timing;
    t.gpu_events = true;
    t.interop = true;
    t.pipelined = true;
    t.uploaded = r.uploaded;
    if (r.uploaded) t.upload_ms = elapsed(r.events[kUploadBegin], r.events[kUploadEnd]);
    // From the map call to the convert: the GPU waiting for GL and the driver's map work.
    t.interop_ms = elapsed(r.events[kMapBegin], r.events[kConvertBegin]);
    t.convert_ms = elapsed(r.events[kConvertBegin], r.events[kFilterBegin]);
    t.filter_ms = elapsed(r.events[kFilterBegin], r.events[kFilterEnd]);
    if (r.output) t.readback_ms = elapsed(r.events[kReadbackBegin], r.events[kReadbackEnd]);
    if (last_done_ >= 0)
      t.interval_ms = elapsed(records_[last_done_].events[kDone], r.events[kDone]);
    t.latency_ms = r.latency_ms;
    t.stages = r.stages;
    if (r.output) {
      r.output->index = r.index;
      f.output = std::move(r.output);
    }
    return f;
  }

  // Collects the frames finished before a reconfiguration; take_finished() reports them first, so
  // nothing submitted is lost.
  void settle() {
    auto finished = take_finished();
    settled_.insert(settled_.end(), std::make_move_iterator(finished.begin()),
                    std::make_move_iterator(finished.end()));
  }

  void release_slots() {
    for (Slot& s : slots_) {
      if (s.mapped) log_error("unmap", cudaGraphicsUnmapResources(2, s.resources, unmap_));
      s.mapped = false;
      for (cudaSurfaceObject_t* surface : {&s.original_surface, &s.result_surface}) {
        if (*surface) cudaDestroySurfaceObject(*surface);
        *surface = 0;
      }
      s.arrays[0] = s.arrays[1] = nullptr;
      for (cudaGraphicsResource_t& res : s.resources) {
        if (res) log_error("cudaGraphicsUnregisterResource", cudaGraphicsUnregisterResource(res));
        res = nullptr;
      }
      s.shown = false;
      s.pending = false;
      s.staged_version = ~0ull;
    }
    shown_ = -1;
    last_done_ = -1;
  }

  cudaStream_t upload_ = nullptr, compute_ = nullptr, readback_ = nullptr, unmap_ = nullptr;
  Slot slots_[kSlots];
  Record records_[kRecords];
  std::deque<int> pending_;  // records in flight, oldest first
  std::vector<PipelineFrame> settled_;
  int next_record_ = 0;
  int last_done_ = -1;  // the record finished last (its done event times the next interval)
  int shown_ = -1;
  DeviceBuffer input_;  // the engine's float RGBA input
  int width_ = 0, height_ = 0;
  bool float_frames_ = false;
  bool configured_ = false;
  std::unique_ptr<app::OutputFramePool> outputs_;
};

}  // namespace

std::unique_ptr<GpuPipeline> make_cuda_gl_pipeline(std::string* why) {
  std::string reason;
  if (!cuda_available(&reason)) {
    if (why) *why = reason;
    return nullptr;
  }
  try {
    return std::make_unique<CudaGlPipeline>();
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return nullptr;
  }
}

}  // namespace rf::gui
