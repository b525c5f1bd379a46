#include "app/gui/source_slot.h"

#include <exception>
#include <filesystem>

#include "app/gui/embedded.h"
#include "app/gui/image_codec.h"

namespace rf::gui {
namespace {

// A still frame held in memory.
class StillSource final : public app::Source {
 public:
  StillSource(std::string description, Rgba8Image image)
      : description_(std::move(description)), image_(std::move(image)) {}
  std::string description() const override { return description_; }
  bool poll(app::Frame& frame) override {
    if (delivered_ && frame.width == image_.width && frame.height == image_.height &&
        !frame.bytes.empty())
      return false;
    frame.width = image_.width;
    frame.height = image_.height;
    frame.format = PixelFormat::RGBA8;
    frame.bytes = image_.pixels;
    frame.index = 1;
    delivered_ = true;
    return true;
  }

 private:
  std::string description_;
  Rgba8Image image_;
  bool delivered_ = false;
};

}  // namespace

std::unique_ptr<app::Source> open_default_image() {
  Rgba8Image img = decode_image(embedded("assets/astronaut.png"), "astronaut.png");
  const std::string what =
      "astronaut.png (built in) " + std::to_string(img.width) + "x" + std::to_string(img.height);
  return std::make_unique<StillSource>(what, std::move(img));
}

void SourceSlot::apply_pace(SourceKind kind) {
  if (pace_ == Pace::Step) set_paused(kind != SourceKind::Camera);
}

std::string SourceSlot::open(const SourceChoice& c) {
  apply_pace(c.kind);
  try {
    switch (c.kind) {
      case SourceKind::Default:
        return install(open_default_image(), c);
      case SourceKind::Image:
        return install(app::open_image(c.path), c);
      case SourceKind::Folder:
        return install(app::open_folder(c.path, c.fps, c.loop), c);
      case SourceKind::Video:
        return install(app::open_video(c.path, c.loop), c);
      case SourceKind::Camera:
        return install(app::open_camera(c.path), c);
      case SourceKind::Pattern:
        return install(app::open_pattern(c.path, c.width, c.height, c.encoding), c);
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  return "unknown source";
}

std::string SourceSlot::open_path(const std::string& path) {
  apply_pace(SourceKind::Image);
  try {
    std::error_code ec;
    const SourceKind kind =
        std::filesystem::is_directory(path, ec) ? SourceKind::Folder : SourceKind::Image;
    return install(app::open_path(path), {kind, path});
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::string SourceSlot::install(std::unique_ptr<app::Source> source, const SourceChoice& choice) {
  // Poll once before replacing the old source: a file that opens but yields no frame keeps the
  // old picture. Sequences may take a moment for their first frame, so only stills are checked.
  app::Frame first;
  const bool got = source->poll(first);
  if (!got && !source->animated() && !source->status().empty()) return source->status();
  source_ = std::move(source);
  choice_ = choice;
  source_->set_paused(paused_);
  source_->set_raw_yuv(raw_yuv_);
  if (got) {
    frame_ = std::move(first);
    fresh_ = true;
  }
  return {};
}

bool SourceSlot::poll() {
  if (!source_) return false;
  bool fresh = fresh_;
  fresh_ = false;
  try {
    if (source_->poll(frame_)) fresh = true;
  } catch (const std::exception&) {
    // A failing source keeps its last frame; status() tells the person.
  }
  return fresh;
}

void SourceSlot::set_raw_yuv(bool enabled) {
  if (enabled == raw_yuv_) return;
  raw_yuv_ = enabled;
  if (source_) source_->set_raw_yuv(enabled);
}

void SourceSlot::set_paused(bool paused) {
  paused_ = paused;
  if (source_) source_->set_paused(paused);
}

void open_source(SourceSlot& source, MessageLog& log, const SourceChoice& choice) {
  const std::string err = source.open(choice);
  if (err.empty())
    log.post("opened " + source.description());
  else
    log.post("cannot open: " + err, true);
}

void open_path(SourceSlot& source, MessageLog& log, const std::string& path) {
  const std::string err = source.open_path(path);
  if (err.empty())
    log.post("opened " + source.description());
  else
    log.post("cannot open: " + err, true);
}

}  // namespace rf::gui
