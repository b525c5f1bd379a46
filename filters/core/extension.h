// Boundary extensions: how a finite line of n samples continues beyond its ends.
#pragma once

#include "hd.h"

namespace rf {

// Every mode except Ignore is an exact infinite extension (Nehab & Maximo 2016); Ignore starts
// each recursion with zero initial feedback, the naive start that shows boundary artifacts.
enum class Extension {
  Ignore,  // zero initial feedback in both passes (not an extension of the input)
  Zero,    // zero padding: GL_CLAMP_TO_BORDER with a black border
  Clamp,   // constant padding with the edge value: GL_CLAMP_TO_EDGE
  Repeat,  // periodic: GL_REPEAT
  Mirror,  // even-periodic, half-sample symmetric cba|abc|cba: GL_MIRRORED_REPEAT, BORDER_REFLECT
  Reflect101,  // whole-sample symmetric dcb|abcd|cba, period 2n - 2: BORDER_REFLECT_101
  Constant,    // a value k outside the image, kkk|abc|kkk (FilterSpec::cval): BORDER_CONSTANT
};

inline constexpr Extension kAllExtensions[] = {
    Extension::Ignore, Extension::Zero,       Extension::Clamp,   Extension::Repeat,
    Extension::Mirror, Extension::Reflect101, Extension::Constant};

// Index into [0, n) of sample i of the extended line, or -1 where the extension holds no sample
// of the line (zero for Zero and Ignore, the constant for Constant). Valid for any integer i and
// n >= 1.
RF_HD constexpr int extend_index(int i, int n, Extension ext) {
  if (i >= 0 && i < n) return i;
  switch (ext) {
    case Extension::Clamp:
      return i < 0 ? 0 : n - 1;
    case Extension::Repeat: {
      int m = i % n;
      return m < 0 ? m + n : m;
    }
    case Extension::Mirror: {
      const int period = 2 * n;
      int m = i % period;
      if (m < 0) m += period;
      return m < n ? m : period - 1 - m;
    }
    case Extension::Reflect101: {
      if (n == 1) return 0;  // one sample reflects onto itself: the constant line
      const int period = 2 * n - 2;
      int m = i % period;
      if (m < 0) m += period;
      return m < n ? m : period - m;
    }
    default:
      return -1;
  }
}

}  // namespace rf
