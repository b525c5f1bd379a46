#include "app/gui/canvas.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/gui/compositor.h"
#include "app/gui/overlays.h"

namespace rf::gui {
namespace {

// What the view's transform fits: the image, or the 3x3 tiles around it.
Rect content_rect(ViewMode mode, int image_w, int image_h) {
  const float w = float(image_w), h = float(image_h);
  if (mode == ViewMode::Tiles) return {-w, -h, 3 * w, 3 * h};
  return {0, 0, w, h};
}

bool has_scale(ViewMode mode) {
  return legend_title(mode) != nullptr;
}

}  // namespace

float left_panel_width() {
  return std::min(24.0f * ImGui::GetFontSize(), 0.27f * ImGui::GetIO().DisplaySize.x);
}

float right_panel_width() {
  return std::min(21.0f * ImGui::GetFontSize(), 0.25f * ImGui::GetIO().DisplaySize.x);
}

std::vector<std::pair<CanvasRect, int>> Canvas::panes(ViewMode mode) const {
  std::vector<std::pair<CanvasRect, int>> out;
  // The response and race views draw plots, not the image.
  if (mode == ViewMode::Response || mode == ViewMode::Race) return out;
  CanvasRect c = rect_;
  if (mode == ViewMode::SideBySide) {
    CanvasRect a = c, b = c;
    a.w = b.w = std::floor(c.w * 0.5f);
    b.x = c.x + a.w;
    out.push_back({a, 0});
    out.push_back({b, 1});
    return out;
  }
  if (mode == ViewMode::Profile) c.h = std::floor(c.h * 0.6f);
  out.push_back({c, shader_mode(mode)});
  return out;
}

// Fit on the first frame, when the image size or the kind of view changes, and on F.
bool Canvas::needs_fit(ViewMode mode, bool has_legend, int image_w, int image_h) const {
  const bool tiles_changed = (fitted_mode_ == ViewMode::Tiles) != (mode == ViewMode::Tiles);
  const bool panes_changed =
      has_scale(fitted_mode_) != has_legend ||
      (fitted_mode_ == ViewMode::SideBySide) != (mode == ViewMode::SideBySide) ||
      (fitted_mode_ == ViewMode::Profile) != (mode == ViewMode::Profile);
  return auto_fit_ || tiles_changed || panes_changed || fitted_w_ != image_w ||
         fitted_h_ != image_h;
}

void Canvas::update_layout(const ViewSettings& view, int image_w, int image_h) {
  const ImGuiIO& io = ImGui::GetIO();
  const float left = view.show_ui ? left_panel_width() : 0.0f;
  const float right = view.show_ui ? right_panel_width() : 0.0f;
  const float bottom = view.show_ui ? ImGui::GetFrameHeight() + 2.0f : 0.0f;
  // Heat maps keep a strip on the right for their colour scale, so it never covers the data.
  const float legend_w = legend_strip_width(view.mode);
  rect_ = {left, 0.0f, std::max(1.0f, io.DisplaySize.x - left - right - legend_w),
           std::max(1.0f, io.DisplaySize.y - bottom)};
  const auto image_panes = panes(view.mode);
  if (image_panes.empty()) return;
  if (!needs_fit(view.mode, has_scale(view.mode), image_w, image_h)) return;
  const CanvasRect pane = image_panes.front().first;
  transform_ = rf::gui::fit(content_rect(view.mode, image_w, image_h), {pane.w, pane.h});
  fitted_mode_ = view.mode;
  fitted_w_ = image_w;
  fitted_h_ = image_h;
}

void Canvas::one_to_one() {
  transform_ = rf::gui::one_to_one(transform_, {rect_.w, rect_.h});
  auto_fit_ = false;
}

const CanvasRect* Canvas::pane_at(const std::vector<std::pair<CanvasRect, int>>& panes, float x,
                                  float y) const {
  const CanvasRect* pane = nullptr;
  for (const auto& p : panes)
    if (x >= p.first.x && x < p.first.x + p.first.w && y >= p.first.y && y < p.first.y + p.first.h)
      pane = &p.first;
  return pane;
}

// A click on a pane: the split handle, the profile line, the probe, or the start of a drag.
void Canvas::click(ViewSettings& view, Vec2 local, bool on_image, int px, int py, int image_w) {
  const float split_x = transform_.to_canvas({view.split * image_w, 0}).x;
  if (view.mode == ViewMode::Split && std::abs(local.x - split_x) < 0.5f * ImGui::GetFontSize()) {
    dragging_split_ = true;
  } else if (view.mode == ViewMode::Profile && on_image) {
    view.profile_line = view.profile_vertical ? px : py;
  } else if (view.mode == ViewMode::Impulse && on_image) {
    view.probe_x = px;
    view.probe_y = py;
  } else {
    dragging_ = true;
  }
}

void Canvas::handle_mouse(ViewSettings& view, int image_w, int image_h) {
  ImGuiIO& io = ImGui::GetIO();
  hover_x_ = hover_y_ = -1;
  if (image_w <= 0) return;
  const ImVec2 m = io.MousePos;
  const auto ps = panes(view.mode);
  const CanvasRect* pane = pane_at(ps, m.x, m.y);
  if (!io.MouseDown[0] && !io.MouseDown[1] && !io.MouseDown[2]) dragging_ = dragging_split_ = false;
  if (dragging_ || dragging_split_) {
    if (dragging_split_ && pane) {
      const Vec2 q = transform_.to_image({m.x - pane->x, m.y - pane->y});
      view.split = std::clamp(q.x / float(image_w), 0.0f, 1.0f);
    } else if (dragging_) {
      transform_ = pan(transform_, {io.MouseDelta.x, io.MouseDelta.y});
      auto_fit_ = false;
    }
    return;
  }
  if (!pane || io.WantCaptureMouse) return;
  const Vec2 local{m.x - pane->x, m.y - pane->y};
  int px = -1, py = -1;
  const bool on_image = pixel_at(transform_, local, image_w, image_h, &px, &py);
  if (on_image) {
    hover_x_ = px;
    hover_y_ = py;
  }
  if (io.MouseWheel != 0.0f) {
    transform_ = zoom_at(transform_, local, std::pow(1.2f, io.MouseWheel));
    auto_fit_ = false;
  }
  if (ImGui::IsMouseClicked(0)) click(view, local, on_image, px, py, image_w);
  if (ImGui::IsMouseClicked(1) || ImGui::IsMouseClicked(2)) dragging_ = true;
}

}  // namespace rf::gui
