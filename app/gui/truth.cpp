#include "app/gui/truth.h"

#include <chrono>
#include <exception>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/edge_aware/edge_aware.h"
#include "filters/recursive/reference.h"
#include "filters/truth/truth.h"

namespace rf::gui {
namespace {

// The mode the truth is computed in: the request's, where the modes apply.
TruthMode mode_of(const TruthRequest& r) {
  return truth_modes_apply(r.spec) ? r.mode : TruthMode::Fir;
}

FilterSpec truth_spec(const TruthRequest& r) {
  FilterSpec s = r.spec;
  if (mode_of(r) == TruthMode::OtherExtension || s.ext == Extension::Ignore) s.ext = r.truth_ext;
  if (s.ext == Extension::Ignore) s.ext = Extension::Mirror;
  // The summed-area table takes only the zero extension, which is also what its ignore means.
  if (s.kind == FilterKind::Sat && r.spec.ext == Extension::Ignore) s.ext = Extension::Zero;
  return s;
}

struct Cancelled {};

// A derivative's padded truth: ref::padded_reference, channel by channel.
Image padded_derivative(const FilterSpec& spec, const Image& in, std::atomic<float>* progress,
                        const std::atomic<bool>* cancel) {
  Image out = in;
  for (int c = 0; c < 3; ++c) {
    if (cancel->load()) throw Cancelled{};
    Image plane(in.width, in.height, 1);
    for (std::size_t i = 0; i < plane.pixels.size(); ++i) plane.pixels[i] = in.pixels[4 * i + c];
    const std::vector<double> t = ref::padded_reference(spec, plane);
    for (std::size_t i = 0; i < plane.pixels.size(); ++i) out.pixels[4 * i + c] = float(t[i]);
    progress->store(float(c + 1) / 3.0f);
  }
  return out;
}

// Columns (the filter along y) then rows (along x), each line through the padded double
// reference (filter_line_padded). Under the constant extension the rows see the column filter of
// the constant past their ends, as ref::filter_image_padded has it.
Image padded_truth(const FilterSpec& spec, const Image& in, std::atomic<float>* progress,
                   const std::atomic<bool>* cancel) {
  if (spec.derivative.any()) return padded_derivative(spec, in, progress, cancel);
  const AxisDesigns f = design_axes(spec);
  const double row_cval =
      spec.ext == Extension::Constant ? ref::padded_constant_after(f.y, spec.cval) : 0.0;
  Image out = in;
  const int channels = 3;
  const double lines = double(channels) * (in.width + in.height);
  double done = 0;
  std::vector<double> line;
  for (int c = 0; c < channels; ++c) {
    for (int x = 0; x < in.width; ++x, ++done) {
      if (cancel->load()) throw Cancelled{};
      line.resize(in.height);
      for (int y = 0; y < in.height; ++y) line[y] = out.at(x, y, c);
      const std::vector<double> z = ref::filter_line_padded(f.y, spec.ext, line, spec.cval);
      for (int y = 0; y < in.height; ++y) out.at(x, y, c) = float(z[y]);
      progress->store(float(done / lines));
    }
    for (int y = 0; y < in.height; ++y, ++done) {
      if (cancel->load()) throw Cancelled{};
      line.resize(in.width);
      for (int x = 0; x < in.width; ++x) line[x] = out.at(x, y, c);
      const std::vector<double> z = ref::filter_line_padded(f.x, spec.ext, line, row_cval);
      for (int x = 0; x < in.width; ++x) out.at(x, y, c) = float(z[x]);
      progress->store(float(done / lines));
    }
  }
  return out;
}

// rf::ground_truth channel by channel: progress and cancellation between channels. The
// edge-aware filter is the exception: its domain transform (eq. 2) measures edges over all colour
// channels at once, so its reference takes the RGB image whole.
Image reference_truth(const FilterSpec& spec, const Image& in, std::atomic<float>* progress,
                      const std::atomic<bool>* cancel) {
  Image out = in;
  if (spec.kind == FilterKind::EdgeAware) {
    if (cancel->load()) throw Cancelled{};
    Image rgb(in.width, in.height, 3);
    for (std::size_t i = 0; i < std::size_t(in.width) * in.height; ++i)
      for (int c = 0; c < 3; ++c) rgb.pixels[3 * i + c] = in.pixels[4 * i + c];
    const Image t = edge_aware_reference(spec, rgb);
    for (std::size_t i = 0; i < std::size_t(in.width) * in.height; ++i)
      for (int c = 0; c < 3; ++c) out.pixels[4 * i + c] = t.pixels[3 * i + c];
    progress->store(1.0f);
    return out;
  }
  for (int c = 0; c < 3; ++c) {
    if (cancel->load()) throw Cancelled{};
    Image plane(in.width, in.height, 1);
    for (std::size_t i = 0; i < plane.pixels.size(); ++i) plane.pixels[i] = in.pixels[4 * i + c];
    const Image t = ground_truth(spec, plane);
    for (std::size_t i = 0; i < plane.pixels.size(); ++i) out.pixels[4 * i + c] = t.pixels[i];
    progress->store(float(c + 1) / 3.0f);
  }
  return out;
}

}  // namespace

bool truth_modes_apply(const FilterSpec& spec) {
  return spec.kind != FilterKind::EdgeAware;
}

Extension truth_extension(const TruthRequest& r, bool* chosen) {
  if (chosen) *chosen = mode_of(r) == TruthMode::OtherExtension || r.spec.ext == Extension::Ignore;
  return truth_spec(r).ext;
}

std::string truth_label(const TruthRequest& r) {
  const FilterSpec s = truth_spec(r);
  const std::string ext = to_string(s.ext);
  switch (mode_of(r)) {
    case TruthMode::OtherExtension:
      return "the same filter with extension " + ext;
    case TruthMode::Padded:
      return "padded sequential recursion in double, " + ext;
    case TruthMode::Fir:
      break;
  }
  if (s.kind == FilterKind::EdgeAware) return "edge-aware reference in double (algorithm A)";
  if (fir_truth(s) && s.derivative.any())
    return "sampled Gaussian derivative in double (6 sigma), " + ext;
  if (fir_truth(s)) return "FIR Gaussian in double (6 sigma), " + ext;
  return "padded sequential recursion in double, " + ext;
}

TruthResult compute_truth(const TruthRequest& r, std::atomic<float>* progress,
                          const std::atomic<bool>* cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  TruthResult out;
  out.key = r.key;
  out.label = truth_label(r);
  progress->store(0.0f);
  try {
    const FilterSpec s = truth_spec(r);
    const TruthMode mode = mode_of(r);
    if (mode == TruthMode::OtherExtension) {
      // The CPU engine, so the comparison isolates the extension from the backend.
      out.truth = filter_image(s, r.input, Backend::Cpu);
    } else if (mode == TruthMode::Fir && fir_truth(s) && cuda_available()) {
      // The same FIR Gaussian in double on the GPU: live truth even for large sigma. A GPU
      // fault (out of memory) costs speed, not the truth: the CPU computes it instead.
      try {
        out.truth = ground_truth(s, r.input, Backend::Cuda);
        out.label += " on the GPU";
      } catch (const DeviceError& e) {
        out.truth = reference_truth(s, r.input, progress, cancel);
        out.label += std::string(" on the CPU (the GPU failed: ") + e.what() + ")";
      }
    } else if (mode == TruthMode::Padded) {
      out.truth = padded_truth(s, r.input, progress, cancel);
    } else {
      out.truth = reference_truth(s, r.input, progress, cancel);
    }
    if (!r.result.empty()) out.stats = diff_stats(r.result, out.truth, r.band);
  } catch (const Cancelled&) {
    out.truth = Image();
    out.error = "cancelled";
  } catch (const std::exception& e) {
    out.truth = Image();
    out.error = e.what();
  }
  progress->store(1.0f);
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace rf::gui
