#include "app/gui/view_math.h"

#include <algorithm>
#include <cmath>

namespace rf::gui {

ViewTransform fit(Rect content, Vec2 canvas, float margin) {
  ViewTransform t;
  if (content.w <= 0 || content.h <= 0 || canvas.x <= 0 || canvas.y <= 0) return t;
  t.zoom =
      std::clamp(margin * std::min(canvas.x / content.w, canvas.y / content.h), kMinZoom, kMaxZoom);
  t.offset.x = 0.5f * canvas.x - (content.x + 0.5f * content.w) * t.zoom;
  t.offset.y = 0.5f * canvas.y - (content.y + 0.5f * content.h) * t.zoom;
  return t;
}

ViewTransform one_to_one(const ViewTransform& t, Vec2 canvas) {
  return zoom_at(t, {0.5f * canvas.x, 0.5f * canvas.y}, 1.0f / t.zoom);
}

ViewTransform zoom_at(const ViewTransform& t, Vec2 cursor, float factor) {
  const Vec2 anchor = t.to_image(cursor);
  ViewTransform r;
  r.zoom = std::clamp(t.zoom * factor, kMinZoom, kMaxZoom);
  r.offset.x = cursor.x - anchor.x * r.zoom;
  r.offset.y = cursor.y - anchor.y * r.zoom;
  return r;
}

ViewTransform pan(const ViewTransform& t, Vec2 delta) {
  ViewTransform r = t;
  r.offset.x += delta.x;
  r.offset.y += delta.y;
  return r;
}

bool pixel_at(const ViewTransform& t, Vec2 canvas, int width, int height, int* x, int* y) {
  const Vec2 p = t.to_image(canvas);
  const int px = int(std::floor(p.x)), py = int(std::floor(p.y));
  if (px < 0 || py < 0 || px >= width || py >= height) return false;
  *x = px;
  *y = py;
  return true;
}

}  // namespace rf::gui
