// The measurement drafts' entry point: a thrown error (CUDA_CHECK throws rf::DeviceError) is one
// line naming the draft and the error, exit status 2.
#pragma once

#include <cstdio>
#include <exception>

namespace rf::drafts {

template <class Body>
int run_draft(const char* name, Body body, int argc, char** argv) {
  try {
    return body(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  }
}

}  // namespace rf::drafts
