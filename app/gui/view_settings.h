// What the canvas shows and how: the view's one plain struct, changed by the View panel, keys,
// the command line and presets, read by the compositor.
#pragma once

#include <optional>
#include <string_view>

#include "filters/core/extension.h"
#include "filters/core/spec.h"

namespace rf::gui {

enum class ViewMode {
  Original,    // the input frame
  Result,      // the filtered frame
  Diff,        // |result - truth| as a heat map on a fixed, labelled scale
  Split,       // split-wipe: original left of the handle, result right of it
  SideBySide,  // original and result next to each other, sharing zoom and pan
  Tiles,       // 3x3 tiles: the extension the filter assumes beyond each edge, image outlined
  Profile,     // a row or column of input, result, truth and other extensions, plotted
  Impulse,     // impulse probe: the response to one bright pixel, on a log scale
  Response,    // the filter itself: gain against frequency, impulse response, poles, design error
  Race,        // every algorithm of the backend and the baselines timed on the current frame
};

enum class TruthMode {
  Fir,             // FIR Gaussian in double with the extension (padded reference for the others)
  Padded,          // sequential recursion in double over a padding where the response decays
  OtherExtension,  // the same filter, same backend, with another extension
};

enum class DiffScale { Log, Linear };

struct ViewSettings {
  ViewMode mode = ViewMode::Result;
  float split = 0.5f;  // split-wipe handle across the image width, 0..1
  DiffScale diff_scale = DiffScale::Log;
  float amplification = 1.0f;      // multiplies |difference| before the colour scale
  bool tiles_show_result = false;  // tiles of the input (what the filter sees) or of the result
  bool profile_vertical = false;   // profile along a column instead of a row
  int profile_line = -1;           // row (or column) index; -1: the middle
  int probe_x = -1, probe_y = -1;  // impulse position; -1: a pixel near the top-left corner
  float derivative_gain = 1.0f;    // contrast of a derivative's colour scale (derivative_range)
  bool show_ui = true;
};

struct DiffSettings {
  TruthMode truth = TruthMode::Fir;
  // The extension of the truth when the result uses Ignore (which extends nothing) and of the
  // "other extension" comparison.
  Extension truth_ext = Extension::Mirror;
  bool auto_band = true;  // band width = ceil(3 sigma)
  int band = 12;          // border band width in pixels
};

// How a derivative's result is shown: signed values on the diverging scale from -range (blue)
// to +range (red), a gradient magnitude on inferno from 0 to range; the luminance of RGB.
enum class SignedView { Off, Diverging, Magnitude };
struct DerivativeView {
  SignedView view = SignedView::Off;
  float range = 1.0f;
};
// The scale of `spec`'s derivative: range 0.5 / sigma^order (a unit step's first derivative
// peaks at 0.4 / sigma, its second at 0.24 / sigma^2), 0.5 scale-normalised, over `gain`.
DerivativeView derivative_view(const FilterSpec& spec, float gain);

// Names on the command line and in presets: "original", "result", "diff", "split", "side",
// "tiles", "profile", "impulse", "response", "race"; "fir", "padded", "extension".
const char* to_string(ViewMode);
const char* to_string(TruthMode);
std::optional<ViewMode> parse_view_mode(std::string_view);
std::optional<TruthMode> parse_truth_mode(std::string_view);

}  // namespace rf::gui
