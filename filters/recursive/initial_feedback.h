// Exact initial feedbacks of a causal + anticausal recursive filter pair on a finite line, for
// every boundary extension, as linear maps evaluated in double (Nehab & Maximo 2016).
#pragma once

#include <vector>

#include "filters/core/design.h"
#include "filters/core/extension.h"

namespace rf {

// An r x n matrix of which only the columns [first, first + count) can be nonzero.
// Weights are stored column-major: weight(k, j) = w[(j - first) * rows + k].
struct SparseColumns {
  int rows = 0;
  int first = 0;
  int count = 0;
  std::vector<double> w;

  double weight(int k, int j) const {
    return (j < first || j >= first + count) ? 0.0 : w[std::size_t(j - first) * rows + k];
  }
};

// For one line of n samples x[0..n) and the filter f of order r:
//   causal initial feedback      (y[-1], y[-2], ..., y[-r]) = causal_from_x * x
//   anticausal initial feedback  (z[n], z[n+1], ..., z[n+r-1]) = anticausal_from_y * y
//                                                               + anticausal_from_x * x
// where y is the causal output of the line (started with the causal initial feedback). Running the
// recursions of design.h from these feedbacks gives exactly the result of filtering the infinite
// extension of x. Columns whose weights are below 1e-17 of the largest are dropped, so applying a
// map costs O(r * count).
struct BoundaryMaps {
  int order = 0;
  int n = 0;
  SparseColumns causal_from_x;
  SparseColumns anticausal_from_y;
  SparseColumns anticausal_from_x;
};

BoundaryMaps boundary_maps(const Recursive& f, Extension ext, int n);

}  // namespace rf
