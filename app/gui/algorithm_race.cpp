#include "app/gui/algorithm_race.h"

#include <cstdio>
#include <string>

#include "app/gui/spec_key.h"

namespace rf::gui {
namespace {

std::uint64_t race_key(const FilterSpec& spec, const Processor& processor) {
  const std::uint64_t key = hash_combine(hash_spec(spec), processor.frame_version());
  return hash_combine(key, std::uint64_t(processor.running_backend()) + 1);
}

// One line for the log: what ran, on what, and how long each took.
std::string race_line(const RaceResult& race) {
  char buf[96];
  std::string line = "algorithm race on " + std::to_string(race.width) + "x" +
                     std::to_string(race.height) + ", " + race.device + " (" + race.clock +
                     ", median ms):";
  for (const RaceEntry& e : race.entries) {
    if (e.runs == 0) continue;
    std::snprintf(buf, sizeof buf, " %s %.4g (%.3g GiP/s),", e.name.c_str(), e.ms, e.gips);
    line += buf;
  }
  std::snprintf(buf, sizeof buf, " copy floor %.4g (%.3g GiP/s)", race.floor.ms, race.floor.gips);
  return line + buf;
}

}  // namespace

void AlgorithmRace::request(const FilterSpec& spec, Processor& processor) {
  if (!processor.has_frame()) return;
  RaceRequest r;
  r.spec = spec;
  r.backend = processor.running_backend();
  r.frame = processor.input();
  r.key = race_key(spec, processor);
  worker_.request(std::move(r));
}

bool AlgorithmRace::current(const FilterSpec& spec, const Processor& processor) const {
  return !result_.entries.empty() && result_.key == race_key(spec, processor);
}

void AlgorithmRace::update(const FilterSpec& spec, Processor& processor, bool run_once, bool wait,
                           MessageLog& log) {
  if (run_once && !requested_once_ && processor.has_frame()) {
    request(spec, processor);
    requested_once_ = true;
  }
  if (wait) worker_.wait_idle();
  auto done = worker_.take();
  if (!done) return;
  if (!done->error.empty()) {
    if (done->error != "cancelled") log.post("algorithm race: " + done->error, true);
    return;
  }
  result_ = std::move(*done);
  log.post(race_line(result_));
}

}  // namespace rf::gui
