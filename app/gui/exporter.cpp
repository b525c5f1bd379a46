#include "app/gui/exporter.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>

#include <nlohmann/json.hpp>

namespace rf::gui {
namespace {

nlohmann::json timing_json(const FrameTiming& t, double ui_frame_ms) {
  nlohmann::json stages = nlohmann::json::array();
  for (const StageTime& st : t.stages) stages.push_back({{"stage", st.stage}, {"ms", st.ms}});
  return {{"upload_ms", t.upload_ms},
          {"convert_ms", t.convert_ms},
          {"filter_ms", t.filter_ms},
          {"interop_ms", t.interop_ms},
          {"readback_ms", t.readback_ms},
          {"total_ms", t.total_ms()},
          {"frame_to_frame_ms", t.interval_ms},
          {"latency_ms", t.latency_ms},
          {"pipelined", t.pipelined},
          {"clock", t.gpu_events ? "CUDA events" : "host steady clock"},
          {"stages", stages},
          {"ui_frame_ms_wall", ui_frame_ms}};
}

nlohmann::json truth_json(const TruthResult& truth) {
  auto stats = [](const ErrorStats& e) {
    return nlohmann::json{
        {"max_abs", e.max_abs}, {"rmse", e.rmse}, {"psnr_db", e.psnr}, {"samples", e.samples}};
  };
  return {{"label", truth.label},
          {"band_px", truth.stats.band},
          {"whole", stats(truth.stats.whole)},
          {"border", stats(truth.stats.border)},
          {"interior", stats(truth.stats.interior)},
          {"ms", truth.ms}};
}

}  // namespace

std::string sidecar_json(const Preset& preset, const std::string& source,
                         const Processor& processor, const GroundTruth& truth, double ui_frame_ms) {
  nlohmann::json j;
  j["preset"] = to_json(preset);
  j["filter"] = describe(preset.spec);
  j["source"] = source;
  j["width"] = processor.width();
  j["height"] = processor.height();
  j["backend"] = processor.backend_line();
  j["path"] = processor.path_line();
  j["timing"] = timing_json(processor.timing(), ui_frame_ms);
  if (truth.current()) j["truth"] = truth_json(truth.result());
  return j.dump(2);
}

void Exporter::export_all(const std::string& stem, const std::string& dir) {
  if (!processor_.has_frame()) return;
  processor_.settle();
  try {
    const std::filesystem::path path = std::filesystem::path(dir) / stem;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    const std::string base = path.string();
    // The writer gets copies: the studio goes on with the next frames meanwhile.
    writer_.add(base, [base, result = processor_.result(), json = sidecar_()] {
      write_result(base + "-result.png", result);
      write_result(base + "-result.pfm", result);
      write_text(base + ".json", json);
    });
    pending_.push_back(base);
    screenshots_.push_back(base + "-view.png");
  } catch (const std::exception& e) {
    log_.post(std::string("export failed: ") + e.what(), true);
  }
}

std::string Exporter::next_stem(const std::string& dir) const {
  for (int i = 1;; ++i) {
    char stem[32];
    std::snprintf(stem, sizeof stem, "rfstudio-%03d", i);
    const std::filesystem::path base = std::filesystem::path(dir) / stem;
    const bool pending =
        std::find(pending_.begin(), pending_.end(), base.string()) != pending_.end();
    if (!pending && !std::filesystem::exists(base.string() + ".json")) return stem;
  }
}

int Exporter::collect() {
  int written = 0;
  for (FileWriter::Done& d : writer_.take_done()) {
    // One entry per export given: the same stem may be written twice in a row.
    const auto it = std::find(pending_.begin(), pending_.end(), d.name);
    if (it != pending_.end()) pending_.erase(it);
    if (!d.error.empty()) {
      log_.post("export failed: " + d.error, true);
      continue;
    }
    ++written;
    log_.post("exported " + d.name + "-result.png, -result.pfm, .json and -view.png");
  }
  return written;
}

int Exporter::wait() {
  writer_.wait_idle();
  return collect();
}

std::vector<std::string> Exporter::take_screenshots() {
  std::vector<std::string> paths;
  paths.swap(screenshots_);
  return paths;
}

}  // namespace rf::gui
