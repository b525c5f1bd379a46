// One-way and two-way partitioned recursive Gaussian of Lee et al. 2014 on the CPU: a double
// reference and an OpenMP float path for 1 and 4 channel interleaved float images.
//
// Both filter rows, then columns (the paper's Fig. 1), with the Young-van Vliet coefficients of
// eq. (3)-(4) from rf::design(FilterKind::Yvrg) and the paper's boundary handling (edge sample
// duplicated as the previous outputs, Fig. 3), whatever extension a FilterSpec names: the exact
// extensions of yvrg live in the overlapped algorithm.
//
// Two-way (Fig. 4-6): each line is split into Bl = [0, n/2), the centre sample Pc = n/2 and
// Br = (n/2, n). Bl runs forward while Br runs backward and Pc is a direct Gaussian; then Bl runs
// backward and Br forward, both started from Pc. The result differs from one-way only near the
// centre seams (the centre column after the rows, the centre row after the columns) and near the
// borders, where Br's passes start in the other order.
#pragma once

#include <vector>

#include "../core/image.h"
#include "lee2014_math.h"

namespace rf::lee2014 {

enum class Partition { OneWay, TwoWay };

const char* to_string(Partition);

// The paper relates the filter window N to the Gaussian half-width by N = 2 sigma (Sec. 2.1).
inline double sigma_from_window(double window) {
  return 0.5 * window;
}

// The coefficients B, b1/b0, b2/b0, b3/b0 of eq. (3)-(4) for the Gaussian sigma, taken from
// rf::design(FilterKind::Yvrg) (our b0 is the paper's B, our a_k are -b_k / b0).
Coeffs<double> coefficients(double sigma);

// The same in float for the fast paths, with B recomputed from the rounded c_k as the paper
// defines it, B = 1 - (b1 + b2 + b3) / b0: the DC gain of a pass is B / (1 - c1 - c2 - c3), and
// for wide Gaussians B is so small (~1e-5 at sigma 45) that rounding B and the c_k separately
// would miss unit gain by a visible fraction.
Coeffs<float> float_coefficients(double sigma);

// Half-width of the direct Gaussian that computes Pc: ceil(3 sigma), at least 1. The paper's window
// N = 2 sigma would cover only +-sigma, 68% of the Gaussian; +-3 sigma holds 99.7%.
int centre_radius(double sigma);

// The sampled Gaussian of eq. (1) over offsets -radius..radius, normalised to unit sum (eq. 2).
std::vector<double> centre_weights(double sigma);

// Double references of one line (any stride-1 line of n >= 1 samples).
std::vector<double> one_way_line(double sigma, const std::vector<double>& x);
std::vector<double> two_way_line(double sigma, const std::vector<double>& x);

// Double references of a whole image (any channel count), rows then columns; sequential. The
// result is packed like Image::pixels.
std::vector<double> reference(Partition p, double sigma, const Image& in);

// The OpenMP float path. Plans once per sigma, size and channel count (any, usually 1 or 4).
class Plan {
 public:
  Plan(Partition p, double sigma, int width, int height, int channels);

  // Filters packed rows of width * channels floats; in == out allowed.
  void run(const float* in, float* out);

  Partition partition() const { return partition_; }
  int width() const { return width_; }
  int height() const { return height_; }
  int channels() const { return channels_; }

 private:
  void rows(const float* in, float* out);
  void columns(float* data);

  Partition partition_;
  int width_, height_, channels_;
  Coeffs<float> k_;
  int radius_;
  std::vector<float> weights_;
  std::vector<float> w_;       // the paper's intermediate array w[] for the whole image
  std::vector<float> centre_;  // Pc of every line and channel
};

// Convenience for tools and tests: filters a host image of any channel count.
Image filter(Partition p, double sigma, const Image& in);

// PSNR of eq. (5) with MAX_I = peak between two packed images of the same size.
double psnr(const std::vector<double>& a, const std::vector<double>& b, double peak);

}  // namespace rf::lee2014
