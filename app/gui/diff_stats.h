// Error statistics of a result against its truth: whole image, a border band and the interior.
// Boundary artifacts live in the band; the interior tells whether the filter itself is accurate.
#pragma once

#include <cstddef>

#include "filters/core/image.h"

namespace rf::gui {

struct ErrorStats {
  double max_abs = 0.0;
  double rmse = 0.0;
  double psnr = 0.0;  // dB against a peak of 1 (images are on [0, 1]); infinite when rmse is 0
  std::size_t samples = 0;
};

struct DiffStats {
  ErrorStats whole, border, interior;
  int band = 0;  // border band width in pixels
};

// Compares the first `channels` channels of two images of equal size (RGB of RGBA: alpha is not
// filtered content). A pixel is in the band when it lies within `band` pixels of any edge.
DiffStats diff_stats(const Image& result, const Image& truth, int band, int channels = 3);

// Border band width for a sigma: ceil(3 sigma), at least 1.
int default_band(double sigma);

}  // namespace rf::gui
