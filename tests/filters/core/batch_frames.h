// A batch of frames (Engine::plan_batch) against the same frames planned and run one at a time:
// every frame of the batch comes out as it does alone, bit for bit (the block algorithms run a
// batch in the same kernels, each frame at its own offset, and the others frame by frame; a batch
// of many frames may split its scans into fewer runs than one frame does, fully_overlapped.h
// scan_runs, or take lines in shared memory in tiles of 32 lines where one frame takes tiles of 8,
// and round differently, but not at these sizes), the frames do not leak into each other, and a
// view of another batch size is refused.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "tests/random_data.h"

namespace rf::test {

// The specs a batch is checked on: every algorithm `backend` offers for the Gaussian at two
// extensions, the constant with its value, a derivative, the FIR method, the edge-aware filter.
inline std::vector<FilterSpec> batch_specs(Backend backend) {
  std::vector<FilterSpec> out;
  for (Algorithm algo : algorithms_for(backend, FilterKind::Gaussian)) {
    if (algo == Algorithm::OneWay || algo == Algorithm::TwoWay) continue;
    for (Extension e : {Extension::Mirror, Extension::Clamp, Extension::Constant}) {
      FilterSpec s;
      s.order = 3;
      s.sigma = 5.0;
      s.algo = algo;
      s.ext = e;
      s.cval = e == Extension::Constant ? 0.7 : 0.0;
      out.push_back(s);
    }
  }
  FilterSpec d;
  d.sigma = 3.0;
  d.derivative.x = 1;
  out.push_back(d);
  FilterSpec fir;
  fir.sigma = 1.5;
  fir.gaussian_method = GaussianMethod::Fir;
  out.push_back(fir);
  FilterSpec edge;
  edge.kind = FilterKind::EdgeAware;
  edge.sigma = 6.0;
  out.push_back(edge);
  return out;
}

// The frames of `all` (frames x height rows, one frame after another) as one batch.
inline FrameView batch_view(Image& all, int frames) {
  FrameView v = all.view();
  v.height = all.height / frames;
  v.frames = frames;
  return v;
}

// Runs every spec on a batch of three host frames and on each frame alone; returns the cases.
inline int check_batches(Engine& engine, Backend backend) {
  const int w = 45, h = 37, frames = 3;
  int cases = 0;
  std::uint64_t seed = 500;
  for (int channels : {1, 4}) {
    for (const FilterSpec& spec : batch_specs(backend)) {
      const Image all = random_image(w, h * frames, channels, seed++, 0.05f, 1.0f);
      Image batch = all;
      try {
        engine.plan_batch(spec, w, h, frames, batch.view().format);
      } catch (const InvalidParameter&) {
        continue;  // refused for this size or layout: the all-algorithms suites say which
      }
      engine.run(batch_view(batch, frames), batch_view(batch, frames));
      const std::size_t per_frame = std::size_t(w) * h * channels;
      int mismatched = 0;
      for (int k = 0; k < frames; ++k) {
        Image alone(w, h, channels);
        std::copy(all.pixels.begin() + k * per_frame, all.pixels.begin() + (k + 1) * per_frame,
                  alone.pixels.begin());
        engine.plan(spec, w, h, alone.view().format);
        engine.run(alone.view(), alone.view());
        if (std::memcmp(alone.pixels.data(), batch.pixels.data() + k * per_frame,
                        per_frame * sizeof(float)))
          ++mismatched;
      }
      INFO(describe(spec) << ", algo " << std::string(to_string(spec.algo)) << ", " << channels
                          << " channels");
      CHECK(mismatched == 0);
      ++cases;
    }
  }
  // A view of another batch size than the plan's: refused in one line.
  FilterSpec spec;
  Image data(8, 4, 1);
  engine.plan_batch(spec, 8, 4, 2, PixelFormat::R32F);
  try {
    engine.run(data.view(), data.view());
    FAIL("a single frame ran on a plan of two");
  } catch (const InvalidParameter& e) {
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
  CHECK_THROWS_AS(engine.plan_batch(spec, 8, 4, 0, PixelFormat::R32F), InvalidParameter);
  return cases;
}

}  // namespace rf::test
