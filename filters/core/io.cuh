// Reading and writing frames of every format and memory space from kernels: pitched device
// buffers (float, float4, uchar4, uint16, binary16) and CUDA surfaces (GL textures mapped through
// interop). The kernels compute in float; image.h converts each sample type, host and device
// alike.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "filters/core/image.h"
#include "filters/core/vec.h"

namespace rf::cuda {

enum class IoKind : int { F32, F32x4, U8x4, SurfF32, SurfF32x4, SurfU8x4, U16, F16 };

// The kinds of 16 bits a sample, which some kernels leave to the engine's conversions (Kinds).
__host__ __device__ inline bool is_16bit(IoKind k) {
  return k == IoKind::U16 || k == IoKind::F16;
}

// One frame as the kernels see it; (x, y) are image coordinates.
struct Io {
  IoKind kind = IoKind::F32;
  char* ptr = nullptr;
  std::size_t pitch = 0;
  cudaSurfaceObject_t surf = 0;
};

// The kind of a frame's samples. 16-bit formats live in buffers only (DeviceFrame and the engine
// refuse them on surfaces).
inline IoKind kind_of(const FrameView& v) {
  const bool surface = v.space == MemorySpace::CudaSurface;
  switch (v.format) {
    case PixelFormat::R32F:
      return surface ? IoKind::SurfF32 : IoKind::F32;
    case PixelFormat::RGBA32F:
      return surface ? IoKind::SurfF32x4 : IoKind::F32x4;
    case PixelFormat::RGBA8:
      return surface ? IoKind::SurfU8x4 : IoKind::U8x4;
    case PixelFormat::R16U:
      return IoKind::U16;
    case PixelFormat::R16F:
      return IoKind::F16;
    case PixelFormat::R64F:
      break;  // the CUDA engine refuses it when planned
  }
  return IoKind::F32;
}

template <int C, IoKind K>
struct Reader;

// One channel of samples of type T in a pitched buffer, as floats through Decode: rd(x, y), or
// rd.column(x, y0), a cursor down column x from row y0 (at() the sample there, next() a row
// down). The cursor is one pointer moved on by the pitch, so that a column of loads costs an add
// each, not a 64-bit product of the row and the pitch with the frame's pointer and pitch loaded
// again (docs/bench/README.md, "A block's column through one pointer").
template <class T, class Decode>
struct PitchedChannel {
  const char* ptr;
  std::size_t pitch;
  struct Column {
    const char* p;
    std::size_t pitch;
    __device__ Vec<1> at() const { return {Decode{}(raw())}; }
    // The stored value and its decoding apart, so that a column can be loaded whole before any
    // of it is decoded (load_column).
    __device__ T raw() const { return *reinterpret_cast<const T*>(p); }
    static __device__ float decode(T v) { return Decode{}(v); }
    __device__ void next() { p += pitch; }
  };
  __device__ Vec<1> operator()(int x, int y) const {
    return {Decode{}(reinterpret_cast<const T*>(ptr + std::size_t(y) * pitch)[x])};
  }
  __device__ Column column(int x, int y0) const {
    return {ptr + std::size_t(y0) * pitch + std::size_t(x) * sizeof(T), pitch};
  }
};

struct DecodeF32 {
  __device__ float operator()(float v) const { return v; }
};
struct DecodeU16 {
  __device__ float operator()(std::uint16_t v) const { return from_unorm16(v); }
};
struct DecodeF16 {
  __device__ float operator()(std::uint16_t v) const { return from_half(v); }
};

template <>
struct Reader<1, IoKind::F32> : PitchedChannel<float, DecodeF32> {};
template <>
struct Reader<1, IoKind::U16> : PitchedChannel<std::uint16_t, DecodeU16> {};
template <>
struct Reader<1, IoKind::F16> : PitchedChannel<std::uint16_t, DecodeF16> {};
template <>
struct Reader<1, IoKind::SurfF32> {
  cudaSurfaceObject_t surf;
  struct Column {
    cudaSurfaceObject_t surf;
    int x, y;
    __device__ Vec<1> at() const { return {raw()}; }
    __device__ float raw() const { return surf2Dread<float>(surf, x * int(sizeof(float)), y); }
    static __device__ float decode(float v) { return v; }
    __device__ void next() { ++y; }
  };
  __device__ Vec<1> operator()(int x, int y) const {
    return {surf2Dread<float>(surf, x * int(sizeof(float)), y)};
  }
  __device__ Column column(int x, int y0) const { return {surf, x, y0}; }
};
template <>
struct Reader<4, IoKind::F32x4> {
  const char* ptr;
  std::size_t pitch;
  __device__ Vec<4> operator()(int x, int y) const {
    const float4 v = reinterpret_cast<const float4*>(ptr + std::size_t(y) * pitch)[x];
    return {v.x, v.y, v.z, v.w};
  }
};
template <>
struct Reader<4, IoKind::U8x4> {
  const char* ptr;
  std::size_t pitch;
  __device__ Vec<4> operator()(int x, int y) const {
    const uchar4 v = reinterpret_cast<const uchar4*>(ptr + std::size_t(y) * pitch)[x];
    return {from_unorm8(v.x), from_unorm8(v.y), from_unorm8(v.z), from_unorm8(v.w)};
  }
};
template <>
struct Reader<4, IoKind::SurfF32x4> {
  cudaSurfaceObject_t surf;
  __device__ Vec<4> operator()(int x, int y) const {
    const float4 v = surf2Dread<float4>(surf, x * int(sizeof(float4)), y);
    return {v.x, v.y, v.z, v.w};
  }
};
template <>
struct Reader<4, IoKind::SurfU8x4> {
  cudaSurfaceObject_t surf;
  __device__ Vec<4> operator()(int x, int y) const {
    const uchar4 v = surf2Dread<uchar4>(surf, x * int(sizeof(uchar4)), y);
    return {from_unorm8(v.x), from_unorm8(v.y), from_unorm8(v.z), from_unorm8(v.w)};
  }
};

// The kinds a kernel is compiled to read and write. Each kind is a path through every loop that
// reads or writes, and the kernel's registers, branches and code are those of all its paths:
// kernels that never see 16-bit frames (the direct-form filters, which the engine hands them
// converted, and float scratch buffers) leave those two paths out and compile as before them
// (No16). A kernel that moves one 16-bit kind to or from float buffers can be compiled for that
// kind and pitched float alone (U16, F16): 16-bit frames live in buffers, never on surfaces.
enum class Kinds { All, No16, U16, F16 };

template <Kinds K>
constexpr bool takes_surfaces = K == Kinds::All || K == Kinds::No16;
template <Kinds K>
constexpr bool takes_u16 = K == Kinds::All || K == Kinds::U16;
template <Kinds K>
constexpr bool takes_f16 = K == Kinds::All || K == Kinds::F16;

// Calls f(reader) with the reader of io's kind, so loops over a block are specialised once
// instead of branching on every sample.
template <int C, Kinds K = Kinds::All, class F>
__device__ __forceinline__ void with_reader(const Io& io, F&& f) {
  if constexpr (C == 1) {
    if constexpr (takes_surfaces<K>) {
      if (io.kind == IoKind::SurfF32) {
        f(Reader<1, IoKind::SurfF32>{io.surf});
        return;
      }
    }
    if constexpr (takes_u16<K>) {
      if (io.kind == IoKind::U16) {
        f(Reader<1, IoKind::U16>{io.ptr, io.pitch});
        return;
      }
    }
    if constexpr (takes_f16<K>) {
      if (io.kind == IoKind::F16) {
        f(Reader<1, IoKind::F16>{io.ptr, io.pitch});
        return;
      }
    }
    f(Reader<1, IoKind::F32>{io.ptr, io.pitch});
  } else {
    switch (io.kind) {
      case IoKind::U8x4:
        f(Reader<4, IoKind::U8x4>{io.ptr, io.pitch});
        break;
      case IoKind::SurfF32x4:
        f(Reader<4, IoKind::SurfF32x4>{io.surf});
        break;
      case IoKind::SurfU8x4:
        f(Reader<4, IoKind::SurfU8x4>{io.surf});
        break;
      default:
        f(Reader<4, IoKind::F32x4>{io.ptr, io.pitch});
    }
  }
}

// One sample, branching on the kind: for line-sequential kernels where the branch is cheap.
template <int C, Kinds K = Kinds::All>
__device__ __forceinline__ Vec<C> read(const Io& io, int x, int y) {
  Vec<C> v;
  with_reader<C, K>(io, [&](auto rd) { v = rd(x, y); });
  return v;
}

// Writers of one kind (with_writer), for kernels that write a column of pixels: wr.column(x, y,
// step) is a cursor at (x, y) that put() writes and next() moves `step` rows down, one pointer
// moved on by step pitches, so that a block's column of stores costs an add a pixel rather than
// a 64-bit product and the kind's dispatch at every store.
template <class T, class Encode>
struct PitchedWriter {
  char* ptr;
  std::size_t pitch;
  struct Column {
    char* p;
    std::size_t stride;
    template <int C>
    __device__ void put(const Vec<C>& v) const {
      *reinterpret_cast<T*>(p) = Encode{}(v);
    }
    __device__ void next() { p += stride; }
  };
  __device__ Column column(int x, int y, int step) const {
    return {ptr + std::size_t(y) * pitch + std::size_t(x) * sizeof(T), std::size_t(step) * pitch};
  }
};

template <class T, class Encode>
struct SurfaceWriter {
  cudaSurfaceObject_t surf;
  struct Column {
    cudaSurfaceObject_t surf;
    int x, y, step;
    template <int C>
    __device__ void put(const Vec<C>& v) const {
      surf2Dwrite(Encode{}(v), surf, x * int(sizeof(T)), y);
    }
    __device__ void next() { y += step; }
  };
  __device__ Column column(int x, int y, int step) const { return {surf, x, y, step}; }
};

struct EncodeF32 {
  __device__ float operator()(const Vec<1>& v) const { return v.v[0]; }
};
struct EncodeU16 {
  __device__ std::uint16_t operator()(const Vec<1>& v) const { return to_unorm16(v.v[0]); }
};
struct EncodeF16 {
  __device__ std::uint16_t operator()(const Vec<1>& v) const { return to_half(v.v[0]); }
};
struct EncodeF32x4 {
  __device__ float4 operator()(const Vec<4>& v) const {
    return make_float4(v.v[0], v.v[1], v.v[2], v.v[3]);
  }
};
struct EncodeU8x4 {
  __device__ uchar4 operator()(const Vec<4>& v) const {
    return make_uchar4(to_unorm8(v.v[0]), to_unorm8(v.v[1]), to_unorm8(v.v[2]), to_unorm8(v.v[3]));
  }
};

// Calls f(writer) with the writer of io's kind, chosen once.
template <int C, Kinds K = Kinds::All, class F>
__device__ __forceinline__ void with_writer(const Io& io, F&& f) {
  if constexpr (C == 1) {
    if constexpr (takes_surfaces<K>) {
      if (io.kind == IoKind::SurfF32) {
        f(SurfaceWriter<float, EncodeF32>{io.surf});
        return;
      }
    }
    if constexpr (takes_u16<K>) {
      if (io.kind == IoKind::U16) {
        f(PitchedWriter<std::uint16_t, EncodeU16>{io.ptr, io.pitch});
        return;
      }
    }
    if constexpr (takes_f16<K>) {
      if (io.kind == IoKind::F16) {
        f(PitchedWriter<std::uint16_t, EncodeF16>{io.ptr, io.pitch});
        return;
      }
    }
    f(PitchedWriter<float, EncodeF32>{io.ptr, io.pitch});
  } else {
    switch (io.kind) {
      case IoKind::U8x4:
        f(PitchedWriter<uchar4, EncodeU8x4>{io.ptr, io.pitch});
        break;
      case IoKind::SurfF32x4:
        f(SurfaceWriter<float4, EncodeF32x4>{io.surf});
        break;
      case IoKind::SurfU8x4:
        f(SurfaceWriter<uchar4, EncodeU8x4>{io.surf});
        break;
      default:
        f(PitchedWriter<float4, EncodeF32x4>{io.ptr, io.pitch});
    }
  }
}

// One pixel, branching on the kind: for line-sequential kernels where the branch is cheap.
template <int C, Kinds K = Kinds::All>
__device__ __forceinline__ void write(const Io& io, int x, int y, const Vec<C>& v) {
  with_writer<C, K>(io, [&](auto wr) { wr.column(x, y, 0).put(v); });
}

}  // namespace rf::cuda
