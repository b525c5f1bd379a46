#include "app/gui/studio_state.h"

namespace rf::gui {

StudioState initial_state(const StudioOptions& options) {
  StudioState s;
  s.spec = options.spec;
  s.view = options.view;
  s.diff = options.diff;
  s.filter_every_frame = options.live;
  s.truth_enabled = !options.no_truth;
  s.record_settings = options.record;
  s.record_settings.path.clear();
  s.output_device = options.output_device;
  return s;
}

}  // namespace rf::gui
