// CUDA-GL interop for the processing path: the GL result texture (GL_RGBA32F) is registered once
// for surface load/store and mapped per frame; the engine writes the filtered frame through a
// surface object. The source frame is uploaded from page-locked memory on a private stream;
// 8-bit frames are widened to float on the GPU (4x fewer bytes over PCIe).
#include <glad/gl.h>

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "app/gui/interop.h"
#include "filters/core/cuda_check.cuh"

namespace rf::gui {
namespace {

__global__ void widen_rgba8(const uchar4* in, std::size_t in_pitch, float4* out,
                            std::size_t out_pitch, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const uchar4 p =
      reinterpret_cast<const uchar4*>(reinterpret_cast<const char*>(in) + y * in_pitch)[x];
  constexpr float k = 1.0f / 255.0f;
  reinterpret_cast<float4*>(reinterpret_cast<char*>(out) + y * out_pitch)[x] =
      make_float4(p.x * k, p.y * k, p.z * k, p.w * k);
}

struct PitchedBuffer {
  void* ptr = nullptr;
  std::size_t pitch = 0;
  int width = 0, height = 0;
  std::size_t bytes_per_pixel = 0;
  void ensure(int w, int h, std::size_t bpp) {
    if (ptr && w == width && h == height && bpp == bytes_per_pixel) return;
    reset();
    CUDA_CHECK(cudaMallocPitch(&ptr, &pitch, std::size_t(w) * bpp, std::size_t(h)));
    width = w;
    height = h;
    bytes_per_pixel = bpp;
  }
  void reset() {
    if (ptr) {
      const cudaError_t err = cudaFree(ptr);
      if (err != cudaSuccess)
        std::fprintf(stderr, "rfstudio: cudaFree: %s\n", cudaGetErrorName(err));
    }
    ptr = nullptr;
  }
  ~PitchedBuffer() { reset(); }
};

class CudaGlInterop final : public Interop {
 public:
  CudaGlInterop() {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& e : events_) CUDA_CHECK(cudaEventCreate(&e));
  }

  ~CudaGlInterop() override {
    unregister_host();
    if (resource_) cudaGraphicsUnregisterResource(resource_);
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    cudaStreamDestroy(stream_);
  }

  bool attach(unsigned texture, int width, int height, std::string* why) override {
    if (resource_) cudaGraphicsUnregisterResource(resource_);
    resource_ = nullptr;
    const cudaError_t err = cudaGraphicsGLRegisterImage(&resource_, texture, GL_TEXTURE_2D,
                                                        cudaGraphicsRegisterFlagsSurfaceLoadStore);
    if (err != cudaSuccess) {
      cudaGetLastError();
      resource_ = nullptr;
      if (why)
        *why = std::string("cudaGraphicsGLRegisterImage: ") + cudaGetErrorName(err) + " (" +
               cudaGetErrorString(err) + ")";
      return false;
    }
    width_ = width;
    height_ = height;
    return true;
  }

  void run(Engine& engine, const app::Frame& frame, bool fresh, FrameTiming* timing) override {
    CUDA_CHECK(cudaEventRecord(events_[0], stream_));
    const bool uploading = fresh || !input_.ptr;
    if (uploading) upload(frame);
    CUDA_CHECK(cudaEventRecord(events_[1], stream_));

    CUDA_CHECK(cudaGraphicsMapResources(1, &resource_, stream_));
    cudaArray_t array = nullptr;
    cudaSurfaceObject_t surface = 0;
    try {
      CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, resource_, 0, 0));
      cudaResourceDesc desc{};
      desc.resType = cudaResourceTypeArray;
      desc.res.array.array = array;
      CUDA_CHECK(cudaCreateSurfaceObject(&surface, &desc));
      CUDA_CHECK(cudaEventRecord(events_[2], stream_));

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
      out.surface = surface;
      out.space = MemorySpace::CudaSurface;
      engine.run(in, out, stream_);
      CUDA_CHECK(cudaEventRecord(events_[3], stream_));
    } catch (...) {
      if (surface) cudaDestroySurfaceObject(surface);
      cudaGraphicsUnmapResources(1, &resource_, stream_);
      throw;
    }
    CUDA_CHECK(cudaDestroySurfaceObject(surface));
    // Unmapping orders the CUDA writes before any GL command issued afterwards.
    CUDA_CHECK(cudaGraphicsUnmapResources(1, &resource_, stream_));
    CUDA_CHECK(cudaEventRecord(events_[4], stream_));
    CUDA_CHECK(cudaEventSynchronize(events_[4]));

    float ms[4] = {};
    for (int i = 0; i < 4; ++i)
      CUDA_CHECK(cudaEventElapsedTime(&ms[i], events_[i], events_[i + 1]));
    timing->upload_ms = ms[0];
    timing->filter_ms = ms[2];
    timing->interop_ms = ms[1] + ms[3];
    timing->stages = engine.timings();
    timing->gpu_events = true;
    timing->interop = true;
    timing->uploaded = uploading;
  }

 private:
  // Page-locks the frame's memory once per buffer, so the copy runs asynchronously at full
  // PCIe bandwidth; when the driver refuses, the copy still works, staged by the driver.
  void register_host(const app::Frame& frame) {
    const void* p = frame.bytes.data();
    if (p == registered_ && frame.bytes.size() == registered_bytes_) return;
    unregister_host();
    if (cudaHostRegister(const_cast<void*>(p), frame.bytes.size(), cudaHostRegisterDefault) ==
        cudaSuccess) {
      registered_ = p;
      registered_bytes_ = frame.bytes.size();
    } else {
      cudaGetLastError();
    }
  }
  void unregister_host() {
    if (registered_) cudaHostUnregister(const_cast<void*>(registered_));
    registered_ = nullptr;
    registered_bytes_ = 0;
  }

  void upload(const app::Frame& frame) {
    register_host(frame);
    input_.ensure(width_, height_, 16);
    if (frame.format == PixelFormat::RGBA8) {
      staging_.ensure(width_, height_, 4);
      CUDA_CHECK(cudaMemcpy2DAsync(staging_.ptr, staging_.pitch, frame.bytes.data(),
                                   std::size_t(width_) * 4, std::size_t(width_) * 4,
                                   std::size_t(height_), cudaMemcpyHostToDevice, stream_));
      const dim3 block(32, 8);
      const dim3 grid((width_ + block.x - 1) / block.x, (height_ + block.y - 1) / block.y);
      widen_rgba8<<<grid, block, 0, stream_>>>(static_cast<const uchar4*>(staging_.ptr),
                                               staging_.pitch, static_cast<float4*>(input_.ptr),
                                               input_.pitch, width_, height_);
      CUDA_CHECK_LAUNCH();
    } else if (frame.format == PixelFormat::RGBA32F) {
      CUDA_CHECK(cudaMemcpy2DAsync(input_.ptr, input_.pitch, frame.bytes.data(),
                                   std::size_t(width_) * 16, std::size_t(width_) * 16,
                                   std::size_t(height_), cudaMemcpyHostToDevice, stream_));
    } else {
      throw std::runtime_error("CUDA-GL interop takes RGBA8 or RGBA32F frames");
    }
  }

  cudaStream_t stream_ = nullptr;
  cudaEvent_t events_[5] = {};
  cudaGraphicsResource_t resource_ = nullptr;
  int width_ = 0, height_ = 0;
  PitchedBuffer staging_, input_;
  const void* registered_ = nullptr;
  std::size_t registered_bytes_ = 0;
};

}  // namespace

std::unique_ptr<Interop> make_cuda_gl_interop(std::string* why) {
  std::string reason;
  if (!cuda_available(&reason)) {
    if (why) *why = reason;
    return nullptr;
  }
  try {
    return std::make_unique<CudaGlInterop>();
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return nullptr;
  }
}

}  // namespace rf::gui
