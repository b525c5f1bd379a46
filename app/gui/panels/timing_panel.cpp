// Timing: which backend runs and why, per-stage times, a rolling plot, throughput, latency, fps
// and GiP/s.
#include <imgui.h>

#include <algorithm>
#include <deque>
#include <vector>

#include "app/gui/frame_stats.h"
#include "app/gui/ground_truth.h"
#include "app/gui/panels/panels.h"
#include "app/gui/processing.h"

namespace rf::gui {
namespace {

double median_of(const std::deque<float>& d) {
  if (d.empty()) return 0.0;
  std::vector<float> v(d.end() - std::ptrdiff_t(std::min<std::size_t>(d.size(), 60)), d.end());
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
  return v[v.size() / 2];
}

double mean_of(const std::deque<float>& d) {
  const std::size_t n = std::min<std::size_t>(d.size(), 60);
  if (n == 0) return 0.0;
  double sum = 0.0;
  for (std::size_t i = d.size() - n; i < d.size(); ++i) sum += d[i];
  return sum / double(n);
}

}  // namespace

void timing_panel(Processor& processor, const FrameStats& stats, const GroundTruth& truth) {
  if (!ImGui::CollapsingHeader("Timing", ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGui::TextWrapped("%s", processor.backend_line().c_str());
  ImGui::TextWrapped("%s", processor.path_line().c_str());
  const std::string method = processor.method_line();
  if (!method.empty()) ImGui::TextWrapped("computed with: %s", method.c_str());
  const FrameTiming& t = processor.timing();
  const char* clock = t.gpu_events ? "CUDA events" : "host clock";
  if (ImGui::BeginTable("stages", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("stage", ImGuiTableColumnFlags_WidthStretch, 1.8f);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    auto row = [](const char* name, double ms) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name);
      ImGui::TableNextColumn();
      ImGui::Text("%8.3f ms", ms);
    };
    row(t.gpu_events ? "upload" : "8-bit to float", t.upload_ms);
    if (t.pipelined) row("convert (GPU)", t.convert_ms);
    row("filter", t.filter_ms);
    for (const StageTime& s : t.stages) {
      // On the interop path the engine reads and writes GPU memory: its own upload and download
      // stages are empty, and ours are the rows above and below.
      if (t.interop && (s.stage == "upload" || s.stage == "download")) continue;
      row(("  " + s.stage).c_str(), s.ms);
    }
    row(t.pipelined    ? "present to view"
        : t.gpu_events ? "interop"
                       : "texture upload",
        t.interop_ms);
    if (t.readback_ms > 0) row("readback (overlapped)", t.readback_ms);
    row("truth (background)", truth.result().ms);
    ImGui::EndTable();
  }
  if (processor.running_backend() == Backend::Cuda) {
    ImGui::Checkbox("GPU stage times", &processor.stage_timing);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "each stage timed with its own events (the frame then runs without its "
          "CUDA graph)");
  }
  const double px = double(processor.width()) * processor.height();
  if (t.filter_ms > 0)
    ImGui::TextWrapped("%.3f GiP/s = %.1f MP/s, filter only (%s)",
                       px / (t.filter_ms * 1e-3) / double(1 << 30),
                       px / (t.filter_ms * 1e-3) * 1e-6, clock);
  if (processor.first_run_of_plan())
    hint(processor.running_backend() == Backend::Cuda
             ? "the first run of this filter: CUDA loads its kernels and captures its graph, so "
               "these are not its steady times; 'filter every frame' shows them"
             : "the first run of this filter (fresh buffers): 'filter every frame' shows its "
               "steady times");

  std::vector<float> hist(stats.path_ms().begin(), stats.path_ms().end());
  if (!hist.empty()) {
    const float peak = *std::max_element(hist.begin(), hist.end());
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "path %.2f ms (max %.2f)", hist.back(), peak);
    ImGui::PlotLines("##path", hist.data(), int(hist.size()), 0, overlay, 0.0f, peak * 1.15f,
                     ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 4));
  }
  const double fps = stats.throughput_fps();
  if (fps > 0) {
    ImGui::TextWrapped("%.1f new frames/s (wall clock)", fps);
    ImGui::TextWrapped("%.2f ms from arrival to display", median_of(stats.latency_ms()));
  }
  // The mean: frames queued together finish in bursts, and the mean interval is the GPU time
  // per frame the path sustains.
  if (t.pipelined && !stats.interval_ms().empty())
    ImGui::TextWrapped("%.3f ms GPU frame to frame (mean), %d in flight",
                       mean_of(stats.interval_ms()), processor.in_flight());
  const double ms = stats.ui_frame_ms();
  ImGui::TextWrapped("UI %.1f fps (%.2f ms per frame, wall clock)", 1000.0 / std::max(ms, 1e-3),
                     ms);
}

}  // namespace rf::gui
