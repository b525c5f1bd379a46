// Lesson cards: every classroom preset carries one, in a teaching order; a teacher's own JSON
// joins the walk; the card survives a preset round trip.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "app/gui/embedded.h"
#include "app/gui/lessons.h"
#include "filters/core/errors.h"
#include "studio_run.h"
#include "tests/temp_dir.h"

using namespace rf;
using namespace rf::gui;
namespace fs = std::filesystem;

namespace {

using rf::test_util::TempDir;

const char* kTeacherLesson = R"({
  "name": "my own lesson",
  "description": "order 2 between 1 and 3",
  "lesson": {"order": 4, "look": "the dB plot", "shows": "Deriche's poles", "paper": "Deriche 1993"},
  "filter": {"kind": "deriche", "order": 2, "sigma": 6},
  "view": {"mode": "response"}
})";

}  // namespace

TEST_CASE("lessons: every preset in assets/presets carries a card") {
  const auto names = embedded_names("assets/presets/");
  const LessonDeck deck = LessonDeck::built_in();
  CHECK(deck.size() == int(names.size()));
  CHECK(deck.size() >= 9);
  std::set<int> orders;
  for (const LessonEntry& e : deck.entries()) {
    CAPTURE(e.source);
    const Lesson& l = e.preset.lesson;
    CHECK(!e.preset.name.empty());
    CHECK(!l.look.empty());
    CHECK(!l.shows.empty());
    CHECK(!l.paper.empty());
    CHECK(orders.insert(l.order).second);  // one place each in the walk
  }
  for (std::size_t i = 1; i < deck.entries().size(); ++i)
    CHECK(deck.entries()[i - 1].preset.lesson.order < deck.entries()[i].preset.lesson.order);
  // The seven lessons the classroom started with are among them.
  for (const char* source :
       {"assets/presets/border-artifacts.json", "assets/presets/extensions-tiles.json",
        "assets/presets/gaussian-orders.json", "assets/presets/bspline-prefilter.json",
        "assets/presets/edge-aware-kappa.json", "assets/presets/lee-two-way-seam.json",
        "assets/presets/algorithm-race.json"}) {
    CAPTURE(source);
    CHECK(deck.find(source) >= 0);
  }
  const LessonEntry& orders_lesson =
      deck.entries()[deck.find("assets/presets/gaussian-orders.json")];
  CHECK(orders_lesson.preset.view.mode == ViewMode::Response);
  const LessonEntry& race = deck.entries()[deck.find("assets/presets/algorithm-race.json")];
  CHECK(race.preset.view.mode == ViewMode::Race);
}

TEST_CASE("lessons: a teacher's JSON joins the walk in its place") {
  TempDir dir;
  std::ofstream(dir / "mine.json") << kTeacherLesson;
  std::ofstream(dir / "no-card.json") << R"({"name": "plain", "filter": {"sigma": 3}})";
  std::ofstream(dir / "notes.txt") << "not a lesson";
  LessonDeck deck = LessonDeck::built_in();
  const int built_in = deck.size();
  deck.add_folder(dir.path());
  REQUIRE(deck.size() == built_in + 1);  // the preset without a card is not a lesson
  const int at = deck.find(dir / "mine.json");
  REQUIRE(at >= 0);
  const Preset& p = deck.entries()[at].preset;
  CHECK(p.lesson.look == "the dB plot");
  CHECK(p.spec.kind == FilterKind::Deriche);
  // Order 4 goes after lesson 3; the built-in lesson 4 follows it (sources break the tie, and
  // an absolute path sorts first).
  CHECK(deck.entries()[at - 1].preset.lesson.order == 3);
  CHECK(deck.entries()[at + 1].preset.lesson.order == 4);
  // Adding the same file again replaces it; a built-in preset opened from its file keeps its
  // place and its name.
  deck.add(load_lesson_file(dir / "mine.json"));
  CHECK(deck.size() == built_in + 1);
  const std::string tiles = std::string(RF_SOURCE_DIR) + "/assets/presets/extensions-tiles.json";
  deck.add(load_lesson_file(tiles));
  CHECK(deck.size() == built_in + 1);
  CHECK(deck.find("assets/presets/extensions-tiles.json") == 0);

  std::ofstream(dir / "broken.json") << "{ \"lesson\": ";
  CHECK_THROWS_WITH_AS(deck.add_folder(dir.path()), doctest::Contains("broken.json"),
                       InvalidParameter);
  std::ofstream(dir / "broken.json") << R"({"lesson": "a string"})";
  CHECK_THROWS_WITH_AS(deck.add_folder(dir.path()), doctest::Contains("'lesson'"),
                       InvalidParameter);
  CHECK_THROWS_AS(deck.add_folder(dir / "absent"), IoError);
}

TEST_CASE("lessons: the card survives a preset round trip") {
  const Preset p = preset_from_json(nlohmann::json::parse(kTeacherLesson), Preset{});
  const Preset q = preset_from_json(nlohmann::json::parse(to_json(p).dump()), Preset{});
  CHECK(q.lesson.order == 4);
  CHECK(q.lesson.look == p.lesson.look);
  CHECK(q.lesson.shows == p.lesson.shows);
  CHECK(q.lesson.paper == p.lesson.paper);
  // A preset without a card writes none.
  CHECK_FALSE(to_json(Preset{}).contains("lesson"));
}

TEST_CASE("offscreen: rfstudio opens every preset with its lesson card") {
  const LessonDeck deck = LessonDeck::built_in();
  for (int i = 0; i < deck.size(); ++i) {
    const LessonEntry& e = deck.entries()[i];
    CAPTURE(e.source);
    const std::string stem = fs::path(e.source).stem().string();
    const test::StudioRun run = test::run_offscreen(
        "lesson-" + stem, "--preset " + std::string(RF_SOURCE_DIR) + "/" + e.source, 1024, 640);
    CAPTURE(run.log);
    CHECK(run.status == 0);
    const std::string line = "lesson " + std::to_string(i + 1) + "/" + std::to_string(deck.size()) +
                             ": " + e.preset.name;
    CHECK(run.log.find(line) != std::string::npos);
    CHECK(run.log.find("cannot") == std::string::npos);
    CHECK(run.shot.width == 1024);
  }
}
