// What the profile, impulse and response views compute from the filter and the frame: a line
// across the image under every extension, the response to one bright pixel, the filter's own
// response. Each is computed for its view only, and again only when what it depends on changes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/gui/gl_util.h"
#include "app/gui/ground_truth.h"
#include "app/gui/processing.h"
#include "app/gui/response_data.h"
#include "app/gui/view_settings.h"
#include "filters/core/image.h"
#include "filters/core/spec.h"

namespace rf::gui {

// A line across the image: input, result, truth and the result under every extension.
struct ProfileData {
  std::uint64_t key = 0;
  bool vertical = false;
  int line = 0;
  std::vector<float> input, result, truth;
  std::vector<std::vector<float>> by_extension;  // indexed by int(Extension)
  std::string error;
  // The extensions whose curve is still to come: one is filtered per UI frame (each filters the
  // whole image on the CPU), the spec's own first, so that a change of the spec does not hold
  // the UI for all of them at once.
  std::vector<Extension> pending;
};

// The response to one bright pixel at (x, y), for the log-scale impulse view.
struct ImpulseData {
  std::uint64_t key = 0;
  int x = 0, y = 0;
  Image response;  // 1 channel
  Texture texture;
  double min_nonzero = 0.0, max = 0.0;
  std::string error;
};

class ViewProbes {
 public:
  // Brings the current view's data up to date with the spec, the settings and the shown frame.
  void update(const FilterSpec& spec, const ViewSettings& view, Processor& processor,
              const GroundTruth& truth);

  const ProfileData& profile() const { return profile_; }
  const ImpulseData& impulse() const { return impulse_; }
  // Of the spec, while the response view shows.
  const ResponseData& response() const { return response_; }

 private:
  void update_profile(const FilterSpec& spec, const ViewSettings& view, Processor& processor,
                      const GroundTruth& truth);
  void update_impulse(const FilterSpec& spec, const ViewSettings& view, int width, int height);
  void update_response(const FilterSpec& spec);

  ProfileData profile_;
  ImpulseData impulse_;
  ResponseData response_;
  bool response_valid_ = false;
};

}  // namespace rf::gui
