// Still images, open_path, and the utilities every source shares.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "app/io/image_io.h"
#include "app/sources/source.h"
#include "app/sources/source_detail.h"
#include "filters/core/errors.h"

namespace rf::app {
namespace detail {

std::uint64_t next_frame_index() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const unsigned char ca = a[i], cb = b[j];
    if (std::isdigit(ca) && std::isdigit(cb)) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      // Compare the runs as numbers of any length: skip leading zeros, then the longer is larger,
      // then digit by digit.
      std::size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      const int c = a.compare(is, ie - is, b, js, je - js);
      if (c != 0) return c < 0;
      i = ie;
      j = je;
      continue;
    }
    const int la = std::tolower(ca), lb = std::tolower(cb);
    if (la != lb) return la < lb;
    ++i;
    ++j;
  }
  if ((a.size() - i) != (b.size() - j)) return a.size() - i < b.size() - j;
  return a < b;
}

std::string lower_extension(const std::string& path) {
  const std::string name = base_name(path);
  const std::size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0) return {};
  std::string ext = name.substr(dot);
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

std::string base_name(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const std::size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

bool is_image_extension(const std::string& ext) {
  static const char* const kImages[] = {".png", ".jpg", ".jpeg", ".bmp", ".tga",
                                        ".hdr", ".tif", ".tiff", ".pfm"};
  return std::any_of(std::begin(kImages), std::end(kImages),
                     [&](const char* e) { return ext == e; });
}

bool is_video_extension(const std::string& ext) {
  static const char* const kVideos[] = {".mp4", ".mkv", ".avi",  ".mov", ".webm", ".gif",
                                        ".m4v", ".mpg", ".mpeg", ".ts",  ".ogv"};
  return std::any_of(std::begin(kVideos), std::end(kVideos),
                     [&](const char* e) { return ext == e; });
}

Frame image_to_frame(const Image& img, PixelFormat format) {
  if (format != PixelFormat::RGBA8 && format != PixelFormat::RGBA32F)
    throw InvalidParameter("a source frame is RGBA8 or RGBA32F");
  if (img.channels < 1 || img.channels > 4)
    throw InvalidParameter("an image of " + std::to_string(img.channels) +
                           " channels cannot be shown");
  Frame f;
  f.width = img.width;
  f.height = img.height;
  f.format = format;
  const std::size_t n = std::size_t(img.width) * img.height;
  f.bytes.resize(n * bytes_per_pixel(format));
  const int c = img.channels;
  // 1 channel: gray; 2: gray + alpha; 3: RGB; 4: RGBA.
  auto rgba = [&](std::size_t p, float out[4]) {
    const float* s = img.pixels.data() + p * c;
    if (c <= 2) {
      out[0] = out[1] = out[2] = s[0];
      out[3] = c == 2 ? s[1] : 1.0f;
    } else {
      out[0] = s[0];
      out[1] = s[1];
      out[2] = s[2];
      out[3] = c == 4 ? s[3] : 1.0f;
    }
  };
  float px[4];
  if (format == PixelFormat::RGBA8) {
    std::uint8_t* d = f.bytes.data();
    for (std::size_t p = 0; p < n; ++p) {
      rgba(p, px);
      for (int k = 0; k < 4; ++k) {
        const float v = std::isnan(px[k]) ? 0.0f : std::clamp(px[k], 0.0f, 1.0f);
        d[4 * p + k] = std::uint8_t(std::lround(v * 255.0f));
      }
    }
  } else {
    float* d = reinterpret_cast<float*>(f.bytes.data());
    for (std::size_t p = 0; p < n; ++p) {
      rgba(p, px);
      std::memcpy(d + 4 * p, px, sizeof px);
    }
  }
  return f;
}

Frame read_frame(const std::string& path) {
  // Float files stay float, and so do 16-bit PNGs and TIFFs: quantising them to 8 bits would throw
  // away the precision that makes filter errors measurable.
  int bits = 8;
  const Image img = io::read_image(path, &bits);
  return image_to_frame(img, bits > 8 ? PixelFormat::RGBA32F : PixelFormat::RGBA8);
}

FrameClock::FrameClock(double fps) : fps_(fps), start_(clock::now()) {
  if (!(fps > 0.0) || !std::isfinite(fps))
    throw InvalidParameter("frame rate must be positive, got " + std::to_string(fps));
}

void FrameClock::set_paused(bool paused, clock::time_point now) {
  if (paused == paused_) return;
  if (paused) {
    paused_at_s_ = seconds(now);
  } else {
    start_ = now - std::chrono::duration_cast<clock::duration>(
                       std::chrono::duration<double>(paused_at_s_));
  }
  paused_ = paused;
}

double FrameClock::seconds(clock::time_point now) const {
  if (paused_) return paused_at_s_;
  return std::chrono::duration<double>(now - start_).count();
}

std::int64_t FrameClock::frame(clock::time_point now) const {
  // A small epsilon keeps frame n from reading as n - 1 after seek(n) through rounding.
  return std::int64_t(std::floor(seconds(now) * fps_ + 1e-9));
}

FrameClock::clock::time_point FrameClock::due(std::int64_t n) const {
  return start_ + std::chrono::duration_cast<clock::duration>(
                      std::chrono::duration<double>(double(n) / fps_));
}

void FrameClock::seek(std::int64_t n, clock::time_point now) {
  const double s = double(n) / fps_;
  if (paused_) {
    paused_at_s_ = s;
  } else {
    start_ = now - std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(s));
  }
}

ClockedFrames::ClockedFrames(double fps, Render render)
    : clock_(fps), render_(std::move(render)), frame_(render_(0)) {
  frame_.index = next_frame_index();
}

bool ClockedFrames::poll(Frame& frame) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::int64_t n = clock_.frame();
  if (n != shown_) {
    frame_ = render_(n);
    frame_.index = next_frame_index();
    shown_ = n;
  }
  if (!frame.bytes.empty() && frame.index >= frame_.index) return false;
  frame = frame_;
  return true;
}

void ClockedFrames::set_paused(bool paused) {
  std::lock_guard<std::mutex> lock(mutex_);
  clock_.set_paused(paused);
}

void ClockedFrames::step() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (clock_.paused()) clock_.seek(shown_ + 1);
}

std::int64_t ClockedFrames::shown() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return shown_;
}

void Pacer::set_paused(bool paused) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    clock.set_paused(paused);
  }
  wake_.notify_all();
}

void Pacer::step() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (clock.paused()) step_requested_ = true;
  }
  wake_.notify_all();
}

bool Pacer::wait_for_turn(std::unique_lock<std::mutex>& lock, const bool& stop) {
  while (!stop) {
    if (step_requested_) {
      step_requested_ = false;
      clock.seek(next_);
      return true;
    }
    if (clock.paused()) {
      wake_.wait(lock);
      continue;
    }
    const auto due = clock.due(next_);
    if (FrameClock::clock::now() >= due) return true;
    wake_.wait_until(lock, due);
  }
  return false;
}

void Pacer::shown() {
  ++next_;
  if (!clock.paused() && clock.frame() > next_) clock.seek(next_);
}

}  // namespace detail

namespace {

class ImageSource final : public Source {
 public:
  ImageSource(const std::string& path, Frame frame) : frame_(std::move(frame)) {
    frame_.index = detail::next_frame_index();
    description_ = detail::base_name(path) + " " + std::to_string(frame_.width) + "x" +
                   std::to_string(frame_.height) +
                   (frame_.format == PixelFormat::RGBA32F ? " float" : "");
  }
  std::string description() const override { return description_; }
  bool poll(Frame& frame) override {
    if (!frame.bytes.empty() && frame.index >= frame_.index) return false;
    frame = frame_;
    return true;
  }

 private:
  Frame frame_;
  std::string description_;
};

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

namespace detail {

std::unique_ptr<Source> still_source(const std::string& path, Frame frame) {
  return std::make_unique<ImageSource>(path, std::move(frame));
}

}  // namespace detail

std::unique_ptr<Source> open_image(const std::string& path) {
  const std::string ext = detail::lower_extension(path);
  if (ext == ".tif" || ext == ".tiff") return detail::open_tiff(path);
  return detail::still_source(path, detail::read_frame(path));
}

std::unique_ptr<Source> open_path(const std::string& path) {
  if (is_directory(path)) return open_folder(path);
  if (detail::is_video_extension(detail::lower_extension(path))) return open_video(path);
  return open_image(path);
}

}  // namespace rf::app
