// The pipelined CUDA-GL path of interop.h. Four streams: uploads (host staging to device), compute
// (convert, filter, pack), readback (packed result to pinned host memory) and present (the newest
// finished frame into the view's textures, between a map and an unmap). Events order them; the
// host only ever queries. Compute never maps a GL texture, so it never waits for GL.
// The host side in parts, each with one job: the streams; the frame slots (each frame's staging
// and device buffers); the records, which keep submissions in order with their events and time
// them; the view's textures, registered with CUDA; and the pipeline, which uploads, converts,
// filters, reads back and presents through them.
#include <glad/gl.h>

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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

// The size and kind of the frames the pipeline is configured for.
struct FrameShape {
  int width = 0, height = 0;
  bool float_frames = false;  // RGBA32F originals (HDR stills) rather than 8-bit
  std::size_t original_bytes() const { return float_frames ? sizeof(float4) : sizeof(uchar4); }
  bool operator==(const FrameShape& o) const {
    return width == o.width && height == o.height && float_frames == o.float_frames;
  }
};

// Four streams: uploads (host staging to device), compute (convert, filter, pack), readback
// (packed result to pinned host memory) and present (the newest finished frame into the view's
// textures). The present runs before the filters queued behind it: GL's next frame waits for it,
// and the UI thread for GL.
struct Streams {
  cudaStream_t upload = nullptr, compute = nullptr, readback = nullptr, present = nullptr;

  Streams() {
    for (cudaStream_t* s : {&upload, &compute, &readback})
      CUDA_CHECK(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
    int least = 0, greatest = 0;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&present, cudaStreamNonBlocking, greatest));
  }
  ~Streams() {
    for (cudaStream_t s : {upload, compute, readback, present})
      if (s) cudaStreamDestroy(s);
  }
  Streams(const Streams&) = delete;
  Streams& operator=(const Streams&) = delete;

  void synchronize() const {
    for (cudaStream_t s : {upload, compute, readback, present})
      CUDA_CHECK(cudaStreamSynchronize(s));
  }
  void synchronize_logged() const {
    for (cudaStream_t s : {upload, compute, readback, present})
      log_error("cudaStreamSynchronize", cudaStreamSynchronize(s));
  }
};

// ---- Frame slots ------------------------------------------------------------------------------

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

// Up to kMaxSlots slots, as many as the frames' buffers fit.
class FrameSlots {
 public:
  static constexpr int kMax = GpuPipeline::kMaxSlots;

  // Every slot's buffers go (before a new size takes device memory).
  void release_all() {
    for (Slot& s : slots_) s.release();
    count_ = 0;
  }
  // Slots for frames of this shape, their originals and results allocated.
  void configure(const FrameShape& shape) {
    count_ = slots_for(shape);
    for (int i = 0; i < count_; ++i) {
      Slot& s = slots_[i];
      s.staging.flags = cudaHostAllocWriteCombined;
      const std::size_t w = std::size_t(shape.width), h = std::size_t(shape.height);
      s.original.allocate_pitched(w * shape.original_bytes(), h);
      s.result.allocate_pitched(w * sizeof(float4), h);
    }
  }
  // Every slot free again, its staging forgotten (after the frames in flight were waited for).
  void free_all() {
    for (Slot& s : slots_) {
      s.pending = false;
      s.staged_version = ~0ull;
    }
  }
  // A slot no frame uses, or -1.
  int free_slot() const {
    for (int i = 0; i < count_; ++i)
      if (!slots_[i].pending) return i;
    return -1;
  }
  Slot& operator[](int i) { return slots_[i]; }

 private:
  // As many as kMaxSlots, while their buffers (about 28 bytes a pixel for 8-bit frames, 40 for
  // float ones) stay within 3 GiB and a quarter of the free device memory; at least two.
  // 3840x2160 8-bit frames get all twelve (2.8 GB) where memory allows.
  static int slots_for(const FrameShape& shape) {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
      cudaGetLastError();
      return 2;
    }
    const std::size_t per_pixel = shape.float_frames ? 40 : 28;
    const std::size_t per_slot = std::size_t(shape.width) * std::size_t(shape.height) * per_pixel;
    const std::size_t budget = std::min<std::size_t>(std::size_t(3) << 30, free_bytes / 4);
    const std::size_t fit = per_slot ? budget / per_slot : kMax;
    return int(std::clamp<std::size_t>(fit, 2, kMax));
  }

  Slot slots_[kMax];
  int count_ = 0;
};

// ---- Records: one submission each, in order ----------------------------------------------------

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

struct Record {
  cudaEvent_t events[kEventCount] = {};
  int slot = -1;
  std::uint64_t version = 0, index = 0;
  std::uint64_t sequence = 0;  // submission order
  std::uint64_t content = 0;   // equal for submissions that give the same pixels
  std::chrono::steady_clock::time_point arrival;
  bool uploaded = false;
  bool computed = false;
  bool presented = false;  // the view shows its pixels (copied by a present, or already there)
  bool copied = false;     // a present wrote them into the view's textures
  double latency_ms = 0.0;
  std::vector<StageTime> stages;
  std::shared_ptr<app::OutputFrame> output;
};

// The submissions in flight, oldest first. More records than frames can be in flight: a finished
// frame's events stay readable while the next ones are queued.
class RecordQueue {
 public:
  static constexpr int kRecords = GpuPipeline::kMaxSlots + 4;

  RecordQueue() {
    for (Record& r : records_)
      for (cudaEvent_t& e : r.events) CUDA_CHECK(cudaEventCreate(&e));
  }
  ~RecordQueue() {
    for (Record& r : records_) {
      r.output.reset();
      for (cudaEvent_t e : r.events)
        if (e) cudaEventDestroy(e);
    }
  }
  RecordQueue(const RecordQueue&) = delete;
  RecordQueue& operator=(const RecordQueue&) = delete;

  // Room for one more submission.
  bool has_room() const { return int(pending_.size()) < kRecords - 1; }
  // The record the next submission fills, cleared but for its events; `repeat`: the same pixels
  // as the previous submission, so the same content.
  Record& start(bool repeat) {
    Record& r = records_[next_];
    cudaEvent_t events[kEventCount];
    std::copy(r.events, r.events + kEventCount, events);
    r = Record{};
    std::copy(events, events + kEventCount, r.events);
    r.sequence = ++sequence_;
    if (!repeat || content_ == 0) ++content_;
    r.content = content_;
    return r;
  }
  // The record start() gave goes in flight.
  void commit() {
    pending_.push_back(next_);
    next_ = (next_ + 1) % kRecords;
  }
  // The oldest in flight is finished and reported; it times the next interval.
  void retire_oldest() {
    last_done_ = pending_.front();
    pending_.pop_front();
  }
  void forget_last_done() { last_done_ = -1; }

  const std::deque<int>& pending() const { return pending_; }
  Record& operator[](int i) { return records_[i]; }
  // The record finished last, or null.
  const Record* last_done() const { return last_done_ >= 0 ? &records_[last_done_] : nullptr; }
  // The newest submitted frame's filter-end event (an event never recorded counts as complete).
  cudaEvent_t last_filter_end() const {
    return records_[(next_ + kRecords - 1) % kRecords].events[kFilterEnd];
  }

 private:
  Record records_[kRecords];
  std::deque<int> pending_;  // in flight, oldest first
  int next_ = 0;
  std::uint64_t sequence_ = 0;
  std::uint64_t content_ = 0;
  int last_done_ = -1;
};

bool ready(cudaEvent_t e) {
  const cudaError_t err = cudaEventQuery(e);
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) return false;
  CUDA_CHECK(err);
  return false;
}

float elapsed(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

// A finished record's timing, from its events; `previous`, the record finished before it, times
// the frame-to-frame interval.
FrameTiming frame_timing(const Record& r, const Record* previous) {
  FrameTiming t;
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
  if (previous) t.interval_ms = elapsed(previous->events[kDone], r.events[kDone]);
  t.latency_ms = r.latency_ms;
  t.stages = r.stages;
  return t;
}

// ---- The view's textures, through CUDA-GL interop ----------------------------------------------

// The pair of GL textures the view draws, original and result, registered with CUDA and written
// through surfaces of their mapped arrays.
class ViewTextures {
 public:
  ~ViewTextures() { release(); }

  // (Re)allocates the textures for frames of this shape and registers them; false, with the
  // reason, when the driver refuses (a size GL will not store, say).
  bool configure(const FrameShape& shape, std::string* why) {
    original_.allocate(shape.float_frames ? GL_RGBA32F : GL_RGBA8, shape.width, shape.height);
    result_.allocate(GL_RGBA32F, shape.width, shape.height);
    const GLuint textures[2] = {original_.id(), result_.id()};
    for (int k = 0; k < 2; ++k) {
      const cudaError_t err = cudaGraphicsGLRegisterImage(
          &resources_[k], textures[k], GL_TEXTURE_2D, cudaGraphicsRegisterFlagsSurfaceLoadStore);
      if (err != cudaSuccess) {
        cudaGetLastError();
        resources_[k] = nullptr;
        release();
        if (why)
          *why = std::string("cudaGraphicsGLRegisterImage: ") + cudaGetErrorName(err) + " (" +
                 cudaGetErrorString(err) + ")";
        return false;
      }
    }
    return true;
  }

  void release() {
    for (int k = 0; k < 2; ++k) {
      if (surfaces_[k]) cudaDestroySurfaceObject(surfaces_[k]);
      surfaces_[k] = 0;
      arrays_[k] = nullptr;
    }
    for (cudaGraphicsResource_t& res : resources_) {
      if (res) log_error("cudaGraphicsUnregisterResource", cudaGraphicsUnregisterResource(res));
      res = nullptr;
    }
  }

  // A slot's original and result into the textures: mapped on `stream` (which waits, on the
  // GPU, for the GL commands issued so far: those that drew the previous frame), written by
  // present_kernel and unmapped, so that GL's next commands wait for it.
  void present(cudaStream_t stream, const Slot& s, const FrameShape& shape) {
    CUDA_CHECK(cudaGraphicsMapResources(2, resources_, stream));
    try {
      update_surfaces();
      const dim3 block(32, 8);
      const dim3 grid = grid_for(shape.width, shape.height, block);
      const float4* result = static_cast<const float4*>(s.result.ptr);
      if (shape.float_frames)
        present_kernel<float4>
            <<<grid, block, 0, stream>>>(s.original.ptr, s.original.pitch, result, s.result.pitch,
                                         shape.width, shape.height, surfaces_[0], surfaces_[1]);
      else
        present_kernel<uchar4>
            <<<grid, block, 0, stream>>>(s.original.ptr, s.original.pitch, result, s.result.pitch,
                                         shape.width, shape.height, surfaces_[0], surfaces_[1]);
      CUDA_CHECK_LAUNCH();
    } catch (...) {
      cudaGraphicsUnmapResources(2, resources_, stream);
      throw;
    }
    CUDA_CHECK(cudaGraphicsUnmapResources(2, resources_, stream));
  }

  unsigned original_id() const { return original_.id(); }
  unsigned result_id() const { return result_.id(); }

 private:
  // Surface objects are made once per mapped array: the array of a registered texture stays the
  // same from one map to the next.
  void update_surfaces() {
    for (int k = 0; k < 2; ++k) {
      cudaArray_t array = nullptr;
      CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, resources_[k], 0, 0));
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

  Texture original_, result_;
  cudaGraphicsResource_t resources_[2] = {nullptr, nullptr};
  cudaArray_t arrays_[2] = {nullptr, nullptr};  // what the surfaces were made for
  cudaSurfaceObject_t surfaces_[2] = {0, 0};
};

// What the view shows: the newest presented submission, and the present that may still run.
struct Shown {
  static constexpr std::uint64_t kNothing = ~0ull;
  std::uint64_t version = kNothing, sequence = 0, content = 0;
  int presenting = -1;  // the record whose present may still be running

  bool nothing() const { return version == kNothing; }
  // `r` came after what is shown (or nothing is).
  bool older_than(const Record& r) const { return nothing() || r.sequence > sequence; }
  void show(const Record& r) {
    version = r.version;
    sequence = r.sequence;
  }
};

// ---- The pipeline ------------------------------------------------------------------------------

class CudaGlPipeline final : public GpuPipeline {
 public:
  CudaGlPipeline() {
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
    streams_.synchronize_logged();
    release_display();
  }

  bool configure(int width, int height, bool float_frames, std::string* why) override {
    const FrameShape shape{width, height, float_frames};
    if (configured_ && shape == shape_) return true;
    wait_idle();
    settle();  // the frames finished before the new size, reported first
    release_display();
    configured_ = false;
    shape_ = shape;
    // The view's textures first: a size the driver refuses fails here, before any slot memory.
    if (!view_.configure(shape, why)) {
      release_display();
      return false;
    }
    slots_.release_all();
    input_.allocate_pitched(std::size_t(width) * shape.original_bytes(), std::size_t(height));
    slots_.configure(shape);
    configured_ = true;
    return true;
  }

  bool can_submit(bool want_output) override {
    if (!configured_ || !records_.has_room()) return false;
    if (want_output && outputs_->available() == 0) return false;
    return slots_.free_slot() >= 0;
  }

  void submit(Engine& engine, const app::Frame* frame, std::uint64_t version, std::uint64_t index,
              bool want_output, bool repeat,
              std::chrono::steady_clock::time_point arrival) override {
    const int slot_index = slots_.free_slot();
    if (slot_index < 0 || !configured_)
      throw std::logic_error("GpuPipeline::submit without a slot");
    Slot& s = slots_[slot_index];
    Record& r = records_.start(repeat);
    r.slot = slot_index;
    r.version = version;
    r.index = index;
    r.arrival = arrival;
    r.uploaded = frame != nullptr;
    if (want_output) {
      r.output = outputs_->acquire(shape_.width, shape_.height);
      if (!r.output) throw std::logic_error("GpuPipeline::submit without an output buffer");
    }
    s.pending = true;
    try {
      if (frame) upload(s, r, *frame, version);
      convert(s, r, frame);
      filter(engine, s, r);
      if (r.output) read_back(s, r);
      CUDA_CHECK(cudaEventRecord(r.events[kDone], streams_.compute));
    } catch (...) {
      // The slot goes back unused; what was queued on the GPU is waited for first.
      cudaStreamSynchronize(streams_.compute);
      cudaStreamSynchronize(streams_.readback);
      s.pending = false;
      s.staged_version = ~0ull;
      r.output.reset();
      throw;
    }
    records_.commit();
  }

  // Of the frames computed since the last call only the newest is presented; the others are
  // reported as filtered (timing, recording, camera out) but never drawn.
  std::vector<PipelineFrame> take_finished() override {
    std::vector<PipelineFrame> done;
    done.swap(settled_);
    const int newest = newest_computed();
    if (newest >= 0 && !present_in_flight()) present(newest);
    report_finished(done);
    return done;
  }

  // Everything queued runs, and the newest frame is presented, so that take_finished() then
  // reports every frame.
  void wait_idle() override {
    streams_.synchronize();
    settle();
    CUDA_CHECK(cudaStreamSynchronize(streams_.present));
  }

  int in_flight() const override { return int(records_.pending().size()); }

  unsigned original_texture() const override { return shown_.nothing() ? 0 : view_.original_id(); }
  unsigned result_texture() const override { return shown_.nothing() ? 0 : view_.result_id(); }

 private:
  static constexpr std::size_t kOutputFrames = 6;

  // Host frame -> pinned staging (skipped when the slot holds this frame already, as when the
  // same frame is uploaded every frame for timing) -> the slot's device buffer, on the upload
  // stream. The slot is free, so its previous convert has read the device buffer already.
  void upload(Slot& s, Record& r, const app::Frame& f, std::uint64_t version) {
    if (f.width != shape_.width || f.height != shape_.height)
      throw std::logic_error("GpuPipeline: frame size differs from the configured size");
    if ((f.format == PixelFormat::RGBA32F) != shape_.float_frames || f.format == PixelFormat::R32F)
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
    if (shape_.float_frames) {
      // Float frames go straight into the engine's input; the compute stream has finished with
      // it once the previous frame's filter is done, which the upload waits for.
      CUDA_CHECK(cudaStreamWaitEvent(streams_.upload, records_.last_filter_end(), 0));
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
    CUDA_CHECK(cudaEventRecord(r.events[kUploadBegin], streams_.upload));
    CUDA_CHECK(cudaMemcpy2DAsync(destination, destination_pitch, s.staging.ptr, shape.host_pitch,
                                 shape.row_bytes, shape.rows, cudaMemcpyHostToDevice,
                                 streams_.upload));
    CUDA_CHECK(cudaEventRecord(r.events[kUploadEnd], streams_.upload));
    CUDA_CHECK(cudaStreamWaitEvent(streams_.compute, r.events[kUploadEnd], 0));
  }

  // An uploaded 8-bit frame, as it came, into the engine's input and the slot's original;
  // otherwise the input holds the frame (a float frame uploaded there, or the frame of an
  // earlier submission) and the slot keeps its own copy for the view.
  void convert(Slot& s, Record& r, const app::Frame* frame) {
    const cudaStream_t stream = streams_.compute;
    CUDA_CHECK(cudaEventRecord(r.events[kConvertBegin], stream));
    if (frame && !shape_.float_frames) {
      const int w = shape_.width, h = shape_.height;
      const dim3 block(32, 8);
      const dim3 grid = grid_for(w, h, block);
      const std::uint8_t* raw = static_cast<const std::uint8_t*>(s.raw.ptr);
      uchar4* input = static_cast<uchar4*>(input_.ptr);
      uchar4* original = static_cast<uchar4*>(s.original.ptr);
      switch (frame->encoding) {
        case Encoding::Rgba:
          convert_8bit<Encoding::Rgba><<<grid, block, 0, stream>>>(
              raw, s.raw.pitch, w, h, input, input_.pitch, original, s.original.pitch);
          break;
        case Encoding::Yuyv:
          convert_8bit<Encoding::Yuyv><<<grid, block, 0, stream>>>(
              raw, s.raw.pitch, w, h, input, input_.pitch, original, s.original.pitch);
          break;
        case Encoding::Nv12:
          convert_8bit<Encoding::Nv12><<<grid, block, 0, stream>>>(
              raw, s.raw.pitch, w, h, input, input_.pitch, original, s.original.pitch);
          break;
      }
      CUDA_CHECK_LAUNCH();
    } else {
      CUDA_CHECK(cudaMemcpy2DAsync(s.original.ptr, s.original.pitch, input_.ptr, input_.pitch,
                                   std::size_t(shape_.width) * shape_.original_bytes(),
                                   std::size_t(shape_.height), cudaMemcpyDeviceToDevice, stream));
    }
    CUDA_CHECK(cudaEventRecord(r.events[kFilterBegin], stream));
  }

  // The engine filters the input into the slot's float result, on the compute stream.
  void filter(Engine& engine, Slot& s, Record& r) {
    FrameView in;
    in.data = input_.ptr;
    in.width = shape_.width;
    in.height = shape_.height;
    in.pitch = input_.pitch;
    in.format = shape_.float_frames ? PixelFormat::RGBA32F : PixelFormat::RGBA8;
    in.space = MemorySpace::Device;
    FrameView out = in;
    out.data = s.result.ptr;
    out.pitch = s.result.pitch;
    out.format = PixelFormat::RGBA32F;
    engine.run(in, out, streams_.compute);
    CUDA_CHECK(cudaEventRecord(r.events[kFilterEnd], streams_.compute));
    r.stages = engine.timings();
  }

  // The result packed to 8 bits on the compute stream, then copied to the pinned output on the
  // readback stream, which delays neither the next frame nor the view.
  void read_back(Slot& s, Record& r) {
    const int w = shape_.width, h = shape_.height;
    if (!s.packed.ptr) s.packed.allocate_pitched(std::size_t(w) * sizeof(uchar4), std::size_t(h));
    const dim3 block(32, 8);
    pack_result<<<grid_for(w, h, block), block, 0, streams_.compute>>>(
        static_cast<const float4*>(s.result.ptr), s.result.pitch, w, h,
        static_cast<uchar4*>(s.packed.ptr), s.packed.pitch);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(r.events[kPacked], streams_.compute));
    CUDA_CHECK(cudaStreamWaitEvent(streams_.readback, r.events[kPacked], 0));
    CUDA_CHECK(cudaEventRecord(r.events[kReadbackBegin], streams_.readback));
    CUDA_CHECK(cudaMemcpy2DAsync(r.output->data, std::size_t(w) * 4, s.packed.ptr, s.packed.pitch,
                                 std::size_t(w) * 4, std::size_t(h), cudaMemcpyDeviceToHost,
                                 streams_.readback));
    CUDA_CHECK(cudaEventRecord(r.events[kReadbackEnd], streams_.readback));
  }

  // Marks the records whose compute finished (in submission order: one stream computes them)
  // and returns the newest of them not yet shown, or -1.
  int newest_computed() {
    int newest = -1;
    for (int i : records_.pending()) {
      Record& r = records_[i];
      if (!r.computed) {
        if (!ready(r.events[kDone])) break;
        r.computed = true;
        r.latency_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r.arrival)
                .count();
      }
      if (shown_.older_than(r)) newest = i;
    }
    return newest;
  }

  bool present_in_flight() {
    if (shown_.presenting < 0) return false;
    if (!ready(records_[shown_.presenting].events[kPresentEnd])) return true;
    shown_.presenting = -1;
    return false;
  }

  // The view's textures get the finished frame, unless they show its pixels already (live
  // timing of an unchanged frame). The slot stays pending until the present has run.
  void present(int record_index) {
    Record& r = records_[record_index];
    if (r.content == shown_.content) {
      r.presented = true;
      shown_.show(r);
      return;
    }
    CUDA_CHECK(cudaEventRecord(r.events[kPresentBegin], streams_.present));
    view_.present(streams_.present, slots_[r.slot], shape_);
    CUDA_CHECK(cudaEventRecord(r.events[kPresentEnd], streams_.present));
    r.presented = true;
    r.copied = true;
    shown_.presenting = record_index;
    shown_.show(r);
    shown_.content = r.content;
  }

  // Reported in order once finished, readback included, and a presented frame once its copy
  // has run. The frames before it were never drawn and need not wait for it.
  void report_finished(std::vector<PipelineFrame>& done) {
    while (!records_.pending().empty()) {
      const int i = records_.pending().front();
      Record& r = records_[i];
      if (!r.computed || (r.output && !ready(r.events[kReadbackEnd]))) break;
      if (r.presented ? shown_.presenting == i && present_in_flight() : shown_.older_than(r)) break;
      done.push_back(finish(r));
      slots_[r.slot].pending = false;
      records_.retire_oldest();
    }
  }

  PipelineFrame finish(Record& r) {
    PipelineFrame f;
    f.version = r.version;
    f.index = r.index;
    f.timing = frame_timing(r, records_.last_done());
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
    view_.release();
    slots_.free_all();
    shown_ = Shown{};
    records_.forget_last_done();
  }

  Streams streams_;
  RecordQueue records_;
  FrameSlots slots_;
  ViewTextures view_;
  Shown shown_;
  std::vector<PipelineFrame> settled_;
  DeviceBuffer input_;  // the engine's input: the newest frame, 8-bit RGBA or float RGBA
  FrameShape shape_;
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
