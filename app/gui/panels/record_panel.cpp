// Record and camera out: the filtered stream to a video file (Ctrl+R) or to a V4L2 output device
// that other programs open as a camera.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <cstdio>

#include "app/gui/panels/panels.h"
#include "app/gui/processing.h"
#include "app/gui/stream_out.h"

namespace rf::gui {

void record_panel(RecordSettings& settings, std::string& output_device,
                  const std::string& export_dir, StreamOut& out, const Processor& processor) {
  if (!ImGui::CollapsingHeader("Record and camera out", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const bool recording = out.recording();
  if (recording) {
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.75f, 0.15f, 0.15f, 1.0f));
    if (ImGui::Button("Stop recording (Ctrl+R)")) out.toggle_recording(settings, export_dir);
    ImGui::PopStyleColor();
  } else if (ImGui::Button("Record (Ctrl+R)")) {
    out.toggle_recording(settings, export_dir);
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(recording);
  int codec = settings.codec == RecordCodec::Ffv1 ? 1 : 0;
  const char* codecs[] = {"H.264 .mp4", "FFV1 .mkv (lossless)"};
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
  if (ImGui::Combo("##codec", &codec, codecs, IM_ARRAYSIZE(codecs)))
    settings.codec = codec == 1 ? RecordCodec::Ffv1 : RecordCodec::H264;
  ImGui::EndDisabled();
  if (const Recorder* r = out.video_out().recorder()) {
    const int seconds = int(r->elapsed_s());
    ImGui::Text("%s %02d:%02d, %llu frames", recording ? "recording" : "recorded", seconds / 60,
                seconds % 60, static_cast<unsigned long long>(r->frames_written()));
    hint(r->current_path());
  } else {
    hint("the filtered frames at source resolution, into " + export_dir + "/");
  }

  ImGui::Spacing();
  const app::V4l2Output* device = out.video_out().device();
  const bool open = device && !device->stopped();
  ImGui::BeginDisabled(open);
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
  ImGui::InputTextWithHint("##device", "/dev/video10", &output_device);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (open) {
    if (ImGui::Button("Stop camera out")) out.close_device();
  } else if (ImGui::Button("Camera out")) {
    out.open_device(output_device, processor);
  }
  const bool failed = device && device->stopped();
  ImGui::PushStyleColor(ImGuiCol_Text, failed ? ImVec4(1.0f, 0.45f, 0.35f, 1.0f)
                                              : ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  if (failed)
    ImGui::TextWrapped("%s", device->status().c_str());
  else if (device)
    ImGui::TextWrapped("%s, %llu frames", device->description().c_str(),
                       static_cast<unsigned long long>(device->frames_written()));
  else
    ImGui::TextWrapped("a v4l2loopback device, which other programs open as a camera");
  ImGui::PopStyleColor();
}

}  // namespace rf::gui
