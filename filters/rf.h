// Recursive Filter Studio's library for other programs: everything a program outside needs.
//
//   #include <rf/rf.h>
//   rf::FilterSpec spec;                        // Gaussian order 3, sigma 4, mirror extension
//   spec.sigma = 8.0;
//   auto engine = rf::make_engine(rf::Backend::Auto);
//   engine->plan(spec, width, height, rf::PixelFormat::RGBA32F);   // once per spec and size
//   engine->run(in_view, out_view);                                // per frame
//
// Link with rf::rf (CMake: find_package(rf CONFIG REQUIRED)) or `pkg-config --libs rf`. No header
// here names a CUDA type: device memory and streams travel as void* and std::uint64_t.
#pragma once

#include "core/array.h"
#include "core/design.h"
#include "core/device_frame.h"
#include "core/engine.h"
#include "core/errors.h"
#include "core/extension.h"
#include "core/filter_table.h"
#include "core/image.h"
#include "core/response.h"
#include "core/spec.h"
#include "truth/truth.h"
#include "edge_aware/edge_aware.h"
#include "lee2014/lee2014.h"
#include "recursive/pair_modes.h"
#include "recursive/reference.h"
