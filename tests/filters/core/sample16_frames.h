// 16-bit frames (R16U: uint16 on [0, 1]; R16F: IEEE binary16) through an engine of either backend:
// the filters against the double reference on the decoded samples, and every 16-bit value carried
// through unchanged by the identity filter. Host frames with a row pitch longer than a row, so a
// path that assumed packed rows or float samples shows.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/image.h"
#include "filters/recursive/reference.h"
#include "tests/filters/core/unorm8_frames.h"
#include "tests/random_data.h"

namespace rf::test {

// A one-channel frame of 16-bit samples, `pad` samples of slack at the end of every row.
struct Frame16 {
  int w = 0, h = 0, pad = 3;
  PixelFormat format = PixelFormat::R16U;
  std::vector<std::uint16_t> samples;  // h rows of w + pad

  Frame16(int width, int height, PixelFormat f)
      : w(width), h(height), format(f), samples(std::size_t(width + pad) * height, 0xbeef) {}
  std::uint16_t& at(int x, int y) { return samples[std::size_t(y) * (w + pad) + x]; }
  std::uint16_t at(int x, int y) const { return samples[std::size_t(y) * (w + pad) + x]; }
  float value(int x, int y) const {
    return format == PixelFormat::R16U ? from_unorm16(at(x, y)) : from_half(at(x, y));
  }
  FrameView view() {
    FrameView v;
    v.data = samples.data();
    v.width = w;
    v.height = h;
    v.pitch = std::size_t(w + pad) * sizeof(std::uint16_t);
    v.format = format;
    v.space = MemorySpace::Host;
    return v;
  }
};

// Seeded samples on [0.05, 1), rounded to 16 bits.
inline Frame16 random_frame16(int w, int h, PixelFormat format, std::uint64_t seed) {
  const Image r = random_image(w, h, 1, seed, 0.05f, 1.0f);
  Frame16 f(w, h, format);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      f.at(x, y) = format == PixelFormat::R16U ? to_unorm16(r.at(x, y)) : to_half(r.at(x, y));
  return f;
}

inline Image decoded(const Frame16& f) {
  Image img(f.w, f.h, 1);
  for (int y = 0; y < f.h; ++y)
    for (int x = 0; x < f.w; ++x) img.at(x, y) = f.value(x, y);
  return img;
}

// What a 16-bit result may differ from the exact one by its own rounding alone: half a step of
// 1 / 65535, half an ulp of a float16.
inline double rounding(PixelFormat format, double exact) {
  if (format == PixelFormat::R16U) return 0.5 / 65535.0;
  return std::ldexp(std::max(std::fabs(exact), std::ldexp(1.0, -14)), -11);
}

// The specs: the Gaussian at orders 1, 3 and 5, a small and a middle sigma, a sigma per axis,
// every extension; the other kinds of one design at theirs.
inline std::vector<FilterSpec> specs16() {
  std::vector<FilterSpec> out;
  auto add = [&](FilterSpec s) {
    for (Extension e : kAllExtensions) {
      if (s.kind == FilterKind::Sat && e != Extension::Zero && e != Extension::Ignore) continue;
      s.ext = e;
      s.cval = e == Extension::Constant ? 0.3 : 0.0;
      out.push_back(s);
    }
  };
  for (int order : {1, 3, 5})
    for (double sigma : {1.5, 16.0}) {
      FilterSpec s;
      s.order = order;
      s.sigma = sigma;
      add(s);
    }
  FilterSpec axes;
  axes.order = 3;
  axes.sigma = 2.0;
  axes.sigma_y = 9.0;
  add(axes);
  FilterSpec bspline;
  bspline.kind = FilterKind::BSpline3;
  add(bspline);
  return out;
}

// Every algorithm `backend` offers for each spec, on 16-bit frames of `format`, against the double
// reference of the decoded input. float16 frames take derivatives too (signed values); uint16
// frames refuse them. Returns the cases checked.
inline int check_filters16(Engine& engine, Backend backend, PixelFormat format) {
  std::vector<FilterSpec> specs = specs16();
  FilterSpec d;
  d.order = 3;
  d.sigma = 3.0;
  for (auto [dx, dy] : {std::pair{1, 0}, std::pair{0, 2}, std::pair{1, 1}})
    for (Extension e : {Extension::Mirror, Extension::Clamp, Extension::Constant}) {
      d.derivative.x = dx;
      d.derivative.y = dy;
      d.ext = e;
      d.cval = e == Extension::Constant ? 0.3 : 0.0;
      if (format == PixelFormat::R16F) {
        specs.push_back(d);
      } else {
        try {
          engine.plan(d, 16, 16, format);
          FAIL("a derivative planned into uint16 frames");
        } catch (const InvalidParameter& e) {
          CHECK(std::string(e.what()).find("signed") != std::string::npos);
        }
      }
    }
  int cases = 0;
  std::uint64_t seed = 100;
  for (const FilterSpec& base : specs) {
    for (auto [w, h] : {std::pair{97, 61}, std::pair{1, 40}, std::pair{40, 1}}) {
      Frame16 in = random_frame16(w, h, format, seed++);
      const Image x = decoded(in);
      const std::vector<double> want = ref::padded_reference(base, x);
      // The scale of the signal, as all_algorithms.h takes it: the larger of max |ref| and max |in|
      // (a derivative is small beside its input).
      double peak = 0.0;
      for (double v : want) peak = std::max(peak, std::fabs(v));
      for (float v : x.pixels) peak = std::max(peak, double(std::fabs(v)));
      for (Algorithm algo : algorithms_for(backend, base.kind)) {
        if (algo == Algorithm::OneWay || algo == Algorithm::TwoWay) continue;
        FilterSpec spec = base;
        spec.algo = algo;
        Frame16 out(w, h, format);
        try {
          engine.plan(spec, w, h, format);
          engine.run(in.view(), out.view());
        } catch (const InvalidParameter& e) {
          continue;  // refused in one line: the all-algorithms suites check which and how
        }
        double worst = 0.0;
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            // A uint16 frame holds [0, 1]: a result beyond it (a B-spline's overshoot) saturates.
            double exact = want[std::size_t(y) * w + x];
            if (format == PixelFormat::R16U) exact = std::clamp(exact, 0.0, 1.0);
            const double got = out.value(x, y);
            // The float path's own error (all_algorithms.h's 1e-5, 1e-4 above order 3) beyond
            // the rounding to 16 bits.
            const double excess = std::fabs(got - exact) - rounding(format, exact);
            worst = std::max(worst, std::isfinite(got) ? excess / peak : INFINITY);
          }
        bool slack_kept = true;
        for (int y = 0; y < h; ++y)
          for (int x = w; x < w + out.pad; ++x) slack_kept = slack_kept && out.at(x, y) == 0xbeef;
        INFO(describe(spec) << ", algo " << std::string(to_string(algo)) << ", " << w << "x" << h
                            << " " << std::string(to_string(format)) << ": excess error " << worst);
        CHECK(worst <= (design(spec).order() <= 3 ? 1e-5 : 1e-4));
        CHECK(slack_kept);
        ++cases;
      }
    }
  }
  return cases;
}

// The specs whose filters compute from float frames, which the engines convert a 16-bit frame to
// and from: the Gaussian's FIR method, the edge-aware filter, Lee et al.'s partitions (CUDA).
inline std::vector<FilterSpec> converted_specs16(Backend backend) {
  std::vector<FilterSpec> out;
  FilterSpec fir;
  fir.sigma = 2.0;
  fir.gaussian_method = GaussianMethod::Fir;
  out.push_back(fir);
  fir.ext = Extension::Constant;
  fir.cval = 0.3;
  out.push_back(fir);
  FilterSpec edge;
  edge.kind = FilterKind::EdgeAware;
  edge.sigma = 8.0;
  edge.sigma_r = 0.25;
  out.push_back(edge);
  if (backend == Backend::Cuda) {
    FilterSpec lee;
    lee.kind = FilterKind::Yvrg;
    lee.sigma = 6.0;
    lee.algo = Algorithm::OneWay;
    out.push_back(lee);
  }
  return out;
}

// Each of `specs` on a 16-bit frame and on its decoded float copy with the same engine: the 16-bit
// result is the float result rounded, a step apart at most where the two paths' floats straddle a
// rounding boundary, and at most a thousandth of the samples so. Returns the specs checked.
inline int check_against_float16(Engine& engine, const std::vector<FilterSpec>& specs,
                                 PixelFormat format) {
  const int w = 83, h = 47;
  int checked = 0;
  std::uint64_t seed = 300;
  for (const FilterSpec& spec : specs) {
    Frame16 in = random_frame16(w, h, format, seed++);
    Image want = decoded(in);
    engine.plan(spec, w, h, PixelFormat::R32F);
    engine.run(want.view(), want.view());
    Frame16 out(w, h, format);
    engine.plan(spec, w, h, format);
    engine.run(in.view(), out.view());
    int off = 0, far = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const float v = want.at(x, y);
        const int expect = format == PixelFormat::R16U ? to_unorm16(v) : to_half(v);
        const int got = out.at(x, y);
        off += got != expect;
        far += std::abs(got - expect) > 1;
      }
    INFO(describe(spec) << " " << std::string(to_string(format)) << ": " << off << " of " << w * h
                        << " a step off");
    CHECK(far == 0);
    CHECK(off * 1000 <= w * h);
    ++checked;
  }
  return checked;
}

// Every uint16 value, or every finite float16, as a 256-wide frame.
inline Frame16 all_values16(PixelFormat format) {
  Frame16 f(256, 256, format);
  for (int y = 0; y < 256; ++y)
    for (int x = 0; x < 256; ++x) {
      std::uint16_t v = std::uint16_t(y * 256 + x);
      if (format == PixelFormat::R16F && (v & 0x7c00u) == 0x7c00u) v &= 0x83ffu;  // inf/NaN: finite
      f.at(x, y) = v;
    }
  return f;
}

// The identity filter (unorm8_frames.h) on every algorithm `backend` offers: each 16-bit value
// comes back as it went in. Returns the algorithms checked.
inline int check_identity16(Engine& engine, Backend backend, PixelFormat format) {
  Frame16 in = all_values16(format);
  int checked = 0;
  for (Algorithm algo : algorithms_for(backend, FilterKind::Exponential)) {
    // alg4's float window step rounds the identity itself (test_unorm8_cuda.cpp).
    if (algo == Algorithm::Alg4 || algo == Algorithm::OneWay || algo == Algorithm::TwoWay) continue;
    Frame16 out(in.w, in.h, format);
    engine.plan(identity_filter(algo), in.w, in.h, format);
    engine.run(in.view(), out.view());
    int mismatches = 0;
    for (int y = 0; y < in.h; ++y)
      for (int x = 0; x < in.w; ++x) {
        // -0 is 0 to a filter: both float16 zeros come back as the same zero.
        const bool zero = format == PixelFormat::R16F && (in.at(x, y) & 0x7fffu) == 0;
        if (zero ? (out.at(x, y) & 0x7fffu) != 0 : out.at(x, y) != in.at(x, y)) ++mismatches;
      }
    INFO(std::string(to_string(format)) << ", algo " << std::string(to_string(algo)));
    CHECK(mismatches == 0);
    ++checked;
  }
  return checked;
}

}  // namespace rf::test
