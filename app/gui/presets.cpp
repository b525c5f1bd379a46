#include "app/gui/presets.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <type_traits>

#include "app/io/atomic_file.h"
#include "filters/core/errors.h"
#include "filters/core/filter_table.h"

namespace rf::gui {
namespace {

using nlohmann::json;

// A JSON value as T, strictly: nlohmann::json converts any number to any arithmetic type with a
// plain cast, which is undefined behaviour for a value out of the type's range (an order of
// 3e59), and it reads true as 1. Here a number must fit, an integer key takes integers (3.0
// included), and a flag takes true or false.
template <class T>
T convert(const json& v, const char* key) {
  const auto wrong_type = [&] {
    return InvalidParameter(std::string("preset key '") + key + "' has the wrong type");
  };
  const auto out_of_range = [&] {
    return InvalidParameter(std::string("preset key '") + key + "' is out of range");
  };
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) throw wrong_type();
    return v.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_number()) throw wrong_type();
    const double d = v.get<double>();
    if (d != std::floor(d)) throw wrong_type();
    if (!(d >= double(std::numeric_limits<T>::min()) && d <= double(std::numeric_limits<T>::max())))
      throw out_of_range();
    return v.is_number_float() ? T(d) : v.get<T>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number()) throw wrong_type();
    const double d = v.get<double>();
    if (!(std::abs(d) <= double(std::numeric_limits<T>::max()))) throw out_of_range();
    return T(d);
  } else {
    static_assert(std::is_same_v<T, std::string>);
    if (!v.is_string()) throw wrong_type();
    return v.get<std::string>();
  }
}

template <class T>
void read(const json& j, const char* key, T* value) {
  if (j.contains(key)) *value = convert<T>(j.at(key), key);
}

template <class T>
void read(const json& j, const char* key, std::optional<T>* value) {
  if (j.contains(key)) *value = convert<T>(j.at(key), key);
}

// A filter parameter's key, as the filter table spells it ("sigma_r").
const char* key(Param p) {
  return info(p).key;
}

template <class E, class Parse>
void read_enum(const json& j, const char* key, E* value, Parse parse) {
  if (!j.contains(key)) return;
  std::string name;
  read(j, key, &name);
  auto v = parse(name);
  if (!v)
    throw InvalidParameter(std::string("preset key '") + key + "': unknown value '" + name + "'");
  *value = *v;
}

std::optional<DiffScale> parse_diff_scale(std::string_view s) {
  if (s == "log") return DiffScale::Log;
  if (s == "linear") return DiffScale::Linear;
  return std::nullopt;
}

const char* source_key(SourceKind k) {
  switch (k) {
    case SourceKind::Image:
      return "image";
    case SourceKind::Folder:
      return "folder";
    case SourceKind::Video:
      return "video";
    case SourceKind::Camera:
      return "camera";
    case SourceKind::Pattern:
      return "pattern";
    case SourceKind::Default:
      break;
  }
  return "default";
}

}  // namespace

Preset make_preset(const std::string& name, const FilterSpec& spec, const ViewSettings& view,
                   const DiffSettings& diff, std::optional<SourceChoice> source) {
  Preset p;
  p.name = name;
  p.spec = spec;
  p.view = view;
  p.diff = diff;
  p.source = std::move(source);
  return p;
}

json to_json(const Preset& p) {
  const FilterSpec& s = p.spec;
  json j;
  j["name"] = p.name;
  if (!p.description.empty()) j["description"] = p.description;
  if (!p.lesson.empty())
    j["lesson"] = {{"order", p.lesson.order},
                   {"look", p.lesson.look},
                   {"shows", p.lesson.shows},
                   {"paper", p.lesson.paper}};
  j["filter"] = {{"kind", to_string(s.kind)},         {key(Param::Sigma), s.sigma},
                 {key(Param::Order), s.order},        {key(Param::Pole), s.pole},
                 {key(Param::Ext), to_string(s.ext)}, {key(Param::SigmaR), s.sigma_r},
                 {key(Param::Kappa), s.kappa},        {key(Param::Iterations), s.iterations},
                 {"algo", to_string(s.algo)},         {"backend", to_string(s.backend)}};
  if (s.sigma_y) j["filter"][key(Param::SigmaY)] = *s.sigma_y;
  if (info(s.kind).params.has(Param::GaussianMethod))
    j["filter"][key(Param::GaussianMethod)] = to_string(s.gaussian_method);
  if (s.ext == Extension::Constant) j["filter"]["cval"] = s.cval;
  if (s.derivative.any()) {
    j["filter"][key(Param::Derivative)] = to_string(s.derivative);
    j["filter"]["normalized"] = s.derivative.normalized;
  }
  j["view"] = {{"mode", to_string(p.view.mode)},
               {"split", p.view.split},
               {"diff_scale", p.view.diff_scale == DiffScale::Log ? "log" : "linear"},
               {"amplification", p.view.amplification},
               {"tiles_show_result", p.view.tiles_show_result},
               {"profile_vertical", p.view.profile_vertical},
               {"profile_line", p.view.profile_line},
               {"probe", {p.view.probe_x, p.view.probe_y}},
               {"derivative_gain", p.view.derivative_gain}};
  j["diff"] = {{"truth", to_string(p.diff.truth)},
               {"truth_ext", to_string(p.diff.truth_ext)},
               {"auto_band", p.diff.auto_band},
               {"band", p.diff.band}};
  if (p.source && p.source->kind != SourceKind::Default)
    j["source"] = {{source_key(p.source->kind), p.source->path}};
  return j;
}

Preset preset_from_json(const json& j, const Preset& base) {
  if (!j.is_object()) throw InvalidParameter("a preset must be a JSON object");
  Preset p = base;
  read(j, "name", &p.name);
  read(j, "description", &p.description);
  if (j.contains("lesson")) {
    const json& l = j.at("lesson");
    if (!l.is_object()) throw InvalidParameter("preset key 'lesson' has the wrong type");
    p.lesson = Lesson{};
    read(l, "order", &p.lesson.order);
    read(l, "look", &p.lesson.look);
    read(l, "shows", &p.lesson.shows);
    read(l, "paper", &p.lesson.paper);
  }
  if (j.contains("filter")) {
    const json& f = j.at("filter");
    if (!f.is_object()) throw InvalidParameter("preset key 'filter' has the wrong type");
    // Read as rfcli reads its options, over the current spec: the same names, the same defaults
    // when the kind changes, the same checks and messages.
    FilterArgs a = to_args(p.spec);
    if (f.contains("kind")) change_filter(a, convert<std::string>(f.at("kind"), "kind"));
    // A sigma alone is one sigma for both axes, as rfcli's --sigma 4.
    if (f.contains(key(Param::Sigma))) a.sigma_y.reset();
    read(f, key(Param::Sigma), &a.sigma);
    read(f, key(Param::SigmaY), &a.sigma_y);
    read(f, key(Param::Order), &a.order);
    read(f, key(Param::Pole), &a.pole);
    read(f, key(Param::Ext), &a.ext);
    // The value goes with the constant extension: another one named here drops it.
    if (f.contains(key(Param::Ext)) && parse_extension(*a.ext) != Extension::Constant)
      a.cval.reset();
    read(f, "cval", &a.cval);
    // A kind named here without a derivative: the smoothed image, unless the preset says one.
    if (f.contains("kind")) {
      a.derivative = "none";
      a.normalized = false;
    }
    read(f, key(Param::Derivative), &a.derivative);
    read(f, "normalized", &a.normalized);
    read(f, key(Param::SigmaR), &a.sigma_r);
    read(f, key(Param::Kappa), &a.kappa);
    read(f, key(Param::Iterations), &a.iterations);
    read(f, "algo", &a.algo);
    read(f, key(Param::GaussianMethod), &a.gaussian_method);
    read(f, "backend", &a.backend);
    p.spec = parse_spec(a);
  }
  if (j.contains("view")) {
    const json& v = j.at("view");
    read_enum(v, "mode", &p.view.mode, parse_view_mode);
    read(v, "split", &p.view.split);
    read_enum(v, "diff_scale", &p.view.diff_scale, parse_diff_scale);
    read(v, "amplification", &p.view.amplification);
    read(v, "tiles_show_result", &p.view.tiles_show_result);
    read(v, "profile_vertical", &p.view.profile_vertical);
    read(v, "profile_line", &p.view.profile_line);
    read(v, "derivative_gain", &p.view.derivative_gain);
    if (v.contains("probe")) {
      const json& probe = v.at("probe");
      if (!probe.is_array() || probe.size() != 2)
        throw InvalidParameter("preset key 'probe' has the wrong type");
      p.view.probe_x = convert<int>(probe[0], "probe");
      p.view.probe_y = convert<int>(probe[1], "probe");
    }
  }
  if (j.contains("diff")) {
    const json& d = j.at("diff");
    read_enum(d, "truth", &p.diff.truth, parse_truth_mode);
    read_enum(d, "truth_ext", &p.diff.truth_ext, parse_extension);
    read(d, "auto_band", &p.diff.auto_band);
    read(d, "band", &p.diff.band);
  }
  if (j.contains("source")) {
    const json& src = j.at("source");
    const std::pair<const char*, SourceKind> kinds[] = {{"image", SourceKind::Image},
                                                        {"folder", SourceKind::Folder},
                                                        {"video", SourceKind::Video},
                                                        {"camera", SourceKind::Camera},
                                                        {"pattern", SourceKind::Pattern}};
    for (const auto& [key, kind] : kinds) {
      if (!src.contains(key)) continue;
      SourceChoice c{kind, {}};
      read(src, key, &c.path);
      p.source = c;
    }
  }
  return p;
}

Preset parse_preset(std::string_view text, const std::string& name, const Preset& base) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    // parse_error for bad syntax; out_of_range for a number beyond double (1e999).
    throw IoError(name + ": not valid JSON (" + e.what() + ")");
  }
  try {
    return preset_from_json(j, base);
  } catch (const InvalidParameter& e) {
    throw InvalidParameter(name + ": " + e.what());
  }
}

Preset load_preset_file(const std::string& path, const Preset& base) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw IoError(path + ": cannot open the preset");
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw IoError(path + ": cannot read the preset");
  return parse_preset(text, path, base);
}

void save_preset_file(const std::string& path, const Preset& preset) {
  io::write_atomically(path, [&](const std::string& temp) {
    std::ofstream f(temp);
    f << to_json(preset).dump(2) << "\n";
    f.close();
    if (!f) throw IoError(path + ": cannot write the preset");
  });
}

void apply_preset(const Preset& p, StudioOptions* o) {
  o->spec = p.spec;
  o->view = p.view;
  o->diff = p.diff;
  if (p.source) o->source = *p.source;
}

}  // namespace rf::gui
