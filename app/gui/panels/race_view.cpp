// The algorithm race: every algorithm of the running backend and the library's baselines, timed
// on the current frame, as bars in ms and in GiP/s, with the copy floor as a line. Runs on a
// worker thread when asked; the UI keeps drawing, with a progress bar.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/gui/algorithm_race.h"
#include "app/gui/panels/panels.h"
#include "app/gui/panels/plot_util.h"
#include "app/gui/processing.h"

namespace rf::gui {
namespace {

constexpr ImU32 kAlgorithmColor = IM_COL32(86, 156, 214, 255);
constexpr ImU32 kBaselineColor = IM_COL32(230, 150, 60, 255);
constexpr ImU32 kFloorColor = IM_COL32(110, 220, 110, 255);

// One bar chart: a row per entry, bar length `value(entry)`, the floor as a dashed line.
template <class Value>
void bar_chart(ImDrawList* dl, const PlotFrame& f, const RaceResult& race, Value value,
               const char* format, const char* floor_text) {
  const float em = ImGui::GetFontSize();
  std::vector<double> ticks = plot::nice_ticks(f.xmin, f.xmax, 4);
  std::vector<std::string> labels;
  char buf[96];
  for (double t : ticks) {
    std::snprintf(buf, sizeof buf, "%g", t);
    labels.push_back(buf);
  }
  plot::axes(dl, f, ticks, labels, {}, "%g");
  // A row per entry, and a strip at the bottom for the floor's label.
  const float strip = 1.5f * em;
  const float row = (f.y1 - f.y0 - strip) / float(std::max<std::size_t>(1, race.entries.size()));
  for (std::size_t i = 0; i < race.entries.size(); ++i) {
    const RaceEntry& e = race.entries[i];
    const float top = f.y0 + row * float(i) + 0.18f * row, bottom = top + 0.64f * row;
    const float text_y = 0.5f * (top + bottom) - 0.5f * em;
    const float name_w = ImGui::CalcTextSize(e.name.c_str()).x;
    dl->AddText(ImVec2(f.x0 - name_w - 0.5f * em, text_y), e.current ? plot::kText : plot::kLabel,
                e.name.c_str());
    if (!e.skipped.empty() || !e.error.empty()) {
      const std::string why = e.skipped.empty() ? "failed: " + e.error : e.skipped;
      dl->PushClipRect(ImVec2(f.x0, f.y0), ImVec2(f.x1, f.y1), true);
      dl->AddText(ImVec2(f.x0 + 0.5f * em, text_y),
                  e.error.empty() ? plot::kLabel : IM_COL32(255, 115, 90, 255), why.c_str());
      dl->PopClipRect();
      continue;
    }
    const double v = value(e);
    const float x1 = std::min(f.x1, f.sx(v));
    dl->AddRectFilled(ImVec2(f.x0 + 1, top), ImVec2(std::max(x1, f.x0 + 2), bottom),
                      e.baseline ? kBaselineColor : kAlgorithmColor);
    if (e.current)
      dl->AddRect(ImVec2(f.x0 + 1, top), ImVec2(std::max(x1, f.x0 + 2), bottom), plot::kText, 0, 0,
                  1.5f);
    std::snprintf(buf, sizeof buf, format, v);
    const float tw = ImGui::CalcTextSize(buf).x;
    // The value after the bar, or inside its end when the bar reaches the edge.
    const float tx = x1 + 0.4f * em + tw < f.x1 ? x1 + 0.4f * em : x1 - tw - 0.4f * em;
    dl->AddText(ImVec2(tx, text_y), plot::kText, buf);
  }
  if (race.floor.runs > 0) {
    const double v = value(race.floor);
    const float x = std::round(f.sx(v));
    for (float y = f.y0; y < f.y1; y += 0.6f * em)
      dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(f.y1, y + 0.35f * em)), kFloorColor, 2.0f);
    std::snprintf(buf, sizeof buf, floor_text, v);
    const float tw = ImGui::CalcTextSize(buf).x;
    const float tx = x + 0.3f * em + tw < f.x1 ? x + 0.3f * em : x - tw - 0.3f * em;
    dl->AddText(ImVec2(tx, f.y1 - strip + 0.2f * em), kFloorColor, buf);
  }
}

// Run / Run it again, and while racing its progress and Cancel.
void race_controls(AlgorithmRace& race, const FilterSpec& spec, Processor& processor, float w) {
  const float em = ImGui::GetFontSize();
  const bool busy = race.busy();
  ImGui::BeginDisabled(busy || !processor.has_frame());
  if (ImGui::Button(race.result().entries.empty() ? "Run the race" : "Run it again"))
    race.request(spec, processor);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (busy) {
    ImGui::ProgressBar(race.progress(), ImVec2(std::min(w * 0.4f, 24 * em), 0), "racing...");
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) race.cancel();
  } else {
    ImGui::TextDisabled("each entry: one warm-up run, then the median of timed runs");
  }
}

// The two charts side by side below the text: ms per frame and GiP/s, each with room for the
// entries' names on its left. Returns where the charts end.
float chart_frames(const RaceResult& race, float x, float y, float w, float h, PlotFrame* ms,
                   PlotFrame* rate) {
  const float em = ImGui::GetFontSize();
  const ImVec2 cursor = ImGui::GetCursorScreenPos();
  const float names_w = 5.5f * em;
  const float legend_h = 1.25f * em * float(race.entries.size() + 1);
  const float top = cursor.y + 2.0f * em;
  const float rows_h = 2.4f * em * float(race.entries.size()) + 1.5f * em;
  const float bottom = std::max(top + 4 * em, std::min(top + rows_h, y + h - legend_h - 2.2f * em));
  const float chart_w = std::floor((w - 3 * em - 2 * names_w) / 2);
  ms->x0 = std::floor(x + names_w + em);
  ms->x1 = ms->x0 + chart_w;
  rate->x0 = ms->x1 + names_w + em;
  rate->x1 = rate->x0 + chart_w;
  ms->y0 = rate->y0 = std::floor(top);
  ms->y1 = rate->y1 = std::floor(bottom);
  double max_ms = race.floor.ms, max_rate = race.floor.gips;
  for (const RaceEntry& e : race.entries)
    if (e.runs > 0) {
      max_ms = std::max(max_ms, e.ms);
      max_rate = std::max(max_rate, e.gips);
    }
  ms->xmin = rate->xmin = 0;
  ms->xmax = max_ms > 0 ? max_ms * 1.15 : 1;
  rate->xmax = max_rate > 0 ? max_rate * 1.15 : 1;
  ms->ymin = rate->ymin = 0;
  ms->ymax = rate->ymax = 1;
  return bottom;
}

// Below the charts: each entry's colour, label and runs, then the copy floor's line.
void entry_legend(ImDrawList* dl, const RaceResult& race, float x, float y) {
  const float em = ImGui::GetFontSize();
  char buf[256];
  for (const RaceEntry& e : race.entries) {
    if (e.runs > 0)
      std::snprintf(buf, sizeof buf, "%s: %d runs", e.label.c_str(), e.runs);
    else
      std::snprintf(buf, sizeof buf, "%s (%s)", e.label.c_str(),
                    e.skipped.empty() ? "failed" : "not run here");
    dl->AddRectFilled(ImVec2(x + em, y + 0.25f * em), ImVec2(x + 1.6f * em, y + 0.85f * em),
                      e.baseline ? kBaselineColor : kAlgorithmColor);
    dl->AddText(ImVec2(x + 2.0f * em, y), plot::kLabel, buf);
    y += 1.25f * em;
  }
  std::snprintf(buf, sizeof buf, "%s: %d runs", race.floor.label.c_str(), race.floor.runs);
  dl->AddLine(ImVec2(x + em, y + 0.55f * em), ImVec2(x + 1.6f * em, y + 0.55f * em), kFloorColor,
              2.0f);
  dl->AddText(ImVec2(x + 2.0f * em, y), plot::kLabel, buf);
}

// What ran, on what, how it was timed, and whether the race is of what is on screen now.
void race_header(const RaceResult& race, bool current) {
  ImGui::Text("%s on %dx%d RGBA float, %s", describe(race.spec).c_str(), race.width, race.height,
              race.device.c_str());
  hint(race.clock +
       " around the filter only, no upload or readback; GiP/s = 2^30 pixels/s; the green line: a "
       "copy of the frame, which no filter can beat");
  if (!current)
    ImGui::TextColored(ImVec4(1.0f, 0.82f, 0.35f, 1.0f),
                       "the frame, the filter or the backend changed since this race");
}

}  // namespace

void race_view(AlgorithmRace& race, const FilterSpec& spec, Processor& processor, float x, float y,
               float w, float h) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(w, h));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(28, 28, 31, 255));
  const bool open = ImGui::Begin("##race", nullptr, flags);
  ImGui::PopStyleColor();
  if (!open) {
    ImGui::End();
    return;
  }
  race_controls(race, spec, processor, w);
  const RaceResult& result = race.result();
  if (result.entries.empty()) {
    ImGui::TextWrapped(
        "The race times every algorithm the running backend offers for this filter, and the "
        "library's baselines, on the current frame, beside the time a plain copy of the frame "
        "takes.");
    ImGui::End();
    return;
  }
  race_header(result, race.current(spec, processor));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  PlotFrame ms, rate;
  const float bottom = chart_frames(result, x, y, w, h, &ms, &rate);
  plot::title(dl, ms, "ms per frame (shorter is faster)");
  plot::title(dl, rate, "GiP/s (longer is faster)");
  bar_chart(
      dl, ms, result, [](const RaceEntry& e) { return e.ms; }, "%.3g ms", "copy %.3g ms");
  bar_chart(
      dl, rate, result, [](const RaceEntry& e) { return e.gips; }, "%.3g", "copy %.3g GiP/s");
  entry_legend(dl, result, x, bottom + 1.9f * ImGui::GetFontSize());
  ImGui::End();
}

}  // namespace rf::gui
