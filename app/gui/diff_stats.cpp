#include "app/gui/diff_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace rf::gui {
namespace {

struct Accumulator {
  double max_abs = 0.0, sum_sq = 0.0;
  std::size_t n = 0;
  void add(double d) {
    max_abs = std::max(max_abs, std::abs(d));
    sum_sq += d * d;
    ++n;
  }
  ErrorStats finish() const {
    ErrorStats s;
    s.samples = n;
    s.max_abs = max_abs;
    s.rmse = n ? std::sqrt(sum_sq / double(n)) : 0.0;
    s.psnr =
        s.rmse > 0.0 ? 20.0 * std::log10(1.0 / s.rmse) : std::numeric_limits<double>::infinity();
    return s;
  }
};

}  // namespace

DiffStats diff_stats(const Image& result, const Image& truth, int band, int channels) {
  if (result.width != truth.width || result.height != truth.height ||
      result.channels != truth.channels)
    throw std::invalid_argument("diff_stats: images differ in size or channel count");
  channels = std::min(channels, result.channels);
  Accumulator whole, border, interior;
  for (int y = 0; y < result.height; ++y) {
    const bool row_in_band = y < band || y >= result.height - band;
    for (int x = 0; x < result.width; ++x) {
      const bool in_band = row_in_band || x < band || x >= result.width - band;
      for (int c = 0; c < channels; ++c) {
        const double d = double(result.at(x, y, c)) - double(truth.at(x, y, c));
        whole.add(d);
        (in_band ? border : interior).add(d);
      }
    }
  }
  DiffStats s;
  s.whole = whole.finish();
  s.border = border.finish();
  s.interior = interior.finish();
  s.band = band;
  return s;
}

int default_band(double sigma) {
  return std::max(1, int(std::ceil(3.0 * sigma)));
}

}  // namespace rf::gui
