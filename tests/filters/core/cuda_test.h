// CUDA tests report themselves skipped (CTest matches "[skipped]") when no device can be used.
#pragma once

#include <cstdio>
#include <string>

#include "filters/core/engine.h"

#define RF_REQUIRE_CUDA()                                               \
  do {                                                                  \
    std::string rf_why_;                                                \
    if (!rf::cuda_available(&rf_why_)) {                                \
      std::printf("[skipped] CUDA unavailable: %s\n", rf_why_.c_str()); \
      return;                                                           \
    }                                                                   \
  } while (0)
