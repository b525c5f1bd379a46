// The algorithm race as the studio runs it: on request (a button, or --race once the first frame
// is in), on the current frame with the current spec and backend, off the UI thread (race.h);
// the finished race is kept for the race view and its timings posted as one line.
#pragma once

#include <cstdint>

#include "app/gui/messages.h"
#include "app/gui/processing.h"
#include "app/gui/race.h"
#include "filters/core/spec.h"

namespace rf::gui {

class AlgorithmRace {
 public:
  // Races the shown frame with `spec` on the running backend (nothing without a frame).
  void request(const FilterSpec& spec, Processor& processor);
  // `run_once` (--race): requests one race once the first frame is in. `wait`: waits for the
  // running race first (the last frame of a --frames run captures it). Takes a finished race.
  void update(const FilterSpec& spec, Processor& processor, bool run_once, bool wait,
              MessageLog& log);

  // The last race finished (no entries before the first).
  const RaceResult& result() const { return result_; }
  // True when result() was run on the current frame with the current spec and backend.
  bool current(const FilterSpec& spec, const Processor& processor) const;

  bool busy() const { return worker_.busy(); }
  float progress() const { return worker_.progress(); }
  void cancel() { worker_.cancel(); }

 private:
  RaceWorker worker_;
  RaceResult result_;
  bool requested_once_ = false;  // --race, once
};

}  // namespace rf::gui
