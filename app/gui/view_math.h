// Zoom and pan of the canvas: image pixels <-> canvas pixels. Plain math, no GL, unit-tested.
#pragma once

namespace rf::gui {

struct Vec2 {
  float x = 0.0f, y = 0.0f;
};

// A rectangle in image pixels: the content the canvas shows (the image, or the 3x3 tiles around
// it, which start at (-w, -h)).
struct Rect {
  float x = 0.0f, y = 0.0f, w = 0.0f, h = 0.0f;
};

// canvas = offset + image * zoom, in pixels relative to the canvas's top-left corner, y down.
struct ViewTransform {
  float zoom = 1.0f;
  Vec2 offset;

  Vec2 to_canvas(Vec2 image) const {
    return {offset.x + image.x * zoom, offset.y + image.y * zoom};
  }
  Vec2 to_image(Vec2 canvas) const {
    return {(canvas.x - offset.x) / zoom, (canvas.y - offset.y) / zoom};
  }
};

inline constexpr float kMinZoom = 1.0f / 64.0f;
inline constexpr float kMaxZoom = 256.0f;

// The whole content visible and centred, `margin` of the canvas used (0.95: a thin frame).
ViewTransform fit(Rect content, Vec2 canvas, float margin = 0.95f);

// Zoom 1 (one image pixel per canvas pixel), keeping the image point under the canvas centre.
ViewTransform one_to_one(const ViewTransform& t, Vec2 canvas);

// Zooms by `factor` keeping the image point under `cursor` (canvas pixels) where it is.
ViewTransform zoom_at(const ViewTransform& t, Vec2 cursor, float factor);

ViewTransform pan(const ViewTransform& t, Vec2 delta);

// The integer pixel under a canvas point, or false outside [0, w) x [0, h).
bool pixel_at(const ViewTransform& t, Vec2 canvas, int width, int height, int* x, int* y);

}  // namespace rf::gui
