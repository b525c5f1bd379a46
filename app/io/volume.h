// 3-D volumes as multi-page TIFF: a stack of alike images, one page per z, through the TIFF reader
// and writer of app/io/tiff.h. Any image file read_image() reads is a volume of depth 1, and a
// volume of depth 1 is written as write_image() writes it, so that a 2-D image passes wherever a
// volume is taken.
//
// Reading a TIFF decodes every full-resolution page (reduced-resolution pages are skipped) the way
// read_image() decodes its one page, and refuses, as IoError("FILE: problem") in one line, what
// read_image() refuses and also: pages that differ in size, channel count or depth ("FILE: page 3
// is 640x480 RGB, page 1 512x512 gray: ..."), more than kMaxPages pages, more than
// kMaxVolumeSamples samples in all (both checked from the directories, before any sample is
// allocated), and a directory that cannot be read anywhere in the chain (a stack cut short).
//
// Writing: .tif/.tiff at 8, 16 or 32 bits (float), as write_image() writes TIFF, one page per z;
// other extensions take a volume of depth 1 only. The file is written whole or not at all
// (app/io/atomic_file.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rf::io {

// A stack of equal pages: depth pages of height rows of width pixels of `channels` interleaved
// floats, page-major (index ((z * height + y) * width + x) * channels + c). 8/16-bit samples
// normalised to [0, 1] as read_image does.
struct Volume {
  int width = 0, height = 0, depth = 0, channels = 0;
  std::vector<float> voxels;
};

// A multi-page TIFF as a volume (every full-resolution page; reduced-resolution pages skipped);
// any other image file read_image() takes, as a volume of depth 1. `bits` as read_image's.
// max_samples (0: kMaxVolumeSamples alone) refuses a stack of several pages holding more samples,
// before any is allocated.
Volume read_volume(const std::string& path, int* bits = nullptr, std::size_t max_samples = 0);

// .tif/.tiff: one page per z (depth 1: the same file write_image writes). Other extensions take
// depth 1 only (write_image), else IoError naming the file and saying a volume needs .tif. `bits`
// as write_image's: 0 asks for the format's default.
void write_volume(const std::string& path, const Volume& v, int bits = 0);

}  // namespace rf::io
