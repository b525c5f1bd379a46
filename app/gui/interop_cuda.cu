// The pipelined CUDA-GL path of interop.h. Four streams: uploads (host staging to device), compute
// (convert, filter, pack), readback (packed result to pinned host memory) and present (the newest
// finished frame into the view's textures, between a map and an unmap). Events order them; the
// host only ever queries. Compute never maps a GL texture, so it never waits for GL.
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

template <class T>
__device__ __forceinline__ T* pixel(void* base, std::size_t pitch, int x, int y) {
  return reinterpret_cast<T*>(static_cast<char*>(base) + std::size_t(y) * pitch) + x;
}
template <class T>
__device__ __forceinline__ const T& pixel(const void* base, std::size_t pitch, int x, int y) {
  return reinterpret_cast<const T*>(static_cast<const char*>(base) + std::size_t(y) * pitch)[x];
}

// The uploaded frame as 8-bit RGBA into the engine's input and into the slot's original, which
// the view shows. The engine reads 8-bit RGBA itself (v / 255) and writes its float result, so
// no float copy of the frame is made. One thread a pixel: 2 to 4 bytes in, 8 out.
template <Encoding E>
__global__ void convert_8bit(const std::uint8_t* raw, std::size_t raw_pitch, int width, int height,
                             uchar4* input, std::size_t input_pitch, uchar4* original,
                             std::size_t original_pitch) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const uchar4 p = load_rgba8<E>(raw, raw_pitch, x, y, height);
  *pixel<uchar4>(input, input_pitch, x, y) = p;
  *pixel<uchar4>(original, original_pitch, x, y) = p;
}

// The float result as 8-bit RGBA for recording and camera out, by the library's encode
// (image.h's to_unorm8), as the CPU path quantises.
__global__ void pack_result(const float4* result, std::size_t result_pitch, int width, int height,
                            uchar4* out, std::size_t out_pitch) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float4 v = pixel<float4>(result, result_pitch, x, y);
  *pixel<uchar4>(out, out_pitch, x, y) =
      make_uchar4(to_unorm8(v.x), to_unorm8(v.y), to_unorm8(v.z), to_unorm8(v.w));
}

// The view's textures from a finished slot: its original (8-bit, or float for float frames) and
// its float result, through surfaces of the mapped arrays. A kernel rather than copies to the
// arrays, so that presenting leaves the copy engines to the uploads and readbacks.
template <class Original>
__global__ void present_kernel(const void* original, std::size_t original_pitch,
                               const float4* result, std::size_t result_pitch, int width,
                               int height, cudaSurfaceObject_t original_surface,
                               cudaSurfaceObject_t result_surface) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  surf2Dwrite(pixel<Original>(original, original_pitch, x, y), original_surface,
              x * int(sizeof(Original)), y);
  surf2Dwrite(pixel<float4>(result, result_pitch, x, y), result_surface, x * int(sizeof(float4)),
              y);
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
    for (cudaStream_t* s : {&upload_, &compute_, &readback_})
      CUDA_CHECK(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
    // The present runs before the filters queued behind it: GL's next frame waits for it, and
    // the UI thread for GL.
    int least = 0, greatest = 0;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&present_, cudaStreamNonBlocking, greatest));
    for (Record& r : records_)
      for (cudaEvent_t& e : r.events) CUDA_CHECK(cudaEventCreate(&e));
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
    for (cudaStream_t s : {upload_, compute_, readback_, present_})
      log_error("cudaStreamSynchronize", cudaStreamSynchronize(s));
    release_display();
    for (Record& r : records_) {
      r.output.reset();
      for (cudaEvent_t e : r.events) cudaEventDestroy(e);
    }
    for (cudaStream_t s : {upload_, compute_, readback_, present_}) cudaStreamDestroy(s);
  }

  bool configure(int width, int height, bool float_frames, std::string* why) override {
    if (width == width_ && height == height_ && float_frames == float_frames_ && configured_)
      return true;
    wait_idle();
    settle();  // the frames finished before the new size, reported first
    release_display();
    configured_ = false;
    width_ = width;
    height_ = height;
    float_frames_ = float_frames;
    // The view's textures first: a size the driver refuses fails here, before any slot memory.
    display_original_.allocate(float_frames ? GL_RGBA32F : GL_RGBA8, width, height);
    display_result_.allocate(GL_RGBA32F, width, height);
    const GLuint textures[2] = {display_original_.id(), display_result_.id()};
    for (int k = 0; k < 2; ++k) {
      const cudaError_t err = cudaGraphicsGLRegisterImage(
          &display_[k], textures[k], GL_TEXTURE_2D, cudaGraphicsRegisterFlagsSurfaceLoadStore);
      if (err != cudaSuccess) {
        cudaGetLastError();
        display_[k] = nullptr;
        release_display();
        if (why)
          *why = std::string("cudaGraphicsGLRegisterImage: ") + cudaGetErrorName(err) + " (" +
                 cudaGetErrorString(err) + ")";
        return false;
      }
    }
    for (Slot& s : slots_) s.release();
    input_.allocate_pitched(std::size_t(width) * original_bytes(), std::size_t(height));
    slot_count_ = slots_for(width, height);
    for (int i = 0; i < slot_count_; ++i) {
      Slot& s = slots_[i];
      s.staging.flags = cudaHostAllocWriteCombined;
      s.original.allocate_pitched(std::size_t(width) * original_bytes(), std::size_t(height));
      s.result.allocate_pitched(std::size_t(width) * sizeof(float4), std::size_t(height));
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
              bool want_output, bool repeat,
              std::chrono::steady_clock::time_point arrival) override {
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
    r.sequence = ++next_sequence_;
    // Pixels the same as the previous submission's share its content, which the view may show.
    if (!repeat || last_content_ == 0) ++last_content_;
    r.content = last_content_;
    if (want_output) {
      r.output = outputs_->acquire(width_, height_);
      if (!r.output) throw std::logic_error("GpuPipeline::submit without an output buffer");
    }
    s.pending = true;
    try {
      if (frame) upload(s, r, *frame, version);
      CUDA_CHECK(cudaEventRecord(r.events[kConvertBegin], compute_));
      const dim3 block(32, 8);
      const dim3 grid = grid_for(width_, height_, block);
      if (frame && !float_frames_) {
        const std::uint8_t* raw = static_cast<const std::uint8_t*>(s.raw.ptr);
        uchar4* input = static_cast<uchar4*>(input_.ptr);
        uchar4* original = static_cast<uchar4*>(s.original.ptr);
        switch (frame->encoding) {
          case Encoding::Rgba:
            convert_8bit<Encoding::Rgba><<<grid, block, 0, compute_>>>(
                raw, s.raw.pitch, width_, height_, input, input_.pitch, original, s.original.pitch);
            break;
          case Encoding::Yuyv:
            convert_8bit<Encoding::Yuyv><<<grid, block, 0, compute_>>>(
                raw, s.raw.pitch, width_, height_, input, input_.pitch, original, s.original.pitch);
            break;
          case Encoding::Nv12:
            convert_8bit<Encoding::Nv12><<<grid, block, 0, compute_>>>(
                raw, s.raw.pitch, width_, height_, input, input_.pitch, original, s.original.pitch);
            break;
        }
        CUDA_CHECK_LAUNCH();
      } else {
        // The input holds the frame (a float frame uploaded there, or the frame of an earlier
        // submission); the slot keeps its own copy for the view.
        CUDA_CHECK(cudaMemcpy2DAsync(s.original.ptr, s.original.pitch, input_.ptr, input_.pitch,
                                     std::size_t(width_) * original_bytes(), std::size_t(height_),
                                     cudaMemcpyDeviceToDevice, compute_));
      }
      CUDA_CHECK(cudaEventRecord(r.events[kFilterBegin], compute_));

      FrameView in;
      in.data = input_.ptr;
      in.width = width_;
      in.height = height_;
      in.pitch = input_.pitch;
      in.format = float_frames_ ? PixelFormat::RGBA32F : PixelFormat::RGBA8;
      in.space = MemorySpace::Device;
      FrameView out = in;
      out.data = s.result.ptr;
      out.pitch = s.result.pitch;
      out.format = PixelFormat::RGBA32F;
      engine.run(in, out, compute_);
      CUDA_CHECK(cudaEventRecord(r.events[kFilterEnd], compute_));
      r.stages = engine.timings();

      if (r.output) {
        if (!s.packed.ptr)
          s.packed.allocate_pitched(std::size_t(width_) * sizeof(uchar4), std::size_t(height_));
        pack_result<<<grid, block, 0, compute_>>>(
            static_cast<const float4*>(s.result.ptr), s.result.pitch, width_, height_,
            static_cast<uchar4*>(s.packed.ptr), s.packed.pitch);
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
    // Compute finished (in submission order: one stream computes them). Of the frames that
    // finished since the last call only the newest is presented; the others are reported as
    // filtered (timing, recording, camera out) but never drawn.
    int newest = -1;
    for (int i : pending_) {
      Record& r = records_[i];
      if (!r.computed) {
        if (!ready(r.events[kDone])) break;
        r.computed = true;
        r.latency_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r.arrival)
                .count();
      }
      if (newer_than_shown(r)) newest = i;
    }
    if (newest >= 0 && !present_in_flight()) {
      Record& r = records_[newest];
      if (r.content == shown_content_) {
        // Live timing of an unchanged frame: the view shows these pixels already.
        r.presented = true;
        shown_version_ = r.version;
        shown_sequence_ = r.sequence;
      } else {
        present(newest);
      }
    }
    // Reported in order once finished, readback included, and a presented frame once its copy
    // has run. The frames before it were never drawn and need not wait for it.
    while (!pending_.empty()) {
      const int i = pending_.front();
      Record& r = records_[i];
      if (!r.computed || (r.output && !ready(r.events[kReadbackEnd]))) break;
      if (r.presented ? presenting_ == i && present_in_flight() : newer_than_shown(r)) break;
      done.push_back(finish(r));
      slots_[r.slot].pending = false;
      last_done_ = i;
      pending_.pop_front();
    }
    return done;
  }

  // Everything queued runs, and the newest frame is presented, so that take_finished() then
  // reports every frame.
  void wait_idle() override {
    for (cudaStream_t s : {upload_, compute_, readback_, present_})
      CUDA_CHECK(cudaStreamSynchronize(s));
    settle();
    CUDA_CHECK(cudaStreamSynchronize(present_));
  }

  int in_flight() const override { return int(pending_.size()); }

  unsigned original_texture() const override {
    return shown_version_ != kNothingShown ? display_original_.id() : 0;
  }
  unsigned result_texture() const override {
    return shown_version_ != kNothingShown ? display_result_.id() : 0;
  }

 private:
  // More records than frames can be in flight: a finished frame's events stay readable while the
  // next ones are queued.
  static constexpr int kRecords = kMaxSlots + 4;
  static constexpr std::size_t kOutputFrames = 6;
  static constexpr std::uint64_t kNothingShown = ~0ull;
  enum EventIndex {
    kUploadBegin,
    kUploadEnd,
    kConvertBegin,
    kFilterBegin,
    kFilterEnd,
    kPacked,
    kReadbackBegin,
    kReadbackEnd,
    kDone,
    kPresentBegin,
    kPresentEnd,
    kEventCount
  };

  // One frame's buffers, all on the device: what came from the host, the original as the view
  // shows it (8-bit RGBA, or float for float frames) and the filtered result.
  struct Slot {
    PinnedBuffer staging;
    std::uint64_t staged_version = ~0ull;  // the frame the staging buffer holds
    DeviceBuffer raw, original, result, packed;
    RawShape raw_shape;
    bool pending = false;  // a frame in flight, reading back or being presented

    void release() {
      staging.reset();
      staged_version = ~0ull;
      for (DeviceBuffer* b : {&raw, &original, &result, &packed}) b->reset();
      raw_shape = RawShape{};
      pending = false;
    }
  };

  struct Record {
    cudaEvent_t events[kEventCount] = {};
    int slot = -1;
    std::uint64_t version = 0, index = 0;
    std::uint64_t sequence = 0;  // submission order
    std::uint64_t content = 0;   // equal for submissions that give the same pixels
    std::chrono::steady_clock::time_point arrival;
    bool uploaded = false;
    bool computed = false;
    bool presented = false;  // the view shows its pixels (copied by present(), or already there)
    bool copied = false;     // present() wrote them into the view's textures
    double latency_ms = 0.0;
    std::vector<StageTime> stages;
    std::shared_ptr<app::OutputFrame> output;

    Record() = default;
    explicit Record(const cudaEvent_t (&e)[kEventCount]) { std::copy(e, e + kEventCount, events); }
  };

  std::size_t original_bytes() const { return float_frames_ ? sizeof(float4) : sizeof(uchar4); }

  int free_slot() const {
    for (int i = 0; i < slot_count_; ++i)
      if (!slots_[i].pending) return i;
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

  bool present_in_flight() {
    if (presenting_ < 0) return false;
    if (!ready(records_[presenting_].events[kPresentEnd])) return true;
    presenting_ = -1;
    return false;
  }

  bool newer_than_shown(const Record& r) const {
    return shown_version_ == kNothingShown || r.sequence > shown_sequence_;
  }

  // The view's textures get the finished frame: mapped on the present stream (which waits, on
  // the GPU, for the GL commands issued so far: those that drew the previous frame), written by
  // present_kernel and unmapped, so that GL's next commands wait for it. The slot stays pending
  // until the kernel has run.
  void present(int record_index) {
    Record& r = records_[record_index];
    const Slot& s = slots_[r.slot];
    CUDA_CHECK(cudaEventRecord(r.events[kPresentBegin], present_));
    CUDA_CHECK(cudaGraphicsMapResources(2, display_, present_));
    try {
      update_surfaces();
      const dim3 block(32, 8);
      const dim3 grid = grid_for(width_, height_, block);
      const float4* result = static_cast<const float4*>(s.result.ptr);
      if (float_frames_)
        present_kernel<float4><<<grid, block, 0, present_>>>(s.original.ptr, s.original.pitch,
                                                             result, s.result.pitch, width_,
                                                             height_, surfaces_[0], surfaces_[1]);
      else
        present_kernel<uchar4><<<grid, block, 0, present_>>>(s.original.ptr, s.original.pitch,
                                                             result, s.result.pitch, width_,
                                                             height_, surfaces_[0], surfaces_[1]);
      CUDA_CHECK_LAUNCH();
    } catch (...) {
      cudaGraphicsUnmapResources(2, display_, present_);
      throw;
    }
    CUDA_CHECK(cudaGraphicsUnmapResources(2, display_, present_));
    CUDA_CHECK(cudaEventRecord(r.events[kPresentEnd], present_));
    r.presented = true;
    r.copied = true;
    presenting_ = record_index;
    shown_version_ = r.version;
    shown_sequence_ = r.sequence;
    shown_content_ = r.content;
  }

  // Surface objects are made once per mapped array: the array of a registered texture stays the
  // same from one map to the next.
  void update_surfaces() {
    for (int k = 0; k < 2; ++k) {
      cudaArray_t array = nullptr;
      CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, display_[k], 0, 0));
      if (surfaces_[k] && array == arrays_[k]) continue;
      if (surfaces_[k]) cudaDestroySurfaceObject(surfaces_[k]);
      surfaces_[k] = 0;
      cudaResourceDesc desc{};
      desc.resType = cudaResourceTypeArray;
      desc.res.array.array = array;
      CUDA_CHECK(cudaCreateSurfaceObject(&surfaces_[k], &desc));
      arrays_[k] = array;
    }
  }

  // Slots for frames of this size: as many as kMaxSlots, while their buffers (about 28 bytes a
  // pixel for 8-bit frames, 40 for float ones) stay within 3 GiB and a quarter of the free device
  // memory; at least two. 3840x2160 8-bit frames get all twelve (2.8 GB) where memory allows.
  int slots_for(int width, int height) const {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
      cudaGetLastError();
      return 2;
    }
    const std::size_t per_pixel = float_frames_ ? 40 : 28;
    const std::size_t per_slot = std::size_t(width) * std::size_t(height) * per_pixel;
    const std::size_t budget = std::min<std::size_t>(std::size_t(3) << 30, free_bytes / 4);
    const std::size_t fit = per_slot ? budget / per_slot : kMaxSlots;
    return int(std::clamp<std::size_t>(fit, 2, kMaxSlots));
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
    // The present: map, the copies into the view's textures and the unmap, GL's wait included.
    t.drawn = r.presented;
    if (r.copied) t.interop_ms = elapsed(r.events[kPresentBegin], r.events[kPresentEnd]);
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

  void release_display() {
    for (int k = 0; k < 2; ++k) {
      if (surfaces_[k]) cudaDestroySurfaceObject(surfaces_[k]);
      surfaces_[k] = 0;
      arrays_[k] = nullptr;
    }
    for (cudaGraphicsResource_t& res : display_) {
      if (res) log_error("cudaGraphicsUnregisterResource", cudaGraphicsUnregisterResource(res));
      res = nullptr;
    }
    for (Slot& s : slots_) {
      s.pending = false;
      s.staged_version = ~0ull;
    }
    shown_version_ = kNothingShown;
    shown_sequence_ = 0;
    shown_content_ = 0;
    presenting_ = -1;
    last_done_ = -1;
  }

  cudaStream_t upload_ = nullptr, compute_ = nullptr, readback_ = nullptr, present_ = nullptr;
  Slot slots_[kMaxSlots];
  int slot_count_ = 0;
  Record records_[kRecords];
  std::deque<int> pending_;  // records in flight, oldest first
  std::vector<PipelineFrame> settled_;
  int next_record_ = 0;
  std::uint64_t next_sequence_ = 0;
  int last_done_ = -1;   // the record finished last (its done event times the next interval)
  int presenting_ = -1;  // the record whose present may still be running
  std::uint64_t shown_version_ = kNothingShown, shown_sequence_ = 0;
  std::uint64_t last_content_ = 0, shown_content_ = 0;
  Texture display_original_, display_result_;  // what the view draws
  cudaGraphicsResource_t display_[2] = {nullptr, nullptr};
  cudaArray_t arrays_[2] = {nullptr, nullptr};  // what the surfaces were made for
  cudaSurfaceObject_t surfaces_[2] = {0, 0};
  DeviceBuffer input_;  // the engine's input: the newest frame, 8-bit RGBA or float RGBA
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
