// Lee et al. 2014 on CUDA: one-way (one thread per line) and two-way (Algorithm 1: three threads
// per line, then two) partitioned YVRG, rows then columns.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "filters/core/cuda_check.cuh"
#include "filters/core/design.h"
#include "filters/core/device_buffer.cuh"
#include "filters/core/errors.h"
#include "filters/lee2014/lee2014_cuda.h"

namespace rf::lee2014::cuda {
namespace {

using rf::cuda::DeviceBuffer;
using Index = long long;

// Where the lines of one direction start: line l at (l / channels) * major + l % channels, samples
// `stride` floats apart. Rows: major = row pitch, stride = channels. Columns: major = channels
// (so line l starts at float l of row 0), stride = row pitch.
struct LineLayout {
  Index major;
  int channels;
  Index stride;
};

__device__ __forceinline__ Index line_offset(const LineLayout& L, Index l) {
  return (l / L.channels) * L.major + l % L.channels;
}

// One thread per line (the CUDA Toolkit's recursiveGaussian scheme the paper starts from).
__global__ void one_way_kernel(Coeffs<float> k, const float* in, LineLayout lin, float* out,
                               LineLayout lout, float* w, Index lines, Index n) {
  const Index l = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (l >= lines) return;
  one_way_line<float>(k, Strided<const float, Index>{in + line_offset(lin, l), lin.stride},
                      Strided<float, Index>{w + l, lines},
                      Strided<float, Index>{out + line_offset(lout, l), lout.stride}, n);
}

// Algorithm 1: threadIdx.x picks the line, threadIdx.y the part (0 Bl, 1 Pc, 2 Br). The first
// pass runs the three parts concurrently; after the barrier Bl and Br run their reverse passes
// from Pc, which travels through shared memory, while the Pc thread only stores it.
__global__ void two_way_kernel(Coeffs<float> k, const float* in, LineLayout lin, float* out,
                               LineLayout lout, float* w, Index lines, Index n,
                               const float* __restrict__ weights, int radius) {
  extern __shared__ float pc[];
  const Index l = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  const int part = threadIdx.y;
  const bool active = l < lines;
  if (active) {
    const float v = two_way_first<float>(
        k, part, Strided<const float, Index>{in + line_offset(lin, l), lin.stride},
        Strided<float, Index>{w + l, lines}, n, weights, radius);
    if (part == 1) pc[threadIdx.x] = v;
  }
  __syncthreads();
  if (active)
    two_way_second<float>(k, part, Strided<const float, Index>{w + l, lines},
                          Strided<float, Index>{out + line_offset(lout, l), lout.stride}, n,
                          pc[threadIdx.x]);
}

Index pitch_in_floats(std::size_t pitch, int width, int channels) {
  if (pitch % sizeof(float) != 0 || pitch < std::size_t(width) * channels * sizeof(float))
    throw InvalidParameter("pitch " + std::to_string(pitch) +
                           " is not a whole number of floats of at least one row");
  return Index(pitch / sizeof(float));
}

}  // namespace

struct DevicePlan::Impl {
  Partition partition;
  int width, height, channels, lines_per_block;
  Coeffs<float> k;
  int radius;
  DeviceBuffer weights, w;

  Impl(Partition p, double sigma, int width_, int height_, int channels_, int lpb)
      : partition(p),
        width(width_),
        height(height_),
        channels(channels_),
        lines_per_block(lpb),
        radius(centre_radius(sigma)) {
    weights.allocate(sizeof(float) * (2 * radius + 1));
    w.allocate(sizeof(float) * std::size_t(width_) * height_ * channels_);
    k = float_coefficients(sigma);
    std::vector<float> g;
    for (double v : centre_weights(sigma)) g.push_back(float(v));
    CUDA_CHECK(cudaMemcpy(weights.ptr, g.data(), g.size() * sizeof(float), cudaMemcpyHostToDevice));
  }

  void launch(const float* in, LineLayout lin, float* out, LineLayout lout, Index lines, Index n,
              cudaStream_t stream) const {
    const unsigned blocks = unsigned((lines + lines_per_block - 1) / lines_per_block);
    if (partition == Partition::OneWay) {
      one_way_kernel<<<blocks, lines_per_block, 0, stream>>>(k, in, lin, out, lout, w.f(), lines,
                                                             n);
    } else {
      two_way_kernel<<<blocks, dim3(lines_per_block, 3), sizeof(float) * lines_per_block, stream>>>(
          k, in, lin, out, lout, w.f(), lines, n, static_cast<const float*>(weights.ptr), radius);
    }
    CUDA_CHECK_LAUNCH();
  }
};

DevicePlan::DevicePlan(Partition p, double sigma, int width, int height, int channels,
                       int lines_per_block) {
  if (width < 1 || height < 1 || channels < 1)
    throw InvalidParameter("frame size: " + std::to_string(width) + "x" + std::to_string(height) +
                           "x" + std::to_string(channels) + " is empty");
  const int max_lines = p == Partition::OneWay ? 1024 : 1024 / 3;
  if (lines_per_block < 1 || lines_per_block > max_lines)
    throw InvalidParameter("lines per block must be in 1.." + std::to_string(max_lines) + " (got " +
                           std::to_string(lines_per_block) + ")");
  impl_ = std::make_unique<Impl>(p, sigma, width, height, channels, lines_per_block);
}

DevicePlan::~DevicePlan() = default;

// Rows (Fig. 1 a-b): in -> w -> out; then columns (Fig. 1 c-d): out -> w -> out.
void DevicePlan::run(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                     void* stream) {
  run_rows(in, in_pitch, out, out_pitch, stream);
  run_columns(out, out_pitch, stream);
}

void DevicePlan::run_rows(const float* in, std::size_t in_pitch, float* out, std::size_t out_pitch,
                          void* stream) {
  const Impl& m = *impl_;
  const Index pin = pitch_in_floats(in_pitch, m.width, m.channels);
  const Index pout = pitch_in_floats(out_pitch, m.width, m.channels);
  const int C = m.channels;
  m.launch(in, LineLayout{pin, C, C}, out, LineLayout{pout, C, C}, Index(m.height) * C, m.width,
           static_cast<cudaStream_t>(stream));
}

void DevicePlan::run_columns(float* data, std::size_t pitch, void* stream) {
  const Impl& m = *impl_;
  const Index p = pitch_in_floats(pitch, m.width, m.channels);
  const int C = m.channels;
  m.launch(data, LineLayout{C, C, p}, data, LineLayout{C, C, p}, Index(m.width) * C, m.height,
           static_cast<cudaStream_t>(stream));
}

Image filter(Partition p, double sigma, const Image& in, int lines_per_block, bool in_place) {
  Image out = in;
  if (in.empty()) return out;
  DevicePlan plan(p, sigma, in.width, in.height, in.channels, lines_per_block);
  const std::size_t bytes = in.pixels.size() * sizeof(float);
  const std::size_t pitch = std::size_t(in.width) * in.channels * sizeof(float);
  DeviceBuffer src, dst;
  src.allocate(bytes);
  dst.allocate(bytes);
  CUDA_CHECK(cudaMemcpy(src.ptr, in.pixels.data(), bytes, cudaMemcpyHostToDevice));
  float* result = in_place ? src.f() : dst.f();
  plan.run(src.f(), pitch, result, pitch);
  CUDA_CHECK(cudaMemcpy(out.pixels.data(), result, bytes, cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace rf::lee2014::cuda
