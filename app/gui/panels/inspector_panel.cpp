// Pixel inspector: the exact values under the cursor.
#include <imgui.h>

#include <cmath>

#include "app/gui/canvas.h"
#include "app/gui/ground_truth.h"
#include "app/gui/panels/panels.h"
#include "app/gui/processing.h"
#include "app/gui/view_probes.h"

namespace rf::gui {

void inspector_panel(const Canvas& canvas, Processor& processor, const GroundTruth& truth,
                     ViewMode mode, const ImpulseData& impulse) {
  if (!ImGui::CollapsingHeader("Pixel inspector", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const int x = canvas.hover_x(), y = canvas.hover_y();
  if (x < 0 || y < 0) {
    ImGui::TextDisabled("hover the image");
    return;
  }
  ImGui::Text("pixel (%d, %d)", x, y);
  auto show = [&](const char* name, const Image& img) {
    if (img.empty() || x >= img.width || y >= img.height) return;
    ImGui::Text("%-8s %.6f %.6f %.6f", name, img.at(x, y, 0), img.at(x, y, 1), img.at(x, y, 2));
  };
  show("input", processor.input());
  show("result", processor.result());
  if (truth.current()) {
    const Image& t = truth.result().truth;
    show("truth", t);
    const Image& r = processor.result();
    float d = 0;
    for (int c = 0; c < 3; ++c) d = std::fmax(d, std::fabs(r.at(x, y, c) - t.at(x, y, c)));
    ImGui::Text("%-8s %.3e", "|diff|", d);
  }
  if (mode == ViewMode::Impulse && !impulse.response.empty())
    ImGui::Text("%-8s %.3e", "impulse", impulse.response.at(x, y));
}

}  // namespace rf::gui
