#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/embedded.h"
#include "app/gui/options.h"
#include "app/gui/panels/filter_choices.h"
#include "app/gui/presets.h"
#include "filters/core/design.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/filter_table.h"

using namespace rf;
using namespace rf::gui;

TEST_CASE("presets: a random state survives a JSON round trip") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 50; ++i) {
    Preset p;
    p.name = "random " + std::to_string(i);
    // A state the filter panel can reach: a kind, and an order, extension and algorithm it takes.
    const KindInfo& k = kind_table()[rng() % kind_table().size()];
    p.spec.kind = k.kind;
    p.spec.order = k.orders[rng() % k.orders.size()].order;
    p.spec.ext = k.extensions[rng() % k.extensions.size()];
    if (p.spec.ext == Extension::Constant) p.spec.cval = -1.0 + 3.0 * u(rng);
    const std::vector<Algorithm> algos = algorithms_for(Backend::Auto, k.kind);
    p.spec.algo = algos[rng() % algos.size()];
    const bool partitions = p.spec.algo == Algorithm::OneWay || p.spec.algo == Algorithm::TwoWay;
    if (k.params.has(Param::Derivative) && p.spec.ext != Extension::Ignore && !partitions &&
        rng() % 2) {
      const auto choices = derivative_choices(k.kind);
      p.spec.derivative = choices[rng() % choices.size()].first;
      p.spec.derivative.normalized = p.spec.derivative.any() && rng() % 2;
      p.view.derivative_gain = float(0.1 + 10.0 * u(rng));
    }
    p.spec.sigma = 0.5 + 199.5 * u(rng);
    const bool lee = p.spec.algo == Algorithm::OneWay || p.spec.algo == Algorithm::TwoWay;
    if (k.params.has(Param::SigmaY) && !lee && rng() % 2) p.spec.sigma_y = 0.5 + 99.5 * u(rng);
    // A derivative smooths with sigma^2 - 1/3: the designs hold that from sigma 0.77.
    if (p.spec.derivative.any()) {
      p.spec.sigma = std::max(p.spec.sigma, 1.0);
      if (p.spec.sigma_y) p.spec.sigma_y = std::max(*p.spec.sigma_y, 1.0);
    }
    // The Gaussian's method: fir with the algorithm auto and no derivative, auto with any.
    if (k.params.has(Param::GaussianMethod) && rng() % 2) {
      const bool fir = !p.spec.derivative.any() && rng() % 2;
      p.spec.gaussian_method = fir ? GaussianMethod::Fir : GaussianMethod::Auto;
      if (fir) p.spec.algo = Algorithm::Auto;
    }
    p.spec.pole = -0.9 + 1.8 * u(rng);
    p.spec.sigma_r = 0.01 + u(rng);
    p.spec.kappa = 8 * u(rng);
    p.spec.iterations = 1 + int(rng() % 4);
    p.spec.backend = Backend(rng() % 3);
    p.view.mode = ViewMode(rng() % 8);
    p.view.split = float(u(rng));
    p.view.amplification = float(1 + 1000 * u(rng));
    p.view.probe_x = int(rng() % 100);
    p.view.probe_y = int(rng() % 100);
    p.diff.truth = TruthMode(rng() % 3);
    p.diff.truth_ext = truth_extension_choices()[rng() % truth_extension_choices().size()];
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
  // A filter reads as rfcli's options do: rfcli's message for a bad name or value.
  CHECK(message(R"({"filter": {"ext": "spiral"}})") ==
        "--ext: unknown extension 'spiral' (ignore, zero, clamp, repeat, mirror, reflect101, "
        "constant)");
  CHECK(message(R"({"filter": {"order": 7}})") == "order must be in 1..5 for gaussian (got 7)");
  CHECK(message(R"({"filter": {"sigma": "big"}})").find("'sigma'") != std::string::npos);
  CHECK(message(R"({"view": {"mode": "xray"}})").find("'mode'") != std::string::npos);
  CHECK(message("[1, 2]") != "no error");
}

TEST_CASE("presets: a bad filter reports rfcli's message, naming the file") {
  auto message = [](const std::string& text) {
    try {
      parse_preset(text, "p.json");
    } catch (const InvalidParameter& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto rfcli_message = [](FilterArgs a) {
    try {
      parse_spec(a);
    } catch (const InvalidParameter& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  FilterArgs box;
  box.filter = "box";
  CHECK(message(R"({"filter": {"kind": "box"}})") == "p.json: " + rfcli_message(box));
  CHECK(message(R"({"filter": {"kind": "box"}})") ==
        "p.json: --filter: unknown filter 'box' (" + kind_names() + ")");
  FilterArgs sat;
  sat.filter = "sat";
  sat.ext = "repeat";
  CHECK(message(R"({"filter": {"kind": "sat", "ext": "repeat"}})") ==
        "p.json: " + rfcli_message(sat));
  FilterArgs algo;
  algo.algo = "alg9";
  CHECK(message(R"({"filter": {"algo": "alg9"}})") == "p.json: " + rfcli_message(algo));
  CHECK(message(R"({"filter": [1]})") == "p.json: preset key 'filter' has the wrong type");
}

TEST_CASE("presets: a kind named without its order or extension takes the kind's defaults") {
  Preset base;  // gaussian order 3, mirror
  auto read = [&](const char* text) {
    return preset_from_json(nlohmann::json::parse(text), base).spec;
  };
  CHECK(read(R"({"filter": {"kind": "deriche"}})").order == 2);
  CHECK(read(R"({"filter": {"kind": "deriche", "order": 4}})").order == 4);
  CHECK(read(R"({"filter": {"kind": "sat"}})").ext == Extension::Zero);
  CHECK(read(R"({"filter": {"kind": "yvrg", "order": 5}})").order == 3);
  base.spec.order = 5;
  base.spec.ext = Extension::Clamp;
  const FilterSpec kept = read(R"({"filter": {"sigma": 9}})");
  CHECK(kept.order == 5);
  CHECK(kept.ext == Extension::Clamp);
  CHECK(kept.sigma == 9.0);
  // The order the person chose stays where the new kind offers it.
  CHECK(read(R"({"filter": {"kind": "gaussian"}})").order == 5);
  CHECK(read(R"({"filter": {"kind": "deriche"}})").order == 2);
  // An algorithm of the kind before gives way to auto when the new kind is not offered it.
  base.spec = with_kind(FilterSpec{}, FilterKind::Yvrg);
  base.spec.algo = Algorithm::TwoWay;
  CHECK(read(R"({"filter": {"kind": "gaussian"}})").algo == Algorithm::Auto);
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
  p.spec = with_kind(p.spec, FilterKind::BSpline5);
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

  // Defaults of the kind named, from the filter table: deriche starts at order 2, sat at zero.
  StudioOptions deriche;
  CHECK_FALSE(parse({"--filter", "deriche"}, &deriche).has_value());
  CHECK(deriche.spec.kind == FilterKind::Deriche);
  CHECK(deriche.spec.order == 2);
  CHECK_NOTHROW(validate(deriche.spec));
  StudioOptions sat;
  CHECK_FALSE(parse({"--filter", "sat"}, &sat).has_value());
  CHECK(sat.spec.ext == Extension::Zero);
  StudioOptions sat_ignore;
  CHECK_FALSE(parse({"--filter", "sat", "--ext", "ignore"}, &sat_ignore).has_value());
  CHECK(sat_ignore.spec.ext == Extension::Ignore);
  StudioOptions yvrg;
  CHECK_FALSE(parse({"--filter", "yvrg", "--algo", "two-way"}, &yvrg).has_value());
  CHECK(yvrg.spec.order == 3);
  CHECK(yvrg.spec.algo == Algorithm::TwoWay);
  StudioOptions edge;
  CHECK_FALSE(parse({"--filter", "edge-aware", "--sigma-r", "0.3", "--iterations", "3"}, &edge)
                  .has_value());
  CHECK(edge.spec.sigma_r == 0.3);
  CHECK(edge.spec.iterations == 3);
  // A value the filter refuses starts the studio, which shows the filter's message.
  StudioOptions pole;
  CHECK_FALSE(parse({"--filter", "exp", "--pole", "1.5"}, &pole).has_value());
  CHECK(pole.spec.pole == 1.5);

  StudioOptions bad;
  CHECK(parse({"--ext", "spiral"}, &bad) == 2);
  CHECK(parse({"--algo", "alg9"}, &bad) == 2);
  CHECK(parse({"--backend", "gpu"}, &bad) == 2);
  CHECK(parse({"--filter", "box"}, &bad) == 2);
  CHECK(parse({"--image", "a.png", "--pattern", "steps"}, &bad) == 2);
  CHECK(parse({"--sigma", "-1"}, &bad) == 2);
  CHECK(parse({"--sigma", "2,0"}, &bad) == 2);
  CHECK(parse({"--sigma", "2,"}, &bad) == 2);

  // A sigma per axis, x first; one value is one sigma for both.
  StudioOptions xy;
  REQUIRE_FALSE(parse({"--sigma", "2,7"}, &xy).has_value());
  CHECK(xy.spec.sigma == 2.0);
  CHECK(xy.spec.sigma_y == 7.0);
  REQUIRE_FALSE(parse({"--sigma", "5"}, &xy).has_value());
  CHECK(xy.spec.sigma == 5.0);
  CHECK(!xy.spec.sigma_y);

  // --cval goes with --ext constant; another extension takes no value.
  StudioOptions constant;
  REQUIRE_FALSE(parse({"--ext", "constant", "--cval", "0.25"}, &constant).has_value());
  CHECK(constant.spec.ext == Extension::Constant);
  CHECK(constant.spec.cval == 0.25);
  CHECK(parse({"--cval", "0.25"}, &bad) == 2);

  // The truth's extension by --ext's names and aliases; ignore is no extension of a truth.
  StudioOptions truth;
  REQUIRE_FALSE(parse({"--truth", "extension", "--truth-ext", "nearest"}, &truth).has_value());
  CHECK(truth.diff.truth_ext == Extension::Clamp);
  REQUIRE_FALSE(parse({"--truth-ext", "reflect101"}, &truth).has_value());
  CHECK(truth.diff.truth_ext == Extension::Reflect101);
  CHECK(parse({"--truth-ext", "ignore"}, &bad) == 2);
  CHECK(parse({"--truth-ext", "spiral"}, &bad) == 2);
}

TEST_CASE("presets: the constant extension's value, and another extension dropping it") {
  const Preset c = preset_from_json(
      nlohmann::json::parse(R"({"filter": {"ext": "constant", "cval": 0.4}})"), Preset{});
  CHECK(c.spec.ext == Extension::Constant);
  CHECK(c.spec.cval == 0.4);
  CHECK(to_json(c)["filter"]["cval"] == 0.4);
  const Preset m = preset_from_json(nlohmann::json::parse(R"({"filter": {"ext": "mirror"}})"), c);
  CHECK(m.spec.ext == Extension::Mirror);
  CHECK(m.spec.cval == 0.0);
  CHECK_FALSE(to_json(m)["filter"].contains("cval"));
}
