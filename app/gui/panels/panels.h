// The UI panels, one per file. Each receives the state it edits and the services it calls, and
// nothing else; filtering happens once per frame in Studio::frame().
#pragma once

#include <string>

#include "app/gui/view_settings.h"
#include "filters/core/spec.h"

namespace rf::gui {

class AlgorithmRace;
class Canvas;
class Classroom;
class Exporter;
class FrameStats;
class GroundTruth;
class MessageLog;
class Platform;
class Processor;
class SourceSlot;
class StreamOut;
struct ImpulseData;
struct ProfileData;
struct RecordSettings;
struct ResponseData;

// Left: what comes in, what the filter is, what the canvas shows, where the stream goes.
void source_panel(SourceSlot& source, MessageLog& log, bool& open_dialog_requested,
                  const Processor& processor);
void filter_panel(FilterSpec& spec, bool& filter_every_frame, const Processor& processor);
void view_panel(ViewSettings& view, Canvas& canvas, const ImpulseData& impulse, AlgorithmRace& race,
                const FilterSpec& spec, Processor& processor);
void record_panel(RecordSettings& settings, std::string& output_device,
                  const std::string& export_dir, StreamOut& out, const Processor& processor);
void export_panel(std::string& export_dir, Exporter& exporter, Classroom& classroom,
                  MessageLog& log);

// Right: the lesson card of the loaded preset (Previous / Next through the lessons), timing, the
// difference from ground truth, the pixel under the mouse.
void lesson_panel(Classroom& classroom);
void timing_panel(Processor& processor, const FrameStats& stats, const GroundTruth& truth);
void diff_panel(DiffSettings& diff, bool& truth_enabled, const FilterSpec& spec,
                GroundTruth& truth);
void inspector_panel(const Canvas& canvas, Processor& processor, const GroundTruth& truth,
                     ViewMode mode, const ImpulseData& impulse);

// The line profile plot, in its own window over the lower part of the canvas.
void profile_window(const ProfileData& profile, Extension current, bool derivative, float x,
                    float y, float w, float h);
// The response view (what the filter is) and the algorithm race, over the canvas.
void response_view(const ResponseData& response, float x, float y, float w, float h);
void race_view(AlgorithmRace& race, const FilterSpec& spec, Processor& processor, float x, float y,
               float w, float h);
// Bottom bar: backend, path, platform, source status, latest message.
void status_bar(const Processor& processor, const Platform& platform, const SourceSlot& source,
                MessageLog& log, float x, float y, float w, float h);
// The Ctrl+O dialog.
void open_dialog(bool& requested, SourceSlot& source, MessageLog& log);

// A greyed note under a control, wrapped at the panel's edge.
void hint(const std::string& text);

}  // namespace rf::gui
