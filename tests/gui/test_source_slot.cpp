#include <doctest/doctest.h>

#include "app/gui/source_slot.h"

using namespace rf::gui;

TEST_CASE("source slot: a source that fails to open keeps the current one") {
  SourceSlot slot;
  REQUIRE(slot.open({SourceKind::Default, {}}).empty());
  REQUIRE(slot.poll());
  CHECK(slot.frame().width == 512);
  CHECK(slot.frame().height == 512);
  CHECK_FALSE(slot.poll());  // a still delivers its frame once
  const std::uint8_t first = slot.frame().bytes[4 * (512 * 100 + 200)];

  const std::string err = slot.open({SourceKind::Image, "/nonexistent/image.png"});
  CHECK_FALSE(err.empty());
  CHECK(slot.description().find("astronaut") != std::string::npos);
  CHECK(slot.frame().width == 512);
  CHECK(slot.frame().bytes[4 * (512 * 100 + 200)] == first);

  CHECK_FALSE(slot.open_path("/nonexistent/folder/").empty());
  CHECK(slot.frame().width == 512);
}

TEST_CASE("source slot: patterns at odd sizes") {
  SourceSlot slot;
  SourceChoice c{SourceKind::Pattern, "checkerboard"};
  c.width = 31;
  c.height = 33;
  REQUIRE(slot.open(c).empty());
  REQUIRE(slot.poll());
  CHECK(slot.frame().width == 31);
  CHECK(slot.frame().height == 33);
  CHECK(slot.frame().bytes.size() == std::size_t(31) * 33 * 4);
  CHECK_FALSE(slot.open({SourceKind::Pattern, "no-such-pattern"}).empty());
  CHECK(slot.frame().width == 31);
}
