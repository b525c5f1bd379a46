// Pixel inspector: the exact values under the cursor.
#include <imgui.h>

#include <cmath>

#include "app/gui/panels/panels.h"
#include "app/gui/studio.h"

namespace rf::gui {

void inspector_panel(Studio& st) {
  if (!ImGui::CollapsingHeader("Pixel inspector", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const int x = st.hover_x, y = st.hover_y;
  if (x < 0 || y < 0) {
    ImGui::TextDisabled("hover the image");
    return;
  }
  ImGui::Text("pixel (%d, %d)", x, y);
  auto show = [&](const char* name, const Image& img) {
    if (img.empty() || x >= img.width || y >= img.height) return;
    ImGui::Text("%-8s %.6f %.6f %.6f", name, img.at(x, y, 0), img.at(x, y, 1), img.at(x, y, 2));
  };
  show("input", st.processor.input());
  show("result", st.processor.result());
  if (st.truth_current) {
    show("truth", st.truth.truth);
    const Image& r = st.processor.result();
    const Image& t = st.truth.truth;
    float d = 0;
    for (int c = 0; c < 3; ++c) d = std::fmax(d, std::fabs(r.at(x, y, c) - t.at(x, y, c)));
    ImGui::Text("%-8s %.3e", "|diff|", d);
  }
  if (st.view.mode == ViewMode::Impulse && !st.impulse.response.empty())
    ImGui::Text("%-8s %.3e", "impulse", st.impulse.response.at(x, y));
}

}  // namespace rf::gui
