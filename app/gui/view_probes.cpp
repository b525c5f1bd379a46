#include "app/gui/view_probes.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <iterator>

#include "app/gui/spec_key.h"
#include "filters/core/engine.h"

namespace rf::gui {
namespace {

float luma(const Image& img, int x, int y) {
  return 0.299f * img.at(x, y, 0) + 0.587f * img.at(x, y, 1) + 0.114f * img.at(x, y, 2);
}

// The luma of the first `len` pixels of row (or column) `line` of `img`.
std::vector<float> sample_line(const Image& img, bool vertical, int line, int len) {
  std::vector<float> out(len);
  for (int i = 0; i < len; ++i) out[i] = vertical ? luma(img, line, i) : luma(img, i, line);
  return out;
}

}  // namespace

void ViewProbes::update(const FilterSpec& spec, const ViewSettings& view, Processor& processor,
                        const GroundTruth& truth) {
  if (view.mode == ViewMode::Profile && processor.has_frame() && processor.settled())
    update_profile(spec, view, processor, truth);
  if (view.mode == ViewMode::Impulse && processor.has_frame())
    update_impulse(spec, view, processor.width(), processor.height());
  if (view.mode == ViewMode::Response) update_response(spec);
}

void ViewProbes::update_profile(const FilterSpec& spec, const ViewSettings& view,
                                Processor& processor, const GroundTruth& truth) {
  const int n_lines = view.profile_vertical ? processor.width() : processor.height();
  const int line = view.profile_line < 0 ? n_lines / 2 : std::min(view.profile_line, n_lines - 1);
  std::uint64_t key = hash_combine(hash_spec(spec), processor.frame_version());
  key = hash_combine(key, std::uint64_t(line));
  key = hash_combine(key, view.profile_vertical);
  key = hash_combine(key, truth.key());
  ProfileData& p = profile_;
  if (key != p.key) {
    p = ProfileData();
    p.key = key;
    p.vertical = view.profile_vertical;
    p.line = line;
    const int len = p.vertical ? processor.height() : processor.width();
    p.input = sample_line(processor.input(), p.vertical, line, len);
    p.result = sample_line(processor.result(), p.vertical, line, len);
    if (truth.current()) p.truth = sample_line(truth.result().truth, p.vertical, line, len);
    p.by_extension.resize(std::size(kAllExtensions));
    p.pending.push_back(spec.ext);
    for (Extension e : kAllExtensions)
      if (e != spec.ext) p.pending.push_back(e);
  }
  if (p.pending.empty()) return;
  // The same filter under every extension, on the CPU (exact, and independent of the backend),
  // one extension a frame. An extension the filter refuses (the summed-area table takes zero
  // only) has no curve; the filter's own refusal is what the profile reports.
  const Extension e = p.pending.front();
  p.pending.erase(p.pending.begin());
  FilterSpec s = spec;
  s.ext = e;
  try {
    p.by_extension[int(e)] = sample_line(filter_image(s, processor.input(), Backend::Cpu),
                                         p.vertical, p.line, int(p.input.size()));
  } catch (const std::exception& ex) {
    p.by_extension[int(e)].clear();
    if (e == spec.ext) p.error = ex.what();
  }
}

void ViewProbes::update_impulse(const FilterSpec& spec, const ViewSettings& view, int w, int h) {
  const int x = view.probe_x < 0 ? std::min(w - 1, w / 16) : std::min(view.probe_x, w - 1);
  const int y = view.probe_y < 0 ? std::min(h - 1, h / 16) : std::min(view.probe_y, h - 1);
  std::uint64_t key = hash_combine(hash_spec(spec), std::uint64_t(x) << 32 | std::uint64_t(y));
  key = hash_combine(key, std::uint64_t(w) << 32 | std::uint64_t(h));
  ImpulseData& d = impulse_;
  if (key == d.key) return;
  d.key = key;
  d.x = x;
  d.y = y;
  d.error.clear();
  Image probe(w, h, 1);
  probe.at(x, y) = 1.0f;
  try {
    d.response = filter_image(spec, probe, Backend::Cpu);
  } catch (const std::exception& e) {
    d.error = e.what();
    d.response = Image();
    return;
  }
  d.max = 0.0;
  d.min_nonzero = 1e300;
  for (float v : d.response.pixels) {
    const double a = std::abs(double(v));
    d.max = std::max(d.max, a);
    if (a > 0) d.min_nonzero = std::min(d.min_nonzero, a);
  }
  d.texture.allocate(GL_R32F, w, h);
  d.texture.upload(GL_RED, GL_FLOAT, d.response.pixels.data());
}

void ViewProbes::update_response(const FilterSpec& spec) {
  if (response_valid_ && response_.spec == spec) return;
  response_ = compute_response(spec);
  response_valid_ = true;
}

}  // namespace rf::gui
