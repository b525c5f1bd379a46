// What the studio draws over the canvas with Dear ImGui: the tiles' outline and extension, the
// split handle, the side-by-side labels, the profile line, the impulse probe, and the heat maps'
// colour scales on their fixed, labelled scales.
#pragma once

#include "app/gui/canvas.h"
#include "app/gui/ground_truth.h"
#include "app/gui/view_probes.h"
#include "app/gui/view_settings.h"
#include "filters/core/extension.h"

namespace rf::gui {

// The title of the view's colour scale; null for a view without one (only the heat maps, diff
// and impulse, have one).
const char* legend_title(ViewMode mode);
// The strip right of the canvas that keeps the colour scale off the data; 0 without a scale.
float legend_strip_width(ViewMode mode);

// The marks on each image pane, then the colour scale (or the truth's progress) beside the canvas.
// `width` x `height`: the image.
void draw_overlays(const Canvas& canvas, const ViewSettings& view, Extension ext, int width,
                   int height, const ViewProbes& probes, const GroundTruth& truth,
                   bool truth_enabled);

}  // namespace rf::gui
