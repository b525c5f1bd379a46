// What the randomized soak (tests/soak/soak.cpp) found, kept as tests.
#include <doctest/doctest.h>

#include "tests/gui/studio_harness.h"

using namespace rf;
using namespace rf::gui;

// The soak crashed in the profile view: with the truth switched off, the truth stayed current, from
// an earlier frame, and the profile sampled the old truth image (71 rows) along a row of the
// new, taller frame (an out-of-bounds read that AddressSanitizer reported).
TEST_CASE("soak regression: the profile never samples a truth of another frame") {
  StudioOptions o;
  o.spec.backend = Backend::Cpu;
  o.view.mode = ViewMode::Profile;
  o.source = {SourceKind::Pattern, "steps"};
  o.source.width = 96;
  o.source.height = 40;
  test::StudioHarness h(o);
  h.studio->truth.wait_idle();
  h.frame();
  h.frame();
  REQUIRE(h.studio->truth.current());
  REQUIRE(h.studio->truth.result().truth.height == 40);

  h.studio->truth_enabled = false;
  SourceChoice taller{SourceKind::Pattern, "checkerboard"};
  taller.width = 80;
  taller.height = 300;
  h.studio->open_source(taller);
  h.studio->view.profile_vertical = true;
  h.studio->view.profile_line = 50;
  h.frame();
  CHECK_FALSE(h.studio->truth.current());
  CHECK(h.studio->probes.profile().truth.empty());
  CHECK(h.studio->probes.profile().input.size() == 300);
}
