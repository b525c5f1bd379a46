// A multi-page TIFF (a z-stack, a time series) played as a sequence of its pages, as a folder of
// images plays: at a frame rate, looping, paused and stepped page by page. The whole stack is
// decoded when it opens (app/io/volume.h) and each page becomes a frame when its time comes, so
// nothing waits for a decoder while it plays. Filtering through the pages (z) is rfcli's
// (--axes); here each page is an image of its own.
#include <algorithm>
#include <cstdio>

#include "app/io/volume.h"
#include "app/sources/source.h"
#include "app/sources/source_detail.h"
#include "filters/core/errors.h"

namespace rf::app {
namespace {

// The most samples a stack may hold to be played here (1 GiB of floats): the pages stay in memory
// as long as they play.
constexpr std::size_t kMaxPlayedSamples = std::size_t(1) << 28;

class PagesSource final : public Source {
 public:
  PagesSource(const std::string& path, io::Volume volume, PixelFormat format, double fps)
      : name_(detail::base_name(path)),
        volume_(std::move(volume)),
        format_(format),
        pages_(fps, [this](std::int64_t n) { return page(int(n % volume_.depth)); }) {}

  std::string description() const override {
    char fps[32];
    std::snprintf(fps, sizeof fps, "%g", pages_.fps());
    return name_ + ": page " + std::to_string(pages_.shown() % volume_.depth + 1) + " of " +
           std::to_string(volume_.depth) + ", " + std::to_string(volume_.width) + "x" +
           std::to_string(volume_.height) + (format_ == PixelFormat::RGBA32F ? " float" : "") +
           " at " + fps + " fps";
  }
  bool poll(Frame& frame) override { return pages_.poll(frame); }
  void set_paused(bool paused) override { pages_.set_paused(paused); }
  // While paused: the next page (after the last, the first).
  void step() override { pages_.step(); }
  bool animated() const override { return true; }
  double fps() const override { return pages_.fps(); }

 private:
  // Page z as a frame: gray replicated to RGB, 16-bit and float pages as RGBA32F (as an image
  // file of that depth opens).
  Frame page(int z) const {
    Image img(volume_.width, volume_.height, volume_.channels);
    const auto first =
        volume_.voxels.begin() + std::ptrdiff_t(z) * std::ptrdiff_t(img.pixels.size());
    std::copy(first, first + std::ptrdiff_t(img.pixels.size()), img.pixels.begin());
    return detail::image_to_frame(img, format_);
  }

  const std::string name_;
  const io::Volume volume_;
  const PixelFormat format_;
  detail::ClockedFrames pages_;  // last: its first page is rendered from the members above
};

}  // namespace

namespace detail {

std::unique_ptr<Source> open_tiff(const std::string& path, double fps) {
  int bits = 8;
  io::Volume volume = io::read_volume(path, &bits, kMaxPlayedSamples);
  const PixelFormat format = bits > 8 ? PixelFormat::RGBA32F : PixelFormat::RGBA8;
  if (volume.depth == 1) {
    Image img(volume.width, volume.height, volume.channels);
    img.pixels = std::move(volume.voxels);
    return still_source(path, image_to_frame(img, format));
  }
  return std::make_unique<PagesSource>(path, std::move(volume), format, fps);
}

}  // namespace detail

}  // namespace rf::app
