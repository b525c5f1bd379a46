// A multi-page TIFF (a z-stack, a time series) played as a sequence of its pages, as a folder of
// images plays: at a frame rate, looping, paused and stepped page by page. The whole stack is
// decoded when it opens (app/io/volume.h) and each page becomes a frame when its time comes, so
// nothing waits for a decoder while it plays. Filtering through the pages (z) is rfcli's
// (--axes); here each page is an image of its own.
#include <algorithm>
#include <cstdio>
#include <mutex>

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
      : name_(detail::base_name(path)), volume_(std::move(volume)), format_(format), clock_(fps) {
    frame_ = page(0);
  }

  std::string description() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    char fps[32];
    std::snprintf(fps, sizeof fps, "%g", clock_.fps());
    return name_ + ": page " + std::to_string(shown_ + 1) + " of " + std::to_string(volume_.depth) +
           ", " + std::to_string(volume_.width) + "x" + std::to_string(volume_.height) +
           (format_ == PixelFormat::RGBA32F ? " float" : "") + " at " + fps + " fps";
  }

  bool poll(Frame& frame) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const int due = int(clock_.frame() % volume_.depth);
    if (due != shown_) {
      frame_ = page(due);
      shown_ = due;
    }
    if (!frame.bytes.empty() && frame.index >= frame_.index) return false;
    frame = frame_;
    return true;
  }

  void set_paused(bool paused) override {
    std::lock_guard<std::mutex> lock(mutex_);
    clock_.set_paused(paused);
  }
  // While paused: the next page (after the last, the first).
  void step() override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (clock_.paused()) clock_.seek(clock_.frame() + 1);
  }
  bool animated() const override { return true; }
  double fps() const override { return clock_.fps(); }

 private:
  // Page z as a frame: gray replicated to RGB, 16-bit and float pages as RGBA32F (as an image
  // file of that depth opens).
  Frame page(int z) const {
    Image img(volume_.width, volume_.height, volume_.channels);
    const auto first =
        volume_.voxels.begin() + std::ptrdiff_t(z) * std::ptrdiff_t(img.pixels.size());
    std::copy(first, first + std::ptrdiff_t(img.pixels.size()), img.pixels.begin());
    Frame f = detail::image_to_frame(img, format_);
    f.index = detail::next_frame_index();
    return f;
  }

  mutable std::mutex mutex_;
  const std::string name_;
  const io::Volume volume_;
  const PixelFormat format_;
  detail::FrameClock clock_;
  int shown_ = 0;
  Frame frame_;
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
