// rfstudio run offscreen by the classroom tests: its exit status, its log, its screenshot.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "app/gui/image_codec.h"

namespace rf::gui::test {

struct StudioRun {
  int status = -1;
  std::string log;
  Rgba8Image shot;
};

// `--offscreen --frames 2 --ui-scale 1` at width x height; the screenshot lands in the build's
// gui-shots/NAME.png, the log beside it.
inline StudioRun run_offscreen(const std::string& name, const std::string& args, int width,
                               int height) {
  const std::filesystem::path dir = std::filesystem::path(RF_BINARY_DIR) / "gui-shots";
  std::filesystem::create_directories(dir);
  const std::string png = (dir / (name + ".png")).string(), log = png + ".log";
  std::filesystem::remove(png);
  const std::string cmd = std::string(RFSTUDIO_PATH) + " --offscreen --frames 2 --ui-scale 1" +
                          " --width " + std::to_string(width) + " --height " +
                          std::to_string(height) + " --screenshot " + png + " " + args + " > " +
                          log + " 2>&1";
  const int raw = std::system(cmd.c_str());
  StudioRun r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream in(log);
  std::ostringstream text;
  text << in.rdbuf();
  r.log = text.str();
  if (std::filesystem::exists(png)) r.shot = read_png(png);
  return r;
}

// The text height rfstudio uses at UI scale 1 (ui_style.cpp): 15 px with a TrueType font, ImGui's
// 13 px built-in font otherwise.
inline float font_size_at_scale_1() {
  for (const char* f : {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"})
    if (std::filesystem::exists(f)) return 15.0f;
  return 13.0f;
}

struct Rgb8 {
  int r, g, b;
};

// True when a pixel within `radius` of (x, y) has colour `c`, each channel within `tolerance`.
inline bool colour_near(const Rgba8Image& img, float x, float y, Rgb8 c, int radius = 3,
                        int tolerance = 40) {
  const int cx = int(x), cy = int(y);
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) {
      const int px = cx + dx, py = cy + dy;
      if (px < 0 || py < 0 || px >= img.width || py >= img.height) continue;
      const std::uint8_t* p = &img.pixels[(std::size_t(py) * img.width + px) * 4];
      if (std::abs(p[0] - c.r) <= tolerance && std::abs(p[1] - c.g) <= tolerance &&
          std::abs(p[2] - c.b) <= tolerance)
        return true;
    }
  return false;
}

// How many pixels in the box have colour `c`.
inline int count_colour(const Rgba8Image& img, int x0, int y0, int x1, int y1, Rgb8 c,
                        int tolerance = 30) {
  int n = 0;
  for (int y = std::max(0, y0); y < std::min(img.height, y1); ++y)
    for (int x = std::max(0, x0); x < std::min(img.width, x1); ++x) {
      const std::uint8_t* p = &img.pixels[(std::size_t(y) * img.width + x) * 4];
      n += std::abs(p[0] - c.r) <= tolerance && std::abs(p[1] - c.g) <= tolerance &&
           std::abs(p[2] - c.b) <= tolerance;
    }
  return n;
}

}  // namespace rf::gui::test
