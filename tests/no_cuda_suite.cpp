// The CUDA suite of a build without a CUDA compiler: nothing of it can run, and it says so.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "filters/core/engine.h"

TEST_CASE("cuda suite: this build has no CUDA") {
  std::string why;
  CHECK_FALSE(rf::cuda_available(&why));
  std::printf("[skipped] CUDA unavailable: %s\n", why.c_str());
}
