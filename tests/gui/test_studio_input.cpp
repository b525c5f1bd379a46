// The studio driven in-process through Dear ImGui's input, offscreen (EGL): the keys and mouse
// gestures of the issue act on the state they should.
#include <doctest/doctest.h>

#include <imgui.h>

#include <cmath>
#include <filesystem>

#include "app/gui/studio.h"
#include "studio_harness.h"

using namespace rf::gui;

namespace {

using Harness = rf::gui::test::StudioHarness;

StudioOptions defaults() {
  StudioOptions o;
  o.spec.sigma = 2.0;
  o.spec.backend = rf::Backend::Cpu;
  return o;
}

}  // namespace

TEST_CASE("studio input: D toggles the diff view, Tab the panels, Space pauses, Esc quits") {
  Harness h(defaults());
  REQUIRE(h.studio->view.mode == ViewMode::Result);
  h.press('D');
  CHECK(h.studio->view.mode == ViewMode::Diff);
  h.press('D');
  CHECK(h.studio->view.mode == ViewMode::Result);

  CHECK(h.studio->canvas.rect().x > 0.0f);
  h.press(ImGui::GetKeyIndex(ImGuiKey_Tab));
  CHECK_FALSE(h.studio->view.show_ui);
  CHECK(h.studio->canvas.rect().x == 0.0f);
  h.press(ImGui::GetKeyIndex(ImGuiKey_Tab));
  CHECK(h.studio->view.show_ui);

  CHECK_FALSE(h.studio->source.paused());
  h.press(ImGui::GetKeyIndex(ImGuiKey_Space));
  CHECK(h.studio->source.paused());

  CHECK_FALSE(h.closed());
  h.press(ImGui::GetKeyIndex(ImGuiKey_Escape));
  CHECK(h.closed());
}

TEST_CASE("studio input: wheel zooms at the cursor, drag pans, F fits, 1 is 1:1") {
  Harness h(defaults());
  const ViewTransform fitted = h.studio->canvas.transform();
  const CanvasRect c = h.studio->canvas.rect();
  // Whole pixels: Dear ImGui floors the mouse position.
  const ImVec2 cursor(std::floor(c.x + 0.4f * c.w), std::floor(c.y + 0.45f * c.h));
  const Vec2 local{cursor.x - c.x, cursor.y - c.y};
  const Vec2 before = fitted.to_image(local);
  h.frame([&](ImGuiIO& io) { io.MousePos = cursor; });
  h.frame([&](ImGuiIO& io) { io.MouseWheel = 2.0f; });
  const ViewTransform zoomed = h.studio->canvas.transform();
  CHECK(zoomed.zoom == doctest::Approx(fitted.zoom * 1.44f));
  const Vec2 after = zoomed.to_image(local);
  CHECK(after.x == doctest::Approx(before.x).epsilon(1e-3));
  CHECK(after.y == doctest::Approx(before.y).epsilon(1e-3));
  // The inspector reads the pixel under the cursor.
  CHECK(h.studio->canvas.hover_x() == int(after.x));
  CHECK(h.studio->canvas.hover_y() == int(after.y));

  h.frame([&](ImGuiIO& io) { io.MouseDown[0] = true; });
  h.frame([&](ImGuiIO& io) {
    io.MouseDown[0] = true;
    io.MousePos = ImVec2(cursor.x + 30, cursor.y - 12);
  });
  h.frame([&](ImGuiIO& io) {
    io.MouseDown[0] = true;
    io.MousePos = ImVec2(cursor.x + 30, cursor.y - 12);
  });
  const ViewTransform panned = h.studio->canvas.transform();
  CHECK(panned.offset.x == doctest::Approx(zoomed.offset.x + 30));
  CHECK(panned.offset.y == doctest::Approx(zoomed.offset.y - 12));

  h.press('F');
  CHECK(h.studio->canvas.transform().zoom == doctest::Approx(fitted.zoom));
  CHECK(h.studio->canvas.transform().offset.x == doctest::Approx(fitted.offset.x));
  h.press('1');
  CHECK(h.studio->canvas.transform().zoom == doctest::Approx(1.0f));
}

TEST_CASE("studio input: clicks place the impulse probe and choose the profile row") {
  StudioOptions o = defaults();
  o.view.mode = ViewMode::Impulse;
  Harness h(o);
  const CanvasRect c = h.studio->canvas.rect();
  const ImVec2 at(std::floor(c.x + 0.5f * c.w) + 0.0f, std::floor(c.y + 0.5f * c.h));
  const Vec2 p = h.studio->canvas.transform().to_image({at.x - c.x, at.y - c.y});
  h.frame([&](ImGuiIO& io) { io.MousePos = at; });
  h.frame([&](ImGuiIO& io) { io.MouseDown[0] = true; });
  h.frame();
  CHECK(h.studio->view.probe_x == int(p.x));
  CHECK(h.studio->view.probe_y == int(p.y));
  CHECK(h.studio->probes.impulse().x == int(p.x));
  REQUIRE_FALSE(h.studio->probes.impulse().response.empty());
  CHECK(h.studio->probes.impulse().response.at(int(p.x), int(p.y)) ==
        doctest::Approx(h.studio->probes.impulse().max));

  h.studio->view.mode = ViewMode::Profile;
  h.frame();
  h.frame();
  const CanvasRect c2 = h.studio->canvas.rect();
  const ImVec2 top(std::floor(c2.x + 0.5f * c2.w), std::floor(c2.y + 0.2f * c2.h));
  const Vec2 q = h.studio->canvas.transform().to_image({top.x - c2.x, top.y - c2.y});
  h.frame([&](ImGuiIO& io) { io.MousePos = top; });
  h.frame([&](ImGuiIO& io) { io.MouseDown[0] = true; });
  h.frame();
  CHECK(h.studio->view.profile_line == int(q.y));
  CHECK(h.studio->probes.profile().line == int(q.y));
  CHECK(h.studio->probes.profile().by_extension.size() == std::size(rf::kAllExtensions));
}

TEST_CASE("studio input: Ctrl+S exports into the export folder") {
  Harness h(defaults());
  const std::filesystem::path dir = std::filesystem::path(RF_BINARY_DIR) / "gui-shots" / "ctrl-s";
  std::filesystem::remove_all(dir);
  h.studio->export_dir = dir.string();
  h.press('S', true);
  h.studio->wait_exports();
  CHECK(std::filesystem::exists(dir / "rfstudio-001.json"));
  CHECK(std::filesystem::exists(dir / "rfstudio-001-result.pfm"));
  CHECK(std::filesystem::exists(dir / "rfstudio-001-view.png"));
  h.press('S', true);
  h.studio->wait_exports();
  CHECK(std::filesystem::exists(dir / "rfstudio-002.json"));
}
