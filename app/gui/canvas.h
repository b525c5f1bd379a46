// The canvas: where the image panes lie between the panels, the zoom and pan that map the image
// onto them, and the pixel under the mouse. Mouse gestures on the canvas act here and on the view
// settings (the split handle, the profile line, the probe).
#pragma once

#include <utility>
#include <vector>

#include "app/gui/view_math.h"
#include "app/gui/view_settings.h"

namespace rf::gui {

// The canvas rectangle in ImGui coordinates (points).
struct CanvasRect {
  float x = 0, y = 0, w = 0, h = 0;
};

// The panels' widths: at most about a quarter of the window each, so small windows keep a
// canvas. Needs a Dear ImGui frame.
float left_panel_width();
float right_panel_width();

class Canvas {
 public:
  // Lays the canvas out between the panels (when shown), the status bar and the strip of a
  // colour scale, and fits the image on the first frame, when its size or the kind of view
  // changes, and after fit().
  void update_layout(const ViewSettings& view, int image_w, int image_h);
  // Wheel zoom at the cursor, drag to pan, the split handle, and clicks that choose the profile
  // line or place the impulse probe; the pixel under the mouse. Nothing without an image.
  void handle_mouse(ViewSettings& view, int image_w, int image_h);

  // The image panes and their shader modes: none for the plot views (response, race), two for
  // side by side, else one (the upper part of the canvas for the profile view).
  std::vector<std::pair<CanvasRect, int>> panes(ViewMode mode) const;

  void fit() { auto_fit_ = true; }
  void one_to_one();

  const CanvasRect& rect() const { return rect_; }
  const ViewTransform& transform() const { return transform_; }
  // The pixel under the mouse, -1 when outside the image.
  int hover_x() const { return hover_x_; }
  int hover_y() const { return hover_y_; }

 private:
  bool needs_fit(ViewMode mode, bool has_legend, int image_w, int image_h) const;
  // The pane under the mouse, or null.
  const CanvasRect* pane_at(const std::vector<std::pair<CanvasRect, int>>& panes, float x,
                            float y) const;
  void click(ViewSettings& view, Vec2 local, bool on_image, int px, int py, int image_w);

  CanvasRect rect_;
  ViewTransform transform_;
  bool auto_fit_ = true;
  ViewMode fitted_mode_ = ViewMode::Result;
  int fitted_w_ = 0, fitted_h_ = 0;
  bool dragging_ = false, dragging_split_ = false;
  int hover_x_ = -1, hover_y_ = -1;
};

}  // namespace rf::gui
