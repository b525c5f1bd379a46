// Synthetic test patterns: the classroom's default inputs. Every pattern is a pure function of its
// name, size and (for the moving bar) frame number, so figures and tests are reproducible.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "app/sources/pattern.h"
#include "app/sources/source.h"
#include "app/sources/source_detail.h"
#include "filters/core/errors.h"

namespace rf::app {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::uint8_t to8(double v) {
  return std::uint8_t(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
}

struct Rgba8 {
  std::uint8_t v[4];
};
Rgba8 rgb(double r, double g, double b) {
  return {{to8(r), to8(g), to8(b), 255}};
}
Rgba8 gray(double v) {
  return rgb(v, v, v);
}

struct Canvas {
  Frame& f;
  void set(int x, int y, Rgba8 c) {
    std::memcpy(f.bytes.data() + (std::size_t(y) * f.width + x) * 4, c.v, 4);
  }
  void fill(Rgba8 c) {
    for (std::size_t i = 0; i < f.bytes.size(); i += 4) std::memcpy(&f.bytes[i], c.v, 4);
  }
};

// splitmix64: a tiny generator whose output is fixed by its definition, unlike the standard
// library's distributions, which may differ between implementations.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void draw_impulses(Canvas c) {
  c.fill(gray(0.0));
  const int s = pattern_cell_size(c.f.width, c.f.height);
  for (int y = s / 2; y < c.f.height; y += s)
    for (int x = s / 2; x < c.f.width; x += s) c.set(x, y, gray(1.0));
}

void draw_steps(Canvas c) {
  // Four flat quadrants whose edges run into all four borders; no quadrant is black, so a zero
  // extension darkens every border visibly, and the colours differ per channel.
  const Rgba8 quadrant[2][2] = {{rgb(0.9, 0.3, 0.2), rgb(0.2, 0.8, 0.3)},
                                {rgb(0.25, 0.35, 0.9), rgb(0.85, 0.85, 0.85)}};
  const int w = c.f.width, h = c.f.height;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) c.set(x, y, quadrant[y >= h / 2][x >= w / 2]);
}

void draw_checkerboard(Canvas c) {
  const int s = pattern_cell_size(c.f.width, c.f.height);
  const Rgba8 light = gray(0.85), dark = gray(0.15);
  for (int y = 0; y < c.f.height; ++y)
    for (int x = 0; x < c.f.width; ++x) c.set(x, y, (x / s + y / s) % 2 == 0 ? light : dark);
}

void draw_periodic(Canvas c) {
  // Sums of cosines with whole numbers of periods across the width and the height: the image is
  // one period of a doubly periodic function, so it tiles seamlessly (the repeat extension sees
  // no edge at all).
  const int w = c.f.width, h = c.f.height;
  struct Wave {
    int fx, fy;
    double amplitude, phase[3];
  };
  static const Wave kWaves[] = {
      {2, 1, 0.22, {0.0, 2.1, 4.2}},
      {3, -4, 0.14, {1.0, 0.3, 2.5}},
      {7, 5, 0.08, {2.0, 4.0, 0.7}},
  };
  constexpr int kCount = int(sizeof kWaves / sizeof kWaves[0]);
  // cos(a + b) = cos a cos b - sin a sin b with a from the column (and the phase) and b from the
  // row: tables of both turn nine cosines a pixel into multiply-adds.
  std::vector<double> cx(std::size_t(kCount) * 3 * w), sx(cx.size());
  std::vector<double> cy(std::size_t(kCount) * h), sy(cy.size());
  for (int i = 0; i < kCount; ++i) {
    for (int k = 0; k < 3; ++k)
      for (int x = 0; x < w; ++x) {
        const double a = 2.0 * kPi * double(kWaves[i].fx) * x / w + kWaves[i].phase[k];
        cx[(std::size_t(i) * 3 + k) * w + x] = kWaves[i].amplitude * std::cos(a);
        sx[(std::size_t(i) * 3 + k) * w + x] = kWaves[i].amplitude * std::sin(a);
      }
    for (int y = 0; y < h; ++y) {
      const double b = 2.0 * kPi * double(kWaves[i].fy) * y / h;
      cy[std::size_t(i) * h + y] = std::cos(b);
      sy[std::size_t(i) * h + y] = std::sin(b);
    }
  }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double v[3] = {0.5, 0.5, 0.5};
      for (int i = 0; i < kCount; ++i)
        for (int k = 0; k < 3; ++k) {
          const std::size_t t = (std::size_t(i) * 3 + k) * w + x;
          v[k] += cx[t] * cy[std::size_t(i) * h + y] - sx[t] * sy[std::size_t(i) * h + y];
        }
      c.set(x, y, rgb(v[0], v[1], v[2]));
    }
}

void draw_noise(Canvas c) {
  std::uint64_t state = kPatternNoiseSeed;
  std::uint8_t* p = c.f.bytes.data();
  const std::size_t n = std::size_t(c.f.width) * c.f.height;
  for (std::size_t i = 0; i < n; ++i, p += 4) {
    const std::uint64_t r = splitmix64(state);
    p[0] = std::uint8_t(r);
    p[1] = std::uint8_t(r >> 8);
    p[2] = std::uint8_t(r >> 16);
    p[3] = 255;
  }
}

void draw_moving_bar(Canvas c, std::int64_t frame) {
  // A white vertical bar on dark gray, moving right and wrapping around: it crosses the right
  // border into the left one, which shows what each extension does with a moving edge. Drawn with
  // whole-row copies: this one is rendered on the UI thread at the frame rate.
  const int w = c.f.width;
  const int bar = std::max(2, w / 16);
  const int speed = std::max(1, w / 128);
  const int x0 = int(((frame % w) * speed) % w);
  std::vector<std::uint8_t> row(std::size_t(w) * 4);
  const std::uint8_t dark = to8(0.1);
  for (int x = 0; x < w; ++x) {
    const bool on_bar = (x - x0 + w) % w < bar;
    const std::uint8_t v = on_bar ? 255 : dark;
    std::uint8_t* p = &row[std::size_t(x) * 4];
    p[0] = p[1] = p[2] = v;
    p[3] = 255;
  }
  for (int y = 0; y < c.f.height; ++y)
    std::copy(row.begin(), row.end(), c.f.bytes.begin() + std::ptrdiff_t(y) * w * 4);
}

class PatternSource final : public Source {
 public:
  PatternSource(std::string name, int width, int height, Encoding encoding)
      : name_(std::move(name)), width_(width), height_(height), encoding_(encoding) {
    if (name_ == "moving-bar") {
      bar_.emplace(kMovingBarFps, [this](std::int64_t n) {
        return render_pattern(name_, width_, height_, n, encoding_);
      });
    } else {
      still_ = render_pattern(name_, width_, height_, 0, encoding_);
      still_.index = detail::next_frame_index();
    }
  }
  std::string description() const override {
    return "pattern: " + name_ + " " + std::to_string(width_) + "x" + std::to_string(height_) +
           (encoding_ == Encoding::Rgba ? "" : std::string(" ") + to_string(encoding_));
  }
  double fps() const override { return bar_ ? kMovingBarFps : 0.0; }
  bool poll(Frame& frame) override {
    if (bar_) return bar_->poll(frame);
    if (!frame.bytes.empty() && frame.index >= still_.index) return false;
    frame = still_;
    return true;
  }
  void set_paused(bool paused) override {
    if (bar_) bar_->set_paused(paused);
  }
  void step() override {
    if (bar_) bar_->step();
  }
  bool animated() const override { return bar_.has_value(); }

 private:
  const std::string name_;
  const int width_, height_;
  const Encoding encoding_;
  std::optional<detail::ClockedFrames> bar_;  // the moving bar
  Frame still_;                               // every other pattern
};

}  // namespace

const std::vector<std::string>& pattern_names() {
  static const std::vector<std::string> kNames = {"impulses", "steps", "checkerboard",
                                                  "periodic", "noise", "moving-bar"};
  return kNames;
}

int pattern_cell_size(int width, int height) {
  return std::clamp(std::min(width, height) / 8, 1, 64);
}

Frame render_pattern(const std::string& name, int width, int height, std::int64_t frame) {
  const auto& names = pattern_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw InvalidParameter("unknown pattern '" + name + "' (one of: " + list + ")");
  }
  if (width < 1 || height < 1 || width > kMaxPatternSize || height > kMaxPatternSize)
    throw InvalidParameter("pattern size " + std::to_string(width) + "x" + std::to_string(height) +
                           " is outside 1.." + std::to_string(kMaxPatternSize));
  if (frame < 0) throw InvalidParameter("pattern frame numbers start at 0");
  Frame f;
  f.width = width;
  f.height = height;
  f.format = PixelFormat::RGBA8;
  f.bytes.resize(std::size_t(width) * height * 4);
  Canvas c{f};
  if (name == "impulses") draw_impulses(c);
  if (name == "steps") draw_steps(c);
  if (name == "checkerboard") draw_checkerboard(c);
  if (name == "periodic") draw_periodic(c);
  if (name == "noise") draw_noise(c);
  if (name == "moving-bar") draw_moving_bar(c, frame);
  return f;
}

Frame encode_frame(const Frame& rgba, Encoding encoding) {
  if (encoding == Encoding::Rgba) return rgba;
  if (rgba.encoding != Encoding::Rgba || rgba.format != PixelFormat::RGBA8)
    throw InvalidParameter("only RGBA8 frames can be encoded as YUYV or NV12");
  Frame f;
  f.width = rgba.width;
  f.height = rgba.height;
  f.format = PixelFormat::RGBA8;
  f.encoding = encoding;
  f.index = rgba.index;
  f.stride = yuv_min_stride(encoding, rgba.width);
  f.bytes.resize(yuv_frame_bytes(encoding, rgba.height, f.stride));
  if (encoding == Encoding::Yuyv)
    rgba_to_yuyv(rgba.bytes.data(), rgba.width, rgba.height, f.bytes.data(), f.stride);
  else
    rgba_to_nv12(rgba.bytes.data(), rgba.width, rgba.height, f.bytes.data(), f.stride);
  return f;
}

Frame render_pattern(const std::string& name, int width, int height, std::int64_t frame,
                     Encoding encoding) {
  if (encoding == Encoding::Rgba || name != "moving-bar" || height <= 2)
    return encode_frame(render_pattern(name, width, height, frame), encoding);
  // The moving bar's rows are all alike: two are encoded (NV12 shares chroma between row pairs)
  // and copied down, so a 4K frame costs row copies here too.
  const Frame two = encode_frame(render_pattern(name, width, 2, frame), encoding);
  Frame f = two;
  f.height = height;
  f.bytes.resize(yuv_frame_bytes(encoding, height, f.stride));
  const std::size_t row = f.stride;
  for (int y = 0; y < height; ++y) std::memcpy(&f.bytes[std::size_t(y) * row], &two.bytes[0], row);
  if (encoding == Encoding::Nv12) {
    const std::uint8_t* uv = &two.bytes[2 * row];
    for (int y = 0; y < (height + 1) / 2; ++y)
      std::memcpy(&f.bytes[(std::size_t(height) + std::size_t(y)) * row], uv, row);
  }
  return f;
}

std::unique_ptr<Source> open_pattern(const std::string& name, int width, int height,
                                     Encoding encoding) {
  return std::make_unique<PatternSource>(name, width, height, encoding);
}

}  // namespace rf::app
