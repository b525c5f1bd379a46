#include <doctest/doctest.h>

#include <vector>

#include "app/gui/view_math.h"
#include "tests/random_data.h"

using namespace rf::gui;

TEST_CASE("view math: fit centres the content and keeps its aspect") {
  // 512x256 content in a 1000x1000 canvas: width limits, zoom = 0.95 * 1000 / 512.
  const ViewTransform t = fit({0, 0, 512, 256}, {1000, 1000});
  CHECK(t.zoom == doctest::Approx(0.95 * 1000 / 512));
  const Vec2 centre = t.to_canvas({256, 128});
  CHECK(centre.x == doctest::Approx(500));
  CHECK(centre.y == doctest::Approx(500));
  // Tiles: the 3x3 content starts at (-w, -h) and the image sits in the middle.
  const ViewTransform tiles = fit({-31, -17, 93, 51}, {640, 480});
  const Vec2 mid = tiles.to_canvas({15.5f, 8.5f});
  CHECK(mid.x == doctest::Approx(320));
  CHECK(mid.y == doctest::Approx(240));
}

TEST_CASE("view math: zoom at the cursor keeps the point under it") {
  // 200 random cases, six uniform numbers on [0, 1) each.
  const std::vector<double> r = rf::test::random_line(6 * 200, 7, 0.0, 1.0);
  std::size_t next = 0;
  auto u = [&] { return float(r[next++]); };
  for (int i = 0; i < 200; ++i) {
    ViewTransform t;
    t.zoom = 0.1f + 8.0f * u();
    t.offset = {-300 + 600 * u(), -300 + 600 * u()};
    const Vec2 cursor{1000 * u(), 700 * u()};
    const float factor = 0.25f + 4.0f * u();
    const Vec2 before = t.to_image(cursor);
    const ViewTransform z = zoom_at(t, cursor, factor);
    const Vec2 after = z.to_image(cursor);
    CHECK(after.x == doctest::Approx(before.x).epsilon(1e-4));
    CHECK(after.y == doctest::Approx(before.y).epsilon(1e-4));
    CHECK(z.zoom == doctest::Approx(t.zoom * factor));
  }
  // Clamped at the limits.
  CHECK(zoom_at(ViewTransform{}, {0, 0}, 1e9f).zoom == kMaxZoom);
  CHECK(zoom_at(ViewTransform{}, {0, 0}, 1e-9f).zoom == kMinZoom);
}

TEST_CASE("view math: 1:1 keeps the canvas centre, pan moves by the delta") {
  ViewTransform t;
  t.zoom = 3.7f;
  t.offset = {-123.0f, 45.0f};
  const Vec2 canvas{801, 599};
  const Vec2 c = t.to_image({canvas.x / 2, canvas.y / 2});
  const ViewTransform o = one_to_one(t, canvas);
  CHECK(o.zoom == doctest::Approx(1.0f));
  const Vec2 c2 = o.to_image({canvas.x / 2, canvas.y / 2});
  CHECK(c2.x == doctest::Approx(c.x));
  CHECK(c2.y == doctest::Approx(c.y));
  const ViewTransform p = pan(t, {10, -4});
  CHECK(p.offset.x == doctest::Approx(-113.0f));
  CHECK(p.offset.y == doctest::Approx(41.0f));
}

TEST_CASE("view math: pixel under the cursor, edges included and excluded") {
  ViewTransform t;
  t.zoom = 2.0f;
  t.offset = {10, 20};
  int x = -1, y = -1;
  CHECK(pixel_at(t, {10.0f, 20.0f}, 31, 33, &x, &y));
  CHECK(x == 0);
  CHECK(y == 0);
  CHECK(pixel_at(t, {10.0f + 2 * 31 - 0.01f, 20.0f + 2 * 33 - 0.01f}, 31, 33, &x, &y));
  CHECK(x == 30);
  CHECK(y == 32);
  CHECK_FALSE(pixel_at(t, {10.0f + 2 * 31, 30.0f}, 31, 33, &x, &y));
  CHECK_FALSE(pixel_at(t, {9.9f, 30.0f}, 31, 33, &x, &y));
  CHECK_FALSE(pixel_at(t, {30.0f, 19.9f}, 31, 33, &x, &y));
}
