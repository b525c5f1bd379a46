// One pixel of C channels in the arithmetic type T, shared by host and device code: what the frame
// readers and writers of io.cuh return and the kernels filter.
#pragma once

#include "filters/core/hd.h"

namespace rf::cuda {

// C channels filtered independently (1: R32F, 4: RGBA): float in the blocks, double where long
// chains (block carries, boundary seeds) would accumulate float rounding.
template <int C, class T = float>
struct alignas(C * sizeof(T) >= 16 ? 16 : C * sizeof(T)) Vec {
  T v[C];
};

template <int C, class T = float>
RF_HDI Vec<C, T> zero_vec() {
  Vec<C, T> r;
#pragma unroll
  for (int c = 0; c < C; ++c) r.v[c] = T(0);
  return r;
}

template <int C, class T = double>
RF_HDI Vec<C, T> filled(T value) {
  Vec<C, T> r;
#pragma unroll
  for (int c = 0; c < C; ++c) r.v[c] = value;
  return r;
}

template <class T, int C, class S>
RF_HDI Vec<C, T> convert(const Vec<C, S>& a) {
  Vec<C, T> r;
#pragma unroll
  for (int c = 0; c < C; ++c) r.v[c] = T(a.v[c]);
  return r;
}

template <int C, class T>
RF_HDI Vec<C, T> operator*(T s, Vec<C, T> a) {
#pragma unroll
  for (int c = 0; c < C; ++c) a.v[c] *= s;
  return a;
}

// a += s * b
template <int C, class T>
RF_HDI void fma_into(Vec<C, T>& a, T s, const Vec<C, T>& b) {
#pragma unroll
  for (int c = 0; c < C; ++c) a.v[c] = a.v[c] + s * b.v[c];
}

}  // namespace rf::cuda
