// The UI panels, one per file. Each reads and changes the Studio's plain state only; filtering
// happens once per frame in Studio::frame().
#pragma once

#include <string>

namespace rf::gui {

class Studio;

void source_panel(Studio& studio);
void filter_panel(Studio& studio);
void view_panel(Studio& studio);
void export_panel(Studio& studio);
void record_panel(Studio& studio);
void timing_panel(Studio& studio);
void diff_panel(Studio& studio);
void inspector_panel(Studio& studio);
// The line profile plot, in its own window over the lower part of the canvas.
void profile_window(Studio& studio, float x, float y, float w, float h);
// The response view (what the filter is) and the algorithm race, over the canvas.
void response_view(Studio& studio, float x, float y, float w, float h);
void race_view(Studio& studio, float x, float y, float w, float h);
// The lesson card of the loaded preset, with Previous / Next through the lessons.
void lesson_panel(Studio& studio);
// Bottom bar: backend, path, source, latest message.
void status_bar(Studio& studio, float x, float y, float w, float h);
// The Ctrl+O dialog.
void open_dialog(Studio& studio);

// A greyed note under a control, wrapped at the panel's edge.
void hint(const std::string& text);

}  // namespace rf::gui
