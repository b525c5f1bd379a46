#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/embedded.h"
#include "app/gui/options.h"
#include "app/gui/presets.h"
#include "filters/core/errors.h"

using namespace rf;
using namespace rf::gui;

TEST_CASE("presets: a random state survives a JSON round trip") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 50; ++i) {
    Preset p;
    p.name = "random " + std::to_string(i);
    p.spec.kind = FilterKind(rng() % 9);
    p.spec.sigma = 0.5 + 255.5 * u(rng);
    p.spec.order = 1 + int(rng() % 5);
    p.spec.pole = -0.9 + 1.8 * u(rng);
    p.spec.ext = Extension(rng() % 5);
    p.spec.sigma_r = u(rng);
    p.spec.kappa = 8 * u(rng);
    p.spec.iterations = 1 + int(rng() % 4);
    p.spec.algo = Algorithm(rng() % 9);
    p.spec.backend = Backend(rng() % 3);
    p.view.mode = ViewMode(rng() % 8);
    p.view.split = float(u(rng));
    p.view.amplification = float(1 + 1000 * u(rng));
    p.view.probe_x = int(rng() % 100);
    p.view.probe_y = int(rng() % 100);
    p.diff.truth = TruthMode(rng() % 3);
    p.diff.truth_ext = Extension(1 + rng() % 4);
    p.diff.band = 1 + int(rng() % 50);
    p.source = SourceChoice{SourceKind::Pattern, "steps"};
    const Preset q = preset_from_json(nlohmann::json::parse(to_json(p).dump()), Preset{});
    CHECK(q.spec == p.spec);
    CHECK(q.name == p.name);
    CHECK(q.view.mode == p.view.mode);
    CHECK(q.view.split == p.view.split);
    CHECK(q.view.amplification == p.view.amplification);
    CHECK(q.view.probe_x == p.view.probe_x);
    CHECK(q.view.probe_y == p.view.probe_y);
    CHECK(q.diff.truth == p.diff.truth);
    CHECK(q.diff.truth_ext == p.diff.truth_ext);
    CHECK(q.diff.band == p.diff.band);
    REQUIRE(q.source.has_value());
    CHECK(q.source->kind == SourceKind::Pattern);
    CHECK(q.source->path == "steps");
  }
}

TEST_CASE("presets: missing keys keep the base, bad values name the key") {
  Preset base;
  base.spec.sigma = 7.5;
  base.spec.ext = Extension::Repeat;
  const Preset p = preset_from_json(nlohmann::json::parse(R"({"filter": {"order": 5}})"), base);
  CHECK(p.spec.order == 5);
  CHECK(p.spec.sigma == 7.5);
  CHECK(p.spec.ext == Extension::Repeat);
  auto message = [&](const char* text) {
    try {
      preset_from_json(nlohmann::json::parse(text), base);
    } catch (const InvalidParameter& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message(R"({"filter": {"ext": "wrap"}})").find("'ext'") != std::string::npos);
  CHECK(message(R"({"filter": {"sigma": "big"}})").find("'sigma'") != std::string::npos);
  CHECK(message(R"({"view": {"mode": "xray"}})").find("'mode'") != std::string::npos);
  CHECK(message("[1, 2]") != "no error");
}

TEST_CASE("presets: every classroom preset shipped in assets/presets parses") {
  const auto names = embedded_names("assets/presets/");
  CHECK(names.size() >= 4);
  for (std::string_view name : names) {
    CAPTURE(name);
    const Preset p = preset_from_json(nlohmann::json::parse(embedded(name)), Preset{});
    CHECK(!p.name.empty());
    CHECK(!p.description.empty());
  }
}

TEST_CASE("presets: files, and the command line overriding a preset") {
  const std::string path = std::string(RF_BINARY_DIR) + "/test-preset.json";
  Preset p;
  p.name = "file";
  p.spec.kind = FilterKind::BSpline5;
  p.spec.ext = Extension::Clamp;
  p.spec.sigma = 3.25;
  p.view.mode = ViewMode::Tiles;
  save_preset_file(path, p);
  const Preset q = load_preset_file(path);
  CHECK(q.spec == p.spec);
  CHECK(q.view.mode == ViewMode::Tiles);

  std::vector<std::string> args = {"rfstudio", "--preset", path,  "--ext",
                                   "mirror",   "--view",   "diff"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  StudioOptions o;
  CHECK_FALSE(parse_options(int(argv.size()), argv.data(), &o).has_value());
  CHECK(o.spec.kind == FilterKind::BSpline5);  // from the preset
  CHECK(o.spec.sigma == 3.25);
  CHECK(o.spec.ext == Extension::Mirror);  // the command line wins
  CHECK(o.view.mode == ViewMode::Diff);

  CHECK_THROWS_AS(load_preset_file(path + ".missing"), IoError);
  std::ofstream(path) << "{ not json";
  CHECK_THROWS_AS(load_preset_file(path), IoError);
  std::remove(path.c_str());
}

TEST_CASE("options: the filter options of rfcli, sources and views") {
  auto parse = [](std::vector<std::string> args, StudioOptions* o) {
    args.insert(args.begin(), "rfstudio");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    return parse_options(int(argv.size()), argv.data(), o);
  };
  StudioOptions o;
  CHECK_FALSE(parse({"--filter", "deriche", "--sigma", "2.5", "--order", "4", "--ext", "repeat",
                     "--algo", "rt", "--backend", "cpu", "--pattern", "checkerboard", "--view",
                     "tiles", "--offscreen"},
                    &o)
                  .has_value());
  CHECK(o.spec.kind == FilterKind::Deriche);
  CHECK(o.spec.sigma == 2.5);
  CHECK(o.spec.order == 4);
  CHECK(o.spec.ext == Extension::Repeat);
  CHECK(o.spec.algo == Algorithm::RT);
  CHECK(o.spec.backend == Backend::Cpu);
  CHECK(o.source.kind == SourceKind::Pattern);
  CHECK(o.source.path == "checkerboard");
  CHECK(o.view.mode == ViewMode::Tiles);
  CHECK(o.frames == 3);  // offscreen renders a few frames by default

  StudioOptions bad;
  CHECK(parse({"--ext", "wrap"}, &bad) == 2);
  CHECK(parse({"--filter", "box"}, &bad) == 2);
  CHECK(parse({"--image", "a.png", "--pattern", "steps"}, &bad) == 2);
  CHECK(parse({"--sigma", "-1"}, &bad) == 2);
}
