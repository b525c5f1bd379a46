#include "bench/edge_bench.h"

#include <algorithm>
#include <random>

#include "filters/edge_aware/edge_aware.h"

namespace rf::bench {

FilterSpec edge_spec(const EdgeCase& e, double sigma, Algorithm algo) {
  FilterSpec spec;
  spec.kind = FilterKind::EdgeAware;
  spec.sigma = sigma;
  spec.sigma_r = e.sigma_r255 / 255.0;
  spec.kappa = e.kappa;
  spec.iterations = e.passes;
  spec.algo = algo;
  return spec;
}

Image mirror_tile(const Image& src, int width, int height) {
  Image out(width, height, 3);
  auto wrap = [](int i, int n) {
    const int m = i % (2 * n);
    return m < n ? m : 2 * n - 1 - m;
  };
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c)
        out.at(x, y, c) =
            src.at(wrap(x, src.width), wrap(y, src.height), std::min(c, src.channels - 1));
  return out;
}

Image edge_image(const Image* photo, int width, int height) {
  if (photo) return mirror_tile(*photo, width, height);
  Image out(width, height, 3);
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::normal_distribution<float> noise(0.0f, 0.02f);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c)
        out.at(x, y, c) = 0.2f + 0.5f * float(x + (c + 1) * y) / float((c + 2) * (width + height));
  for (int r = 0; r < 64; ++r) {
    const int x0 = int(u(rng) * width), y0 = int(u(rng) * height);
    const int x1 = std::min(width, x0 + 1 + int(u(rng) * width / 4));
    const int y1 = std::min(height, y0 + 1 + int(u(rng) * height / 4));
    const float colour[3] = {u(rng), u(rng), u(rng)};
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x)
        for (int c = 0; c < 3; ++c) out.at(x, y, c) = colour[c];
  }
  for (float& v : out.pixels) v += noise(rng);
  return out;
}

Timing time_edge_aware_cpu(const FilterSpec& spec, const Image& rgb, const Repeats& repeats) {
  cpu::EdgeAwarePlan plan(spec, rgb.width, rgb.height, rgb.channels);
  Image out(rgb.width, rgb.height, rgb.channels);
  Timer timer(Clock::Host);
  return timer.measure([&] { plan.run(rgb.pixels.data(), out.pixels.data()); }, repeats);
}

std::vector<BenchResult> bench_edge(const BenchOptions& o, const EdgeCase& e, const Image* photo,
                                    const std::vector<Algorithm>& algos, bool cpu, bool cuda,
                                    const Repeats& cpu_repeats, const Repeats& cuda_repeats,
                                    void (*progress)(const BenchResult&)) {
  Rows rows(progress);
  for (const Shape& s : bench_shapes(o)) {
    const Image in = edge_image(photo, s.width, s.height);
    for (double sigma : e.sigmas)
      for (int device = 0; device < 2; ++device) {
        if ((device == 0 && !cpu) || (device == 1 && !cuda)) continue;
        for (Algorithm a : algos) {
          const FilterSpec spec = edge_spec(e, sigma, a);
          const Timing t = device == 0 ? time_edge_aware_cpu(spec, in, cpu_repeats)
                                       : time_edge_aware_cuda(spec, in, cuda_repeats);
          BenchResult r;
          r.impl = device == 0 ? "cpu" : "rfstudio";
          r.algo = to_string(a);
          r.filter = to_string(spec.kind);
          r.sigma = sigma;
          r.ext = to_string(Extension::Clamp);
          r.width = s.width;
          r.height = s.height;
          r.channels = 3;
          r.format = device == 0 ? "f32" : "f32x4";
          rows.add(r, t);
        }
      }
  }
  return rows.take();
}

}  // namespace rf::bench
