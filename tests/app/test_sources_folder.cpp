// Still images and image folders: conversion to RGBA frames, natural order, skipping unreadable
// files, looping, pausing and stepping.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "app/io/image_io.h"
#include "app/io/volume.h"
#include "app/sources/source.h"
#include "filters/core/errors.h"
#include "sources_test_util.h"
#include "tests/random_data.h"

using namespace rf;
using namespace rf::app;
using rf::app::test::seconds_since;
using rf::app::test::TempDir;
using rf::app::test::wait_for_frame;

namespace {

// A w x h RGB image whose red channel is `tag` / 255 everywhere, so the frame tells which file
// it came from; green and blue are seeded noise.
Image tagged_image(int w, int h, int tag) {
  Image img = rf::test::random_image_8bit(w, h, 3, std::uint64_t(tag));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img.at(x, y, 0) = tag / 255.0f;
  return img;
}

int tag_of(const Frame& f) {
  return f.bytes.empty() ? -1 : f.bytes[0];
}

void write_garbage(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  out << "this is not a PNG file at all";
}

// Steps a paused source and returns the tag of the frame that arrives (or -1 when none does).
int step_and_read(Source& s, Frame& f, double timeout_s = rf::app::test::kHangGuardSeconds) {
  s.step();
  return wait_for_frame(s, f, timeout_s) ? tag_of(f) : -1;
}

}  // namespace

TEST_CASE("open_image: 8-bit images become RGBA8, gray replicated, alpha 1") {
  TempDir dir;
  REQUIRE(!dir.path().empty());
  const Image gray = rf::test::random_image_8bit(13, 7, 1, 11);
  io::write_image(dir.file("gray.png"), gray);

  auto source = open_image(dir.file("gray.png"));
  CHECK_FALSE(source->animated());
  CHECK(source->description().find("gray.png 13x7") != std::string::npos);
  Frame f;
  REQUIRE(source->poll(f));
  CHECK(f.format == PixelFormat::RGBA8);
  REQUIRE(f.width == 13);
  REQUIRE(f.height == 7);
  REQUIRE(f.bytes.size() == 13 * 7 * 4);
  int worst = 0;
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 13; ++x) {
      const std::uint8_t* p = &f.bytes[(y * 13 + x) * 4];
      const int expected = int(std::lround(gray.at(x, y) * 255.0f));
      for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(p[c] - expected));
      CHECK(p[3] == 255);
    }
  CHECK(worst == 0);
  CHECK_FALSE(source->poll(f));
}

TEST_CASE("open_image: PFM stays float (RGBA32F) with values above 1 kept") {
  TempDir dir;
  const Image hdr = rf::test::random_image(9, 5, 3, 5, 0.0f, 40.0f);
  io::write_image(dir.file("bright.pfm"), hdr);
  Frame f;
  REQUIRE(open_image(dir.file("bright.pfm"))->poll(f));
  CHECK(f.format == PixelFormat::RGBA32F);
  REQUIRE(f.bytes.size() == 9 * 5 * 16);
  const float* px = reinterpret_cast<const float*>(f.bytes.data());
  float worst = 0.0f;
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 9; ++x) {
      for (int c = 0; c < 3; ++c)
        worst = std::max(worst, std::abs(px[(y * 9 + x) * 4 + c] - hdr.at(x, y, c)));
      CHECK(px[(y * 9 + x) * 4 + 3] == 1.0f);
    }
  CHECK(worst <= 1e-6f);
}

TEST_CASE("open_image: Radiance HDR stays float, within RGBE's 8-bit mantissa") {
  TempDir dir;
  const Image hdr = rf::test::random_image(11, 6, 3, 8, 0.05f, 60.0f);
  io::write_image(dir.file("sky.hdr"), hdr);
  auto source = open_image(dir.file("sky.hdr"));
  CHECK(source->description() == "sky.hdr 11x6 float");
  Frame f;
  REQUIRE(source->poll(f));
  CHECK(f.format == PixelFormat::RGBA32F);
  REQUIRE(f.bytes.size() == 11 * 6 * 16);
  const float* px = reinterpret_cast<const float*>(f.bytes.data());
  float worst = 0.0f;
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 11; ++x) {
      // RGBE shares one exponent per pixel: the error is relative to the pixel's largest channel.
      const float m = std::max({hdr.at(x, y, 0), hdr.at(x, y, 1), hdr.at(x, y, 2)});
      for (int c = 0; c < 3; ++c)
        worst = std::max(worst, std::abs(px[(y * 11 + x) * 4 + c] - hdr.at(x, y, c)) / m);
      CHECK(px[(y * 11 + x) * 4 + 3] == 1.0f);
    }
  CHECK(worst < 1.0f / 128.0f);
}

TEST_CASE("open_image and open_path name the file they cannot read") {
  // The shared test images sit next to the repository; truncated.jpg is cut mid-scan.
  const std::string truncated = std::string(RF_SOURCE_DIR) + "/../shared/images/truncated.jpg";
  if (std::ifstream(truncated).good()) {
    try {
      open_image(truncated);
      FAIL("truncated.jpg opened");
    } catch (const IoError& e) {
      CHECK(std::string(e.what()).find("truncated.jpg") != std::string::npos);
    }
  } else {
    MESSAGE("truncated.jpg not found next to the repository: that check did not run");
  }
  CHECK_THROWS_AS(open_image("/nonexistent/picture.png"), IoError);
  CHECK_THROWS_AS(open_path("/nonexistent/picture.png"), IoError);
}

TEST_CASE("a folder plays in natural order, skips unreadable files and loops") {
  TempDir dir;
  // Written out of order; "frame3" is damaged and a text file is not an image at all.
  io::write_image(dir.file("frame10.png"), tagged_image(17, 9, 100));
  io::write_image(dir.file("frame2.png"), tagged_image(17, 9, 20));
  io::write_image(dir.file("frame1.png"), tagged_image(17, 9, 10));
  write_garbage(dir.file("frame3.png"));
  std::ofstream(dir.file("notes.txt")) << "not an image";

  // 0.2 fps: nothing falls due before the pause below, however slow this machine is.
  auto source = open_folder(dir.path(), 0.2, true);
  CHECK(source->animated());
  source->set_paused(true);
  Frame f;
  REQUIRE(wait_for_frame(*source, f));
  CHECK(tag_of(f) == 10);
  CHECK(f.width == 17);
  CHECK(f.format == PixelFormat::RGBA8);
  CHECK(step_and_read(*source, f) == 20);
  CHECK(step_and_read(*source, f) == 100);  // frame3.png skipped
  const std::string status = source->status();
  CHECK(status.find("frame3.png") != std::string::npos);
  CHECK(status.find("notes.txt") == std::string::npos);
  CHECK(step_and_read(*source, f) == 10);  // looped
  CHECK(step_and_read(*source, f) == 20);
  // Paused: no frame arrives without a step.
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  CHECK_FALSE(source->poll(f));
}

TEST_CASE("a folder without looping stops on its last frame") {
  TempDir dir;
  io::write_image(dir.file("b.png"), tagged_image(8, 8, 2));
  io::write_image(dir.file("a.png"), tagged_image(8, 8, 1));
  auto source = open_folder(dir.path(), 0.2, false);
  source->set_paused(true);
  Frame f;
  REQUIRE(wait_for_frame(*source, f));
  CHECK(tag_of(f) == 1);
  CHECK(step_and_read(*source, f) == 2);
  CHECK(step_and_read(*source, f, 0.3) == -1);
  Frame kept;  // empty: poll() hands over the source's newest frame
  REQUIRE(source->poll(kept));
  CHECK(tag_of(kept) == 2);
}

TEST_CASE("a playing folder shows every image in turn, none before its time") {
  TempDir dir;
  for (int i = 0; i < 5; ++i)
    io::write_image(dir.file("f" + std::to_string(i) + ".png"), tagged_image(8, 8, 10 * i + 1));
  const double fps = 40.0;
  const auto start = std::chrono::steady_clock::now();
  auto source = open_folder(dir.path(), fps, true);
  CHECK(source->fps() == fps);
  Frame f;
  REQUIRE(source->poll(f));  // the first image is decoded while the folder opens
  CHECK(tag_of(f) == 1);
  // Frame indices count every frame the folder showed, also those this loop missed on a busy
  // machine. n frames after the first, the folder has moved on n images (looping after five), and
  // frame n falls due n / fps seconds after the folder's clock started, inside open_folder.
  const std::uint64_t first = f.index;
  while (f.index - first < 7) {
    REQUIRE(wait_for_frame(*source, f));
    const double seen_at = seconds_since(start);
    const int n = int(f.index - first);
    CAPTURE(n);
    CHECK(tag_of(f) == 10 * (n % 5) + 1);
    CHECK(seen_at >= n / fps - 1e-6);
  }
  CHECK(source->status().empty());
}

TEST_CASE("empty, missing and wholly unreadable folders are IoErrors naming the folder") {
  TempDir dir;
  try {
    open_folder(dir.path());
    FAIL("an empty folder opened");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find(dir.path()) != std::string::npos);
  }
  std::ofstream(dir.file("readme.txt")) << "no images here";
  CHECK_THROWS_AS(open_folder(dir.path()), IoError);
  write_garbage(dir.file("x.png"));
  write_garbage(dir.file("y.jpg"));
  try {
    open_folder(dir.path());
    FAIL("a folder of damaged images opened");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find("none of its 2 images") != std::string::npos);
  }
  CHECK_THROWS_AS(open_folder(dir.file("missing")), IoError);
  CHECK_THROWS_AS(open_folder(dir.path(), 0.0), InvalidParameter);
}

TEST_CASE("open_path picks a folder source for a directory") {
  TempDir dir;
  io::write_image(dir.file("only.png"), tagged_image(6, 4, 7));
  auto source = open_path(dir.path());
  CHECK(source->animated());
  CHECK(source->description().find("1 images") != std::string::npos);
  Frame f;
  REQUIRE(wait_for_frame(*source, f));
  CHECK(tag_of(f) == 7);
  auto still = open_path(dir.file("only.png"));
  CHECK_FALSE(still->animated());
}

// A multi-page TIFF plays its pages as a folder plays its images: page by page while paused,
// after the last the first; 16-bit pages stay float; one page is a still.
TEST_CASE("a multi-page TIFF plays its pages, steps page by page and loops") {
  TempDir dir;
  io::Volume v;
  v.width = 7;
  v.height = 5;
  v.depth = 3;
  v.channels = 1;
  for (int z = 0; z < v.depth; ++z)
    for (int i = 0; i < v.width * v.height; ++i) v.voxels.push_back((40 + 60 * z) / 255.0f);
  const std::string stack = dir.path() + "/stack.tif";
  io::write_volume(stack, v, 8);
  const auto s = open_image(stack);
  CHECK(s->animated());
  CHECK(s->fps() > 0.0);
  s->set_paused(true);
  Frame f;
  REQUIRE(s->poll(f));
  CHECK(f.width == 7);
  CHECK(f.height == 5);
  CHECK(f.format == PixelFormat::RGBA8);
  CHECK(tag_of(f) == 40);
  CHECK(s->description().find("page 1 of 3") != std::string::npos);
  CHECK(step_and_read(*s, f) == 100);
  CHECK(s->description().find("page 2 of 3") != std::string::npos);
  CHECK(step_and_read(*s, f) == 160);
  CHECK(step_and_read(*s, f) == 40);  // after the last page, the first
  // Paused, nothing new arrives.
  CHECK_FALSE(wait_for_frame(*s, f, 0.2));

  const std::string deep = dir.path() + "/deep.tif";
  io::write_volume(deep, v, 16);
  Frame g;
  const auto s16 = open_image(deep);
  REQUIRE(s16->poll(g));
  CHECK(g.format == PixelFormat::RGBA32F);

  io::Volume one = v;
  one.depth = 1;
  one.voxels.resize(std::size_t(v.width) * v.height);
  const std::string still = dir.path() + "/one.tif";
  io::write_volume(still, one, 8);
  const auto s1 = open_image(still);
  CHECK_FALSE(s1->animated());
  CHECK(s1->description() == "one.tif 7x5");
}
