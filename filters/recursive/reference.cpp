// Double-precision references. filter_line_padded and the FIR Gaussian share no code with the
// exact initial feedbacks or the block algebra, so they can judge them.
#include "filters/recursive/reference.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "filters/core/errors.h"
#include "filters/recursive/direct_form.h"
#include "filters/recursive/modal.h"

namespace rf::ref {

namespace {

// The recursions carry their state in extended precision. For poles clustered near z = 1 (order 5
// at sigma 200) a rounding of the state is amplified ~1e7 times by the recursion that follows, so
// in double the two references would disagree by 1e-7 whatever their initial feedbacks; in long
// double both stay near 1e-10 and can judge those feedbacks. Lines are stored in double between
// the passes, a rounding of the input that the filter does not amplify.
using Wide = long double;

// Causal recursion over x[0..n) from the feedback w = (y[-1], ..., y[-r]), in place.
void causal_pass(const Recursive& f, std::vector<Wide> w, double* x, int n) {
  const int r = f.order();
  for (int i = 0; i < n; ++i) {
    Wide y = Wide(f.b0) * x[i];
    for (int k = 0; k < r; ++k) y -= Wide(f.a[k]) * w[k];
    for (int k = r - 1; k > 0; --k) w[k] = w[k - 1];
    w[0] = y;
    x[i] = y;
  }
}

// Anticausal recursion over y[0..n) from the feedback w = (z[n], ..., z[n+r-1]), in place.
void anticausal_pass(const Recursive& f, std::vector<Wide> w, double* y, int n) {
  const int r = f.order();
  for (int i = n - 1; i >= 0; --i) {
    Wide z = Wide(f.b0) * y[i];
    for (int k = 0; k < r; ++k) z -= Wide(f.a[k]) * w[k];
    for (int k = r - 1; k > 0; --k) w[k] = w[k - 1];
    w[0] = z;
    y[i] = z;
  }
}

std::vector<Wide> apply(const direct_form::SparseColumns& m, const std::vector<double>& x,
                        std::vector<Wide> acc) {
  for (int j = m.first; j < m.first + m.count; ++j)
    for (int k = 0; k < m.rows; ++k) acc[k] += Wide(m.weight(k, j)) * x[j];
  return acc;
}

// The difference of order 1, (x[i+1] - x[i-1]) / 2, or 2, x[i+1] - 2 x[i] + x[i-1], of a line in
// place; its two end samples, which lack a neighbour, become 0 (the padding keeps them far from
// the samples kept).
void difference(std::vector<double>& line, int order) {
  if (order == 0 || line.size() < 3) return;
  const std::vector<double> x = line;
  for (std::size_t i = 1; i + 1 < x.size(); ++i)
    line[i] = order == 1 ? 0.5 * (x[i + 1] - x[i - 1]) : x[i + 1] - 2.0 * x[i] + x[i - 1];
  line.front() = line.back() = 0.0;
}

// Filters x, extended by `pad` samples on each side with extend_index (zero where it gives -1,
// cval for the constant extension), causally then anticausally from zero feedback; writes the
// central n samples to out. A derivative differences the extended line before it is filtered.
void padded_line(const Recursive& f, Extension ext, double cval, const double* x, int n,
                 std::ptrdiff_t stride, int pad, std::vector<double>& scratch, double* out,
                 std::ptrdiff_t out_stride, int derivative = 0) {
  const int len = n + 2 * pad;
  const double outside = ext == Extension::Constant ? cval : 0.0;
  scratch.resize(len);
  for (int i = 0; i < len; ++i) {
    const int j = extend_index(i - pad, n, ext);
    scratch[i] = j < 0 ? outside : x[j * stride];
  }
  difference(scratch, derivative);
  const std::vector<Wide> zero(f.order(), 0.0L);
  causal_pass(f, zero, scratch.data(), len);
  if (!f.causal_only) anticausal_pass(f, zero, scratch.data(), len);
  for (int i = 0; i < n; ++i) out[i * out_stride] = scratch[pad + i];
}

modal::Form modes_of(const Recursive& f) {
  try {
    return modal::modal_form(f);
  } catch (const std::domain_error& e) {
    throw InvalidParameter(std::string("reference: ") + e.what());
  }
}

// Samples of padding after which the impulse response holds less than modal::kDoubleUnit of its
// mass: truncating the extension there changes the output by far less than double rounding.
// Callers filter many lines with one filter, so the last answer of each thread is kept.
int padding_for(const Recursive& f, Extension ext) {
  if (ext == Extension::Ignore) return 0;
  if (ext == Extension::Zero && f.causal_only) return 0;
  struct Last {
    Recursive f;
    int pad = -1;
  };
  thread_local Last last;
  if (last.pad >= 0 && last.f.b0 == f.b0 && last.f.a == f.a && last.f.causal_only == f.causal_only)
    return last.pad;
  const modal::Form form = modes_of(f);
  for (std::size_t k = 0; k < form.pole_re.size(); ++k)
    if (std::hypot(form.pole_re[k], form.pole_im[k]) >= 1.0)
      throw InvalidParameter(std::string("reference: extension '") + to_string(ext) +
                             "' is undefined for a filter with a pole on the unit circle");
  last.f = f;
  last.pad = int(modal::tail_length(form, modal::kDoubleUnit)) + f.order();
  return last.pad;
}

}  // namespace

std::vector<double> filter_line_exact(const Recursive& f, Extension ext,
                                      const std::vector<double>& x, double cval) {
  const int n = int(x.size());
  const int r = f.order();
  const direct_form::LineMaps maps = direct_form::line_maps(f, ext, n);
  auto from_value = [&](const std::vector<double>& window) {
    std::vector<Wide> acc(r, 0.0L);
    for (int k = 0; k < r; ++k) acc[k] = Wide(window[std::size_t(k)]) * cval;
    return acc;
  };
  std::vector<double> y = x;
  causal_pass(f, apply(maps.causal_from_x, x, from_value(maps.causal_from_value)), y.data(), n);
  if (f.causal_only) return y;
  std::vector<Wide> e = apply(maps.anticausal_from_y, y, from_value(maps.anticausal_from_value));
  e = apply(maps.anticausal_from_x, x, e);
  anticausal_pass(f, e, y.data(), n);
  return y;
}

std::vector<double> filter_line_padded(const Recursive& f, Extension ext,
                                       const std::vector<double>& x, double cval) {
  const int n = int(x.size());
  std::vector<double> out(n), scratch;
  padded_line(f, ext, cval, x.data(), n, 1, padding_for(f, ext), scratch, out.data(), 1);
  return out;
}

namespace {

// One separable pass over a double image (channels interleaved) along columns (vertical) or rows.
// `cost` is the work of one sample of a line; passes of less than ~1e5 units run on one thread.
template <typename LineFn>
void separable_pass(std::vector<double>& img, int width, int height, int channels, bool vertical,
                    LineFn&& line, double cost = 1.0) {
  const int lines = (vertical ? width : height) * channels;
  const int n = vertical ? height : width;
  const std::ptrdiff_t stride = vertical ? std::ptrdiff_t(width) * channels : channels;
#pragma omp parallel if (double(lines) * n * cost > 1e5)
  {
    std::vector<double> in(n), out(n), scratch;
#pragma omp for schedule(static)
    for (int l = 0; l < lines; ++l) {
      const int c = l % channels, pos = l / channels;
      double* base =
          img.data() + c +
          (vertical ? std::ptrdiff_t(pos) * channels : std::ptrdiff_t(pos) * width * channels);
      for (int i = 0; i < n; ++i) in[i] = base[i * stride];
      line(in.data(), n, out.data(), scratch);
      for (int i = 0; i < n; ++i) base[i * stride] = out[i];
    }
  }
}

// The sampled Gaussian of `sigma`, normalised to unit sum and truncated at >= 6 sigma, where its
// tail is below 1e-8 of the peak; or its derivative of order 1 or 2 (scipy.ndimage's kernels: the
// normalised Gaussian times -t / sigma^2 or (t^2 - sigma^2) / sigma^4, here written for
// correlation, sum_t k(t) x[i + t]). Taps -radius..radius.
std::vector<double> fir_kernel(double sigma, int derivative) {
  if (!(sigma > 0.0)) throw InvalidParameter("FIR Gaussian: sigma must be > 0");
  const int radius = std::max(1, int(std::ceil(6.0 * sigma))) + (derivative > 0 ? 2 : 0);
  std::vector<double> kernel(2 * radius + 1);
  double sum = 0.0;
  for (int i = -radius; i <= radius; ++i)
    sum += kernel[i + radius] = std::exp(-0.5 * double(i) * i / (sigma * sigma));
  for (double& k : kernel) k /= sum;
  const double s2 = sigma * sigma;
  for (int i = -radius; i <= radius; ++i)
    kernel[i + radius] *= derivative == 1   ? double(i) / s2
                          : derivative == 2 ? (double(i) * i - s2) / (s2 * s2)
                                            : 1.0;
  return kernel;
}

// One line of n samples correlated with `kernel`, continued by the extension (Ignore as Zero).
void fir_line(const std::vector<double>& kernel, Extension ext, double cval, const double* x, int n,
              double* out, std::vector<double>& ext_line) {
  const int radius = int(kernel.size() / 2);
  ext_line.resize(std::size_t(n) + 2 * radius);
  for (int i = 0; i < n + 2 * radius; ++i) {
    const int j = extend_index(i - radius, n, ext);
    ext_line[i] = j < 0 ? (ext == Extension::Constant ? cval : 0.0) : x[j];
  }
  for (int i = 0; i < n; ++i) {
    double acc = 0.0;
    const double* src = ext_line.data() + i;
    for (std::size_t k = 0; k < kernel.size(); ++k) acc += kernel[k] * src[k];
    out[i] = acc;
  }
}

// One separable pass of fir_kernel over an image.
void fir_pass(std::vector<double>& img, const Image& in, double sigma, Extension ext, double cval,
              bool vertical, int derivative) {
  const std::vector<double> kernel = fir_kernel(sigma, derivative);
  auto fir = [&](const double* x, int n, double* out, std::vector<double>& ext_line) {
    fir_line(kernel, ext, cval, x, n, out, ext_line);
  };
  separable_pass(img, in.width, in.height, in.channels, vertical, fir, double(kernel.size()));
}

}  // namespace

std::vector<double> fir_gaussian_line(const std::vector<double>& x, double sigma, Extension ext,
                                      double cval, int derivative) {
  std::vector<double> out(x.size()), scratch;
  fir_line(fir_kernel(sigma, derivative), ext, cval, x.data(), int(x.size()), out.data(), scratch);
  return out;
}

double padded_constant_after(const Recursive& columns, double cval) {
  return filter_line_padded(columns, Extension::Constant, {cval}, cval)[0];
}

std::vector<double> filter_image_padded(const AxisDesigns& filters, Extension ext, const Image& in,
                                        double cval, int dx, int dy) {
  std::vector<double> img(in.pixels.begin(), in.pixels.end());
  for (const bool vertical : {true, false}) {
    const Recursive& f = vertical ? filters.y : filters.x;
    // A derivative's padding holds the difference as far from the kept samples as the filter's.
    const int pad = padding_for(f, ext) + ((vertical ? dy : dx) > 0 ? 2 : 0);
    // Past the rows' ends the columns' filter of the constant, whose difference is zero.
    const double outside = vertical || ext != Extension::Constant ? cval
                           : dy > 0                               ? 0.0
                                    : padded_constant_after(filters.y, cval);
    auto line = [&](const double* x, int n, double* out, std::vector<double>& scratch) {
      padded_line(f, ext, outside, x, n, 1, pad, scratch, out, 1, vertical ? dy : dx);
    };
    // A line costs its padding as much as its samples.
    const int n = vertical ? in.height : in.width;
    separable_pass(img, in.width, in.height, in.channels, vertical, line, (n + 2.0 * pad) / n);
  }
  return img;
}

std::vector<double> fir_gaussian(const Image& in, double sigma, Extension ext, double cval) {
  return fir_gaussian(in, sigma, sigma, ext, cval);
}

// The kernel sums to one: the rows see cval itself past their ends.
std::vector<double> fir_gaussian(const Image& in, double sigma_x, double sigma_y, Extension ext,
                                 double cval, int dx, int dy) {
  // Ignore is not an extension of the input: it reads as Zero.
  if (ext == Extension::Ignore) ext = Extension::Zero;
  std::vector<double> img(in.pixels.begin(), in.pixels.end());
  for (const bool vertical : {true, false})
    fir_pass(img, in, vertical ? sigma_y : sigma_x, ext, cval, vertical, vertical ? dy : dx);
  return img;
}

}  // namespace rf::ref

namespace rf::ref {

std::vector<double> with_derivative(
    const FilterSpec& spec,
    const std::function<std::vector<double>(const FilterSpec&, int, int)>& partial) {
  const Derivative& d = spec.derivative;
  std::vector<double> out;
  for (const Partial& p : partials(d)) {
    const int dx = p.x, dy = p.y;
    FilterSpec term = spec;
    term.derivative = Derivative{};
    term.derivative.x = dx;
    term.derivative.y = dy;
    std::vector<double> v = partial(term, dx, dy);
    const double scale = d.normalized ? std::pow(sigma_along(spec, Axis::X), dx) *
                                            std::pow(sigma_along(spec, Axis::Y), dy)
                                      : 1.0;
    if (out.empty()) out.assign(v.size(), 0.0);
    for (std::size_t i = 0; i < v.size(); ++i)
      out[i] += d.measure == Derivative::Measure::GradientMagnitude
                    ? (scale * v[i]) * (scale * v[i])
                    : scale * v[i];
  }
  if (d.measure == Derivative::Measure::GradientMagnitude)
    for (double& v : out) v = std::sqrt(v);
  return out;
}

std::vector<double> padded_reference(const FilterSpec& spec, const Image& in) {
  return with_derivative(spec, [&](const FilterSpec& s, int dx, int dy) {
    return filter_image_padded(design_axes(s), s.ext, in, s.cval, dx, dy);
  });
}

}  // namespace rf::ref
