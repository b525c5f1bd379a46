// The response view: what the filter is. Its gain against frequency on [0, pi], linear and in dB,
// beside the Gaussian's exp(-sigma^2 w^2 / 2); its impulse response beside the sampled Gaussian;
// its poles in the z-plane; and how far the design is from the Gaussian (docs/design-errors.md).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/gui/panels/panels.h"
#include "app/gui/panels/plot_util.h"
#include "filters/core/response.h"

namespace rf::gui {
namespace {

void frequency_axes(ImDrawList* dl, const PlotFrame& f, const std::vector<double>& yticks,
                    const char* yformat) {
  const double pi = std::acos(-1.0);
  plot::axes(dl, f, {0, pi / 4, pi / 2, 3 * pi / 4, pi}, {"0", "pi/4", "pi/2", "3pi/4", "pi"},
             yticks, yformat);
}

// What the design is, in one line under the spec.
std::string design_line(const ResponseData& d) {
  char buf[160];
  if (d.design_error) {
    std::snprintf(
        buf, sizeof buf,
        "against the sampled Gaussian: L2 %.2e, max %.2e relative (docs/design-errors.md)",
        d.design_error->l2_relative, d.design_error->max_relative);
    return buf;
  }
  switch (d.spec.kind) {
    case FilterKind::BSpline3:
    case FilterKind::BSpline5:
    case FilterKind::BSpline7:
      return "B-spline prefilter: the exact inverse of the sampled B-spline kernel (gain x kernel "
             "= 1)";
    case FilterKind::Exponential:
      std::snprintf(buf, sizeof buf, "exponential smoother: one real pole %.4g per pass",
                    d.spec.pole);
      return buf;
    case FilterKind::Sat:
      return "summed-area table: a running sum, causal only, its pole on the unit circle";
    default:
      return "";
  }
}

// A low-pass filter is low at pi, so its legend goes top right; a prefilter's top left.
bool high_at_pi(const ResponseData& d, const PlotFrame& f) {
  return !d.gain.empty() && d.gain.back() > 0.5 * f.ymax;
}

// With the formulas where the plot is wide enough for them, the names alone otherwise.
std::vector<plot::LegendEntry> gain_legend(const ResponseData& d, const PlotFrame& f) {
  const float room = f.x1 - f.x0 - 3.5f * ImGui::GetFontSize();
  const bool wide = ImGui::CalcTextSize("Gaussian exp(-sigma^2 w^2/2)").x <= room;
  std::vector<plot::LegendEntry> entries;
  entries.push_back({!wide           ? "filter"
                     : d.causal_only ? "filter |b0/A|"
                                     : "filter |b0/A|^2",
                     plot::kFilterColor});
  if (!d.ideal.empty())
    entries.push_back({wide ? "Gaussian exp(-sigma^2 w^2/2)" : "Gaussian", plot::kGaussianColor});
  if (!d.kernel.empty())
    entries.push_back(
        {wide ? "B-spline kernel it inverts" : "B-spline kernel", plot::kKernelColor});
  return entries;
}

void draw_poles(ImDrawList* dl, const ResponseLayout& l, const ResponseData& d) {
  const PlotFrame& f = l.poles;
  const bool wide = f.xmax > 2.0;
  if (wide)
    plot::axes(dl, f, {-2, -1, 0, 1, 2}, {"-2", "-1", "0", "1", "2"}, {-2, -1, 0, 1, 2}, "%.0f");
  else
    plot::axes(dl, f, {-1, 0, 1}, {"-1", "0", "1"}, {-1, 0, 1}, "%.0f");
  const ImVec2 centre(f.sx(0), f.sy(0));
  const float radius = f.sx(1) - f.sx(0);
  dl->AddCircle(centre, radius, IM_COL32(200, 200, 205, 255), 128, 1.5f);
  dl->PushClipRect(ImVec2(f.x0, f.y0), ImVec2(f.x1 + 1, f.y1 + 1), true);
  const float s = 0.35f * ImGui::GetFontSize();
  for (const std::complex<double>& p : d.poles) {
    const ImVec2 c(f.sx(p.real()), f.sy(p.imag()));
    dl->AddLine(ImVec2(c.x - s, c.y - s), ImVec2(c.x + s, c.y + s), plot::kFilterColor, 2.0f);
    dl->AddLine(ImVec2(c.x - s, c.y + s), ImVec2(c.x + s, c.y - s), plot::kFilterColor, 2.0f);
    // The anticausal pass runs the same recursion backwards: its poles are at 1/p.
    if (d.causal_only || std::abs(p) == 0.0) continue;
    const std::complex<double> q = 1.0 / std::conj(p);
    dl->AddCircle(ImVec2(f.sx(q.real()), f.sy(q.imag())), s, plot::kFilterColor, 12, 1.5f);
  }
  dl->PopClipRect();
  // The poles by value; a conjugate pair once.
  const float em = ImGui::GetFontSize();
  float y = l.pole_text_y;
  char buf[96];
  dl->AddText(ImVec2(l.pole_text_x, y), plot::kLabel, "causal poles p, radius |p|");
  y += 1.3f * em;
  for (const std::complex<double>& p : d.poles) {
    if (p.imag() < -1e-12) continue;
    if (std::abs(p.imag()) > 1e-12)
      std::snprintf(buf, sizeof buf, "%.5f +- %.5fi   %.5f", p.real(), p.imag(), std::abs(p));
    else
      std::snprintf(buf, sizeof buf, "%.5f   %.5f", p.real(), std::abs(p));
    dl->AddText(ImVec2(l.pole_text_x, y), plot::kText, buf);
    y += 1.2f * em;
  }
}

// The gain against frequency, linear: the filter, the Gaussian, the B-spline kernel, 1 marked.
void draw_linear_gain(ImDrawList* dl, const PlotFrame& f, const ResponseData& d) {
  frequency_axes(dl, f, plot::nice_ticks(f.ymin, f.ymax, 4), "%.3g");
  dl->AddLine(ImVec2(f.x0, f.sy(1.0)), ImVec2(f.x1, f.sy(1.0)), plot::kFrame);
  if (!d.kernel.empty()) plot::curve(dl, f, d.omega, d.kernel, plot::kKernelColor, 1.5f);
  if (!d.ideal.empty()) plot::curve(dl, f, d.omega, d.ideal, plot::kGaussianColor, 1.5f);
  plot::curve(dl, f, d.omega, d.gain, plot::kFilterColor, 2.0f);
  plot::title(dl, f, "gain against w (radians per sample)");
  plot::legend(dl, f, gain_legend(d, f), high_at_pi(d, f));
}

// The same in dB.
void draw_decibel_gain(ImDrawList* dl, const PlotFrame& f, const ResponseData& d) {
  frequency_axes(dl, f, plot::nice_ticks(f.ymin, f.ymax, 5), "%.0f dB");
  auto decibels = [](const std::vector<double>& v) {
    std::vector<double> out;
    for (double g : v) out.push_back(std::isfinite(g) ? to_decibels(g) : g);
    return out;
  };
  if (!d.kernel.empty()) plot::curve(dl, f, d.omega, decibels(d.kernel), plot::kKernelColor, 1.5f);
  if (!d.ideal.empty()) plot::curve(dl, f, d.omega, decibels(d.ideal), plot::kGaussianColor, 1.5f);
  plot::curve(dl, f, d.omega, decibels(d.gain), plot::kFilterColor, 2.0f);
  plot::title(dl, f, "gain in dB");
}

// The impulse response on [-half, half] beside the sampled Gaussian; its samples dotted when few.
void draw_impulse(ImDrawList* dl, const PlotFrame& f, const ResponseData& d) {
  const float em = ImGui::GetFontSize();
  std::vector<double> n(d.impulse.size());
  for (std::size_t i = 0; i < n.size(); ++i) n[i] = double(i) - d.half;
  std::vector<double> xticks = plot::nice_ticks(-d.half, d.half, 6);
  std::vector<std::string> xlabels;
  char buf[32];
  for (double t : xticks) {
    std::snprintf(buf, sizeof buf, "%.0f", t);
    xlabels.push_back(buf);
  }
  plot::axes(dl, f, xticks, xlabels, plot::nice_ticks(f.ymin, f.ymax, 4), "%.3g");
  if (!d.sampled.empty()) plot::curve(dl, f, n, d.sampled, plot::kGaussianColor, 1.5f);
  plot::curve(dl, f, n, d.impulse, plot::kFilterColor, 2.0f);
  if (d.impulse.size() <= 81)
    for (std::size_t i = 0; i < n.size(); ++i)
      dl->AddCircleFilled(ImVec2(f.sx(n[i]), f.sy(d.impulse[i])), 0.2f * em, plot::kFilterColor);
  plot::title(dl, f, d.causal_only ? "impulse response (causal only)" : "impulse response");
  std::vector<plot::LegendEntry> legend = {{"filter", plot::kFilterColor}};
  if (!d.sampled.empty()) legend.push_back({"sampled Gaussian", plot::kGaussianColor});
  plot::legend(dl, f, legend);
}

// Why there is nothing to draw (edge-aware, a refused parameter).
void draw_error(const ResponseData& d, float w) {
  const float em = ImGui::GetFontSize();
  ImGui::SetCursorPos(ImVec2(em, em));
  ImGui::PushTextWrapPos(w - em);
  ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1), "No frequency response for %s: %s",
                     describe(d.spec).c_str(), d.error.c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace

void response_view(const ResponseData& d, float x, float y, float w, float h) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(w, h));
  const ImGuiWindowFlags flags =
      ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
      ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoScrollWithMouse;
  ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(28, 28, 31, 255));
  const bool open = ImGui::Begin("##response", nullptr, flags);
  ImGui::PopStyleColor();
  if (open && !d.error.empty()) draw_error(d, w);
  if (!open || !d.error.empty()) {
    ImGui::End();
    return;
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float em = ImGui::GetFontSize();
  const ResponseLayout l = response_layout(d, x, y, w, h, em);
  draw_linear_gain(dl, l.linear, d);
  draw_decibel_gain(dl, l.decibel, d);
  draw_impulse(dl, l.impulse, d);
  draw_poles(dl, l, d);
  plot::title(dl, l.poles, d.causal_only ? "poles in the z-plane" : "poles: x causal, o anticausal",
              l.decibel.x1);
  std::string header = describe(d.spec);
  if (d.spec.sigma_y) {
    // The plots are of one design: say which axis, and what the other one runs.
    char buf[96];
    std::snprintf(buf, sizeof buf, " - plotted: along x, sigma %g (along y: sigma %g)",
                  d.spec.sigma, *d.spec.sigma_y);
    header += buf;
  }
  dl->AddText(ImVec2(l.header_x, l.header_y), plot::kText, header.c_str());
  dl->AddText(ImVec2(l.header_x, l.header_y + 1.2f * em), plot::kLabel, design_line(d).c_str());
  ImGui::End();
}

}  // namespace rf::gui
