// rfcli as a person runs it: the built binary as a subprocess, its exit status and its output.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/io/image_io.h"
#include "app/io/volume.h"
#include "filters/core/array.h"
#include "filters/core/engine.h"
#include "filters/core/errors.h"
#include "filters/core/filter_table.h"
#include "filters/recursive/reference.h"
#include "filters/truth/truth.h"
#include "tests/app/file_bytes.h"
#include "tests/random_data.h"
#include "tests/temp_dir.h"

namespace fs = std::filesystem;

namespace {

const std::string kRfcli = std::string(RF_BINARY_DIR) + "/bin/rfcli";

using rf::test_util::read_bytes;
using rf::test_util::read_error;
using rf::test_util::TempDir;
using rf::test_util::write_bytes;

struct Run {
  int status = -1;
  std::string out, err;
};

// Runs rfcli with `args` (already shell-quoted where needed), capturing stdout and stderr.
Run rfcli(const TempDir& dir, const std::string& args) {
  REQUIRE_MESSAGE(fs::exists(kRfcli), "build rfcli first: " << kRfcli);
  const std::string out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = "'" + kRfcli + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int raw = std::system(cmd.c_str());
  Run r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = read_bytes(out);
  r.err = read_bytes(err);
  return r;
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

std::string astronaut() {
  const std::string beside = std::string(RF_SOURCE_DIR) + "/../shared/images/astronaut.png";
  return fs::exists(beside) ? beside : std::string(RF_SOURCE_DIR) + "/assets/astronaut.png";
}

// A bad invocation: exit status 2 and exactly one line on stderr that contains `needle`.
void check_refused(const TempDir& dir, const std::string& args, const std::string& needle) {
  CAPTURE(args);
  const Run r = rfcli(dir, args);
  CHECK(r.status == 2);
  CAPTURE(r.err);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.rfind("rfcli: ", 0) == 0);
  CHECK(r.err.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("rfcli filter: writes the filtered image and says where") {
  TempDir dir;
  const std::string out = dir / "blur.pfm";
  const Run r =
      rfcli(dir, "filter '" + astronaut() + "' '" + out +
                     "' --filter gaussian --sigma 3 --order 3 --ext mirror --backend cpu");
  CHECK(r.status == 0);
  CHECK(r.out.find(out) != std::string::npos);
  const rf::Image in = rf::io::read_image(astronaut());
  const rf::Image got = rf::io::read_image(out);
  REQUIRE(got.width == in.width);
  REQUIRE(got.channels == in.channels);
  rf::FilterSpec spec;
  spec.sigma = 3.0;
  const rf::Image want = rf::filter_image(spec, in, rf::Backend::Cpu);
  CHECK(got.pixels == want.pixels);
}

TEST_CASE("rfcli filter and truth: --ext constant --cval V, the image continued with V") {
  TempDir dir;
  const rf::Image in = rf::test::random_image(37, 29, 1, 31);
  rf::io::write_image(dir / "in.pfm", in);
  rf::FilterSpec spec;
  spec.sigma = 6.0;
  spec.ext = rf::Extension::Constant;
  spec.cval = 0.8;
  const std::string input = "'" + (dir / "in.pfm") + "' ";
  for (const char* command : {"filter", "truth"}) {
    CAPTURE(command);
    const std::string out = dir / (std::string(command) + ".pfm");
    const bool filter = std::string(command) == "filter";
    const Run r =
        rfcli(dir, std::string(command) + " " + input + "'" + out +
                       "' --sigma 6 --ext constant --cval 0.8" + (filter ? " --backend cpu" : ""));
    REQUIRE(r.status == 0);
    const rf::Image want =
        filter ? rf::filter_image(spec, in, rf::Backend::Cpu) : rf::ground_truth(spec, in);
    CHECK(rf::io::read_image(out).pixels == want.pixels);
  }
  // The value matters: constant 0 is the zero extension, and differs.
  spec.cval = 0.0;
  CHECK(rf::filter_image(spec, in, rf::Backend::Cpu).pixels !=
        rf::io::read_image(dir / "filter.pfm").pixels);
}

TEST_CASE("rfcli filter and truth: --derivative, written as float, the library's pixels") {
  TempDir dir;
  const rf::Image in = rf::test::random_image(41, 33, 1, 37);
  rf::io::write_image(dir / "in.pfm", in);
  rf::FilterSpec spec;
  spec.sigma = 3.0;
  spec.ext = rf::Extension::Clamp;
  spec.derivative = *rf::parse_derivative("gradient");
  const std::string input = "'" + (dir / "in.pfm") + "' ";
  const Run r = rfcli(dir, "filter " + input + "'" + (dir / "g.tif") +
                               "' --sigma 3 --ext clamp --derivative gradient --backend cpu");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("32-bit float") != std::string::npos);
  CHECK(r.out.find("derivative gradient") != std::string::npos);
  CHECK(rf::io::read_image(dir / "g.tif").pixels ==
        rf::filter_image(spec, in, rf::Backend::Cpu).pixels);
  const Run t = rfcli(dir, "truth " + input + "'" + (dir / "t.pfm") +
                               "' --sigma 3 --ext clamp --derivative gradient");
  REQUIRE(t.status == 0);
  CHECK(rf::io::read_image(dir / "t.pfm").pixels == rf::ground_truth(spec, in).pixels);
  // Signed values in an 8- or 16-bit file would be clamped: refused before any work.
  check_refused(dir, "filter " + input + "'" + (dir / "d.png") + "' --derivative 1,0",
                "a derivative's values are signed");
  check_refused(dir, "filter " + input + "'" + (dir / "d.tif") + "' --derivative 1,0 --bits 16",
                "a derivative's values are signed");
  CHECK_FALSE(fs::exists(dir / "d.png"));
  check_refused(dir, "filter " + input + "'" + (dir / "d.pfm") + "' --derivative up",
                "--derivative: 'up'");
  check_refused(dir, "filter " + input + "'" + (dir / "d.pfm") + "' --filter sat --derivative 1,0",
                "has none");
}

TEST_CASE("rfcli filter and truth: --sigma SX,SY, a sigma along x and one along y") {
  TempDir dir;
  const rf::Image in = rf::test::random_image(53, 41, 1, 29);
  rf::io::write_image(dir / "in.pfm", in);
  rf::FilterSpec spec;
  spec.sigma = 1.5;
  spec.sigma_y = 9.0;
  const std::string input = "'" + (dir / "in.pfm") + "' ";
  Run r = rfcli(dir, "filter " + input + "'" + (dir / "xy.pfm") + "' --sigma 1.5,9 --backend cpu");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("sigma 1.5,9") != std::string::npos);
  const rf::Image want = rf::filter_image(spec, in, rf::Backend::Cpu);
  CHECK(rf::io::read_image(dir / "xy.pfm").pixels == want.pixels);
  // The axes are not interchangeable: y, x differs.
  std::swap(spec.sigma, *spec.sigma_y);
  CHECK(rf::filter_image(spec, in, rf::Backend::Cpu).pixels != want.pixels);
  std::swap(spec.sigma, *spec.sigma_y);

  r = rfcli(dir, "truth " + input + "'" + (dir / "truth.pfm") + "' --sigma 1.5,9");
  REQUIRE(r.status == 0);
  CHECK(rf::io::read_image(dir / "truth.pfm").pixels == rf::ground_truth(spec, in).pixels);

  for (const char* bad : {"x", "4,", "1,2,3", ",4", "4;2"})
    check_refused(dir, "filter " + input + "'" + (dir / "bad.pfm") + "' --sigma '" + bad + "'",
                  "--sigma: '" + std::string(bad) + "' is not SIGMA or SX,SY");
  check_refused(dir, "filter " + input + "'" + (dir / "bad.pfm") + "' --sigma 2,0",
                "sigma along y must be > 0 (got 0)");
  check_refused(dir,
                "filter " + input + "'" + (dir / "bad.pfm") + "' --filter edge-aware --sigma 2,3",
                "takes one sigma for both axes");
  CHECK(!fs::exists(dir / "bad.pfm"));
}

TEST_CASE("rfcli filter: --gaussian-method, and what auto ran in the summary line") {
  TempDir dir;
  const rf::Image in = rf::test::random_image(37, 29, 1, 31);
  rf::io::write_image(dir / "in.pfm", in);
  const std::string input = "'" + (dir / "in.pfm") + "' ";
  Run r = rfcli(dir, "filter " + input + "'" + (dir / "fir.pfm") +
                         "' --sigma 0.3 --gaussian-method auto --backend cpu");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("method auto: FIR radius 1") != std::string::npos);
  rf::FilterSpec spec;
  spec.sigma = 0.3;
  spec.gaussian_method = rf::GaussianMethod::Fir;
  CHECK(rf::io::read_image(dir / "fir.pfm").pixels ==
        rf::filter_image(spec, in, rf::Backend::Cpu).pixels);
  r = rfcli(dir,
            "filter " + input + "'" + (dir / "rec.pfm") + "' --sigma 9 --gaussian-method best");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("method auto: recursive order 3") != std::string::npos);
  // --algo auto resolved: the CPU's line filter.
  r = rfcli(dir, "filter " + input + "'" + (dir / "rt.pfm") + "' --sigma 4 --backend cpu");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("mirror: recursive order 3 by rt") != std::string::npos);
  check_refused(dir, "filter " + input + "'" + (dir / "bad.pfm") + "' --gaussian-method spline",
                "--gaussian-method: unknown method 'spline' (recursive, fir, auto)");
  check_refused(dir,
                "filter " + input + "'" + (dir / "bad.pfm") + "' --gaussian-method fir --algo alg5",
                "the FIR runs no recursive algorithm");
  CHECK(!fs::exists(dir / "bad.pfm"));
}

TEST_CASE("rfcli filter: a multi-page TIFF is a volume, filtered along --axes") {
  TempDir dir;
  rf::io::Volume v;
  v.width = 13;
  v.height = 11;
  v.depth = 7;
  v.channels = 1;
  const rf::Image pages = rf::test::random_image(13, 11 * 7, 1, 31);
  v.voxels = pages.pixels;
  rf::io::write_volume(dir / "stack.tif", v, 32);
  const std::string input = "'" + (dir / "stack.tif") + "' ";
  // By default along x, y and z; --sigma-z through the pages.
  Run r = rfcli(dir, "filter " + input + "'" + (dir / "xyz.tif") +
                         "' --sigma 2 --sigma-z 1.5 --ext clamp --backend cpu");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("13x11x7 volume") != std::string::npos);
  CHECK(r.out.find("along x,y,z") != std::string::npos);
  rf::ArraySpec spec;
  spec.passes = {{0, 1.5, 0, rf::Extension::Clamp},
                 {1, 2.0, 0, rf::Extension::Clamp},
                 {2, 2.0, 0, rf::Extension::Clamp}};
  std::vector<float> want = v.voxels;
  rf::ArrayFilter(spec, {7, 11, 13, 1}, rf::Backend::Cpu).run(want.data(), want.data());
  const rf::io::Volume got = rf::io::read_volume(dir / "xyz.tif");
  CHECK(got.depth == 7);
  CHECK(got.voxels == want);
  // Through the pages alone: each pixel's line of 7 samples, the pages otherwise apart.
  r = rfcli(dir, "filter " + input + "'" + (dir / "z.tif") + "' --axes z --sigma 3 --backend cpu");
  REQUIRE(r.status == 0);
  spec.passes = {{0, 3.0, 0, rf::Extension::Mirror}};
  want = v.voxels;
  rf::ArrayFilter(spec, {7, 11, 13, 1}, rf::Backend::Cpu).run(want.data(), want.data());
  CHECK(rf::io::read_volume(dir / "z.tif").voxels == want);
  // Its ground truth in double, along the same axes.
  r = rfcli(dir, "truth " + input + "'" + (dir / "truth.tif") + "' --axes z --sigma 3");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("along z") != std::string::npos);
  const std::vector<double> truth = rf::ground_truth_array(
      spec, {7, 11, 13, 1}, std::vector<double>(v.voxels.begin(), v.voxels.end()));
  const rf::io::Volume t = rf::io::read_volume(dir / "truth.tif");
  REQUIRE(t.voxels.size() == truth.size());
  for (std::size_t i = 0; i < truth.size(); ++i) CHECK(t.voxels[i] == float(truth[i]));
  check_refused(dir, "truth " + input + "'" + (dir / "bad.tif") + "' --axes q", "--axes 'q'");
  // Mistakes: one line, exit 2, nothing written.
  check_refused(dir, "filter " + input + "'" + (dir / "bad.tif") + "' --axes x,w", "--axes 'x,w'");
  check_refused(dir, "filter " + input + "'" + (dir / "bad.tif") + "' --axes x,x",
                "x is given twice");
  check_refused(dir, "filter " + input + "'" + (dir / "bad.tif") + "' --axes z --derivative 1,0",
                "along an axis not among --axes z");
  check_refused(dir, "filter " + input + "'" + (dir / "bad.png") + "'", "needs .tif");
  CHECK(!fs::exists(dir / "bad.tif"));
  CHECK(!fs::exists(dir / "bad.png"));
  // A folder takes no --axes.
  fs::create_directories(dir / "folder");
  check_refused(dir, "filter '" + (dir / "folder") + "' '" + (dir / "out") + "' --axes z",
                "not a folder");
}

TEST_CASE("rfcli truth: writes the double-precision ground truth") {
  TempDir dir;
  rf::io::write_image(dir / "in.pfm", rf::test::random_image(45, 31, 3, 23));
  const Run r = rfcli(dir, "truth '" + (dir / "in.pfm") + "' '" + (dir / "truth.pfm") +
                               "' --filter bspline5 --ext repeat");
  REQUIRE(r.status == 0);
  rf::FilterSpec spec;
  spec.kind = rf::FilterKind::BSpline5;
  spec.ext = rf::Extension::Repeat;
  const rf::Image want = rf::ground_truth(spec, rf::io::read_image(dir / "in.pfm"));
  CHECK(rf::io::read_image(dir / "truth.pfm").pixels == want.pixels);
}

namespace {

// The bit depth in a PNG's IHDR chunk.
int png_depth(const std::string& path) {
  const std::string b = read_bytes(path);
  REQUIRE(b.size() > 24);
  return static_cast<unsigned char>(b[24]);
}

// An image of random 16-bit levels.
rf::Image random_16bit(int w, int h, int c, unsigned seed) {
  std::mt19937 rng(seed);
  rf::Image img(w, h, c);
  for (float& v : img.pixels) v = rf::io::from_unorm16(std::uint16_t(rng() & 0xFFFF));
  return img;
}

}  // namespace

TEST_CASE("rfcli filter --bits: the input's depth by default, else the asked one") {
  TempDir dir;
  const std::string spec = " --sigma 2 --backend cpu";
  rf::FilterSpec fs;
  fs.sigma = 2.0;
  const rf::Image in16 = random_16bit(40, 30, 3, 4);
  rf::io::write_image(dir / "in16.png", in16, 16);
  // 16 bits in, 16 out, each sample the nearest 1/65535 step of the float result.
  REQUIRE(rfcli(dir, "filter '" + (dir / "in16.png") + "' '" + (dir / "out16.png") + "'" + spec)
              .status == 0);
  CHECK(png_depth(dir / "out16.png") == 16);
  const rf::Image want = rf::filter_image(fs, in16, rf::Backend::Cpu);
  const rf::Image got = rf::io::read_image(dir / "out16.png");
  REQUIRE(got.pixels.size() == want.pixels.size());
  for (std::size_t i = 0; i < want.pixels.size(); ++i)
    CHECK(got.pixels[i] == rf::io::from_unorm16(rf::io::to_unorm16(want.pixels[i])));
  // 16 bits in, float TIFF out: the filter's floats exactly.
  const Run tif = rfcli(
      dir, "filter '" + (dir / "in16.png") + "' '" + (dir / "out.tif") + "' --bits 32" + spec);
  REQUIRE(tif.status == 0);
  CHECK(tif.out.find("out.tif, 32-bit float") != std::string::npos);
  int bits = 0;
  CHECK(rf::io::read_image(dir / "out.tif", &bits).pixels == want.pixels);
  CHECK(bits == 32);
  // Float in, PNG out: 16 bits, the deepest PNG stores. 8 bits in: 8 out, unless asked.
  REQUIRE(
      rfcli(dir, "filter '" + (dir / "out.tif") + "' '" + (dir / "f.png") + "'" + spec).status ==
      0);
  CHECK(png_depth(dir / "f.png") == 16);
  const std::string img = "'" + astronaut() + "'";
  REQUIRE(rfcli(dir, "filter " + img + " '" + (dir / "a.png") + "'" + spec).status == 0);
  CHECK(png_depth(dir / "a.png") == 8);
  REQUIRE(rfcli(dir, "filter " + img + " '" + (dir / "a16.png") + "' --bits 16" + spec).status ==
          0);
  CHECK(png_depth(dir / "a16.png") == 16);
  // truth takes --bits too.
  REQUIRE(
      rfcli(dir, "truth '" + (dir / "in16.png") + "' '" + (dir / "t.png") + "' --sigma 2").status ==
      0);
  CHECK(png_depth(dir / "t.png") == 16);
  REQUIRE(
      rfcli(dir, "truth '" + (dir / "in16.png") + "' '" + (dir / "t8.png") + "' --bits 8 --sigma 2")
          .status == 0);
  CHECK(png_depth(dir / "t8.png") == 8);
}

TEST_CASE("rfcli --bits: a depth the output format does not store is one line, exit 2") {
  TempDir dir;
  const std::string img = "'" + astronaut() + "'";
  check_refused(dir, "filter " + img + " '" + (dir / "o.jpg") + "' --bits 16",
                "--bits 16: " + (dir / "o.jpg") + " is written with 8 bits");
  check_refused(dir, "filter " + img + " '" + (dir / "o.png") + "' --bits 32",
                "is written with 8 or 16 bits");
  check_refused(dir, "filter " + img + " '" + (dir / "o.png") + "' --bits 12", "--bits");
  check_refused(dir, "filter " + img + " '" + (dir / "o.png") + "' --bits sixteen", "--bits");
  check_refused(dir, "truth " + img + " '" + (dir / "o.pfm") + "' --bits 8",
                "--bits 8: " + (dir / "o.pfm") + " is written with 32 bits");
  CHECK(dir.files() == 2);  // stdout.txt and stderr.txt: nothing was written
}

namespace {

// A folder of three good images of different formats and depths, one bad file among them, and
// files the batch must leave alone.
void make_batch_input(const TempDir& dir, const std::string& in) {
  fs::create_directories(in + "/sub");
  rf::io::write_image(in + "/a.png", rf::test::random_image_8bit(40, 30, 3, 1));
  rf::io::write_image(in + "/b.tif", random_16bit(40, 30, 1, 2), 16);
  rf::io::write_image(in + "/c.pfm", rf::test::random_image(33, 20, 3, 3));
  std::ofstream(in + "/bad.png") << "not an image";
  std::ofstream(in + "/notes.txt") << "not an image either, and not taken for one";
  rf::io::write_image(in + "/.hidden.png", rf::test::random_image_8bit(4, 4, 1, 4));
  rf::io::write_image(in + "/sub/d.png", rf::test::random_image_8bit(4, 4, 1, 5));
  (void)dir;
}

}  // namespace

TEST_CASE("rfcli filter IN_FOLDER OUT_FOLDER: every image, one failure reported, exit 2") {
  TempDir dir;
  const std::string in = dir / "in", out = dir / "out";
  make_batch_input(dir, in);
  const Run r = rfcli(dir, "filter '" + in + "' '" + out + "' --sigma 3 --backend cpu");
  CAPTURE(r.err);
  CHECK(r.status == 2);
  // Progress and the failure on stderr, one line each, in name order; the summary last.
  CHECK(r.err.find("[1/4] a.png\n[2/4] b.tif\n[3/4] bad.png\nrfcli: " + in + "/bad.png: ") !=
        std::string::npos);
  CHECK(r.err.find("[4/4] c.pfm\nrfcli: 1 of 4 images failed") != std::string::npos);
  CHECK(lines(r.err) == 6);
  rf::FilterSpec spec;
  spec.sigma = 3.0;
  for (const char* name : {"a.png", "b.tif", "c.pfm"}) {
    CAPTURE(name);
    int in_bits = 0, out_bits = 0;
    const rf::Image src = rf::io::read_image(in + "/" + name, &in_bits);
    const rf::Image got = rf::io::read_image(out + "/" + name, &out_bits);
    CHECK(out_bits == in_bits);  // same name, same format, same depth
    const rf::Image want = rf::filter_image(spec, src, rf::Backend::Cpu);
    REQUIRE(got.pixels.size() == want.pixels.size());
    const float step = in_bits == 8 ? 0.5f / 255.0f : in_bits == 16 ? 0.5f / 65535.0f : 0.0f;
    float worst = 0.0f;
    for (std::size_t i = 0; i < want.pixels.size(); ++i)
      worst = std::max(worst, std::abs(got.pixels[i] - want.pixels[i]));
    CHECK(worst <= step * 1.0001f);
  }
  int outputs = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(out)) ++outputs;
  CHECK(outputs == 3);
  CHECK(r.out.find(out + "/c.pfm, 32-bit float") != std::string::npos);

  // Without the bad file: exit 0, a summary on stdout, nothing but progress on stderr.
  fs::remove(in + "/bad.png");
  const Run ok = rfcli(dir, "filter '" + in + "' '" + out + "' --sigma 3 --backend cpu");
  CHECK(ok.status == 0);
  CHECK(ok.err == "[1/3] a.png\n[2/3] b.tif\n[3/3] c.pfm\n");
  CHECK(ok.out.find("3 images -> " + out) != std::string::npos);
}

TEST_CASE("rfcli filter on a folder: bad folders and --bits refused before anything is written") {
  TempDir dir;
  const std::string in = dir / "in";
  make_batch_input(dir, in);
  check_refused(dir, "filter '" + in + "' '" + (dir / "out") + "' --bits 16",
                "--bits 16: c.pfm is written with 32 bits");
  CHECK(!fs::exists(dir / "out"));
  check_refused(dir, "filter '" + in + "' '" + in + "'", "is the input folder");
  check_refused(dir, "filter '" + in + "' '" + (in + "/a.png") + "'", "not a folder");
  fs::create_directories(dir / "empty");
  check_refused(dir, "filter '" + (dir / "empty") + "' '" + (dir / "out") + "'",
                "no images in this folder");
}

TEST_CASE("rfcli coeffs --json prints the public convention") {
  TempDir dir;
  const Run r = rfcli(dir, "coeffs --filter bspline3 --json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["a"].size() == 1);
  CHECK(j["a"][0].get<double>() == doctest::Approx(2.0 - std::sqrt(3.0)).epsilon(1e-12));
  CHECK(j["causal_only"].get<bool>() == false);
  CHECK(j.contains("b0"));

  const Run sat = rfcli(dir, "coeffs --filter sat --json");
  REQUIRE(sat.status == 0);
  CHECK(nlohmann::json::parse(sat.out)["causal_only"].get<bool>());

  const Run human = rfcli(dir, "coeffs --filter gaussian --sigma 5 --order 4");
  CHECK(human.status == 0);
  CHECK(human.out.find("a4 =") != std::string::npos);
  CHECK(human.out.find("max relative") != std::string::npos);
}

TEST_CASE("rfcli coeffs --response: the gain on [0, pi] from the printed coefficients") {
  TempDir dir;
  const Run r = rfcli(dir, "coeffs --filter gaussian --sigma 3 --order 4 --response 9 --json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& points = j.at("response");
  REQUIRE(points.size() == 9);
  const double pi = std::acos(-1.0);
  // Recomputed here from the printed b0 and a_k: |b0 / A(e^{iw})|^2 for the pair.
  const double b0 = j.at("b0").get<double>();
  const std::vector<double> a = j.at("a").get<std::vector<double>>();
  for (std::size_t k = 0; k < points.size(); ++k) {
    const double w = points[k].at("omega").get<double>();
    CHECK(w == doctest::Approx(pi * double(k) / 8.0).epsilon(1e-15));
    double re = 1.0, im = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      re += a[i] * std::cos(double(i + 1) * w);
      im -= a[i] * std::sin(double(i + 1) * w);
    }
    CHECK(points[k].at("gain").get<double>() ==
          doctest::Approx(b0 * b0 / (re * re + im * im)).epsilon(1e-12));
    CHECK(points[k].at("ideal").get<double>() ==
          doctest::Approx(std::exp(-4.5 * w * w)).epsilon(1e-14));
  }
  CHECK(points.back().at("omega").get<double>() == pi);

  // Causal only: |b0 / A|, no Gaussian; the pole on the unit circle makes the gain at 0 null.
  const Run sat = rfcli(dir, "coeffs --filter sat --response 3 --json");
  REQUIRE(sat.status == 0);
  const auto s = nlohmann::json::parse(sat.out).at("response");
  CHECK(s[0].at("gain").is_null());
  CHECK(s[2].at("gain").get<double>() == doctest::Approx(0.5).epsilon(1e-14));
  CHECK_FALSE(s[1].contains("ideal"));

  const Run human = rfcli(dir, "coeffs --filter bspline3 --response 3");
  CHECK(human.status == 0);
  CHECK(human.out.find("3.00000000000000") != std::string::npos);  // 1 / B(pi) = 3
  check_refused(dir, "coeffs --response 1", "--response");
  check_refused(dir, "coeffs --filter edge-aware --response 8", "edge-aware");
}

TEST_CASE("rfcli: a bad name is parse_spec's message, listing exactly the table's names") {
  TempDir dir;
  const std::string filter = "filter '" + astronaut() + "' '" + (dir / "out.pfm") + "' ";
  auto expected = [](rf::FilterArgs a) {
    try {
      rf::parse_spec(a);
    } catch (const std::exception& e) {
      return "rfcli: " + std::string(e.what()) + "\n";
    }
    return std::string("accepted");
  };
  rf::FilterArgs a;
  a.filter = "box";
  CHECK(rfcli(dir, filter + "--filter box").err == expected(a));
  CHECK(expected(a) == "rfcli: --filter: unknown filter 'box' (" + rf::kind_names() + ")\n");
  a = {};
  a.ext = "wrapped";
  CHECK(rfcli(dir, filter + "--ext wrapped").err == expected(a));
  CHECK(expected(a).find("(" + rf::extension_names() + ")") != std::string::npos);
  a = {};
  a.algo = "alg9";
  CHECK(rfcli(dir, filter + "--algo alg9").err == expected(a));
  CHECK(expected(a).find("(" + rf::algorithm_names() + ")") != std::string::npos);
  a = {};
  a.backend = "gpu";
  CHECK(rfcli(dir, filter + "--backend gpu").err == expected(a));
  CHECK(expected(a).find("(" + rf::backend_names() + ")") != std::string::npos);
  a = {};
  a.filter = "deriche";
  a.order = 3;
  CHECK(rfcli(dir, "coeffs --filter deriche --order 3").err == expected(a));
}

TEST_CASE("rfcli: --help lists the table's names; a kind named alone gets its defaults") {
  TempDir dir;
  const Run help = rfcli(dir, "filter --help");
  CHECK(help.status == 0);
  for (const rf::KindInfo& k : rf::kind_table()) CHECK(help.out.find(k.name) != std::string::npos);
  for (const rf::ExtensionInfo& e : rf::extension_table())
    CHECK(help.out.find(e.name) != std::string::npos);
  for (const rf::BackendInfo& b : rf::backend_table())
    CHECK(help.out.find(b.name) != std::string::npos);
  CHECK(help.out.find(rf::option_help().algo) != std::string::npos);
  CHECK(help.out.find(rf::option_help().order) != std::string::npos);
  CHECK(help.out.find("deriche 2 or 4 (default 2)") != std::string::npos);

  const Run deriche = rfcli(dir, "coeffs --filter deriche");
  CHECK(deriche.status == 0);
  CHECK(deriche.out.find("deriche order 2 sigma 4, mirror: order 2") == 0);
  const Run yvrg = rfcli(dir, "coeffs --filter yvrg --order 5");
  CHECK(yvrg.status == 0);
  CHECK(yvrg.out.find("yvrg sigma 4, mirror: order 3") == 0);
}

TEST_CASE("rfcli: the summed-area table names the extension it takes") {
  TempDir dir;
  const std::string img = "'" + astronaut() + "'";
  for (const char* ext : {"clamp", "repeat", "mirror"}) {
    const std::string args =
        std::string("filter ") + img + " '" + (dir / "sat.pfm") + "' --filter sat --ext " + ext;
    check_refused(dir, args, std::string("--ext ") + ext + ": the summed-area table");
    CHECK(rfcli(dir, args).err.find("boundary_maps") == std::string::npos);
    CHECK_FALSE(fs::exists(dir / "sat.pfm"));
  }
  // Without --ext the table starts from zero.
  const Run ok = rfcli(dir, "filter " + img + " '" + (dir / "sat.pfm") + "' --filter sat");
  CHECK(ok.status == 0);
  CHECK(rfcli(dir, "truth " + img + " '" + (dir / "t.pfm") + "' --filter sat --ext zero").status ==
        0);
}

TEST_CASE("rfcli diff: whole image, border band and interior") {
  TempDir dir;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(0.1f, 0.9f);
  rf::Image a(40, 30, 1);
  for (float& v : a.pixels) v = u(rng);
  rf::Image b = a;
  b.at(0, 0) += 0.25f;     // in the border band
  b.at(20, 15) += 0.125f;  // in the interior
  rf::io::write_image(dir / "a.pfm", a);
  rf::io::write_image(dir / "b.pfm", b);
  const Run r =
      rfcli(dir, "diff '" + (dir / "a.pfm") + "' '" + (dir / "b.pfm") + "' --border 4 --json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["border"].get<int>() == 4);
  CHECK(j["whole"]["max_abs"].get<double>() == doctest::Approx(0.25).epsilon(1e-6));
  CHECK(j["border_band"]["max_abs"].get<double>() == doctest::Approx(0.25).epsilon(1e-6));
  CHECK(j["interior"]["max_abs"].get<double>() == doctest::Approx(0.125).epsilon(1e-6));
  CHECK(j["interior"]["samples"].get<long long>() == 32 * 22);
  const double rmse = std::sqrt((0.25 * 0.25 + 0.125 * 0.125) / (40.0 * 30.0));
  CHECK(j["whole"]["rmse"].get<double>() == doctest::Approx(rmse).epsilon(1e-5));
  CHECK(j["whole"]["psnr"].get<double>() ==
        doctest::Approx(-20.0 * std::log10(rmse)).epsilon(1e-5));

  const Run same = rfcli(dir, "diff '" + (dir / "a.pfm") + "' '" + (dir / "a.pfm") + "' --sigma 2");
  CHECK(same.status == 0);
  CHECK(same.out.find("border band 6 px") != std::string::npos);
  CHECK(same.out.find("inf") != std::string::npos);
}

TEST_CASE("rfcli bench: a small CPU run writes the JSON of the protocol") {
  TempDir dir;
  const std::string json = dir / "bench.json";
  const Run r = rfcli(dir,
                      "bench --sizes 67 --no-hd --orders 1,3 --ext mirror,zero --channels 1,4 "
                      "--iterations 3 --warmup 1 --backend cpu --json '" +
                          json + "'");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(read_bytes(json));
  CHECK(j["device"].get<std::string>().find("CPU") != std::string::npos);
  CHECK(j["date"].get<std::string>().size() == 10);
  CHECK(j["copy_floor_gbps"].get<double>() > 0.0);
  int cpu_rows = 0;
  for (const auto& row : j["results"]) {
    for (const char* key :
         {"impl", "filter", "order", "ext", "width", "height", "channels", "gips", "ms"})
      CHECK(row.contains(key));
    if (row["impl"] == "cpu") {
      ++cpu_rows;
      CHECK(row["width"].get<int>() == 67);
      CHECK(row["gips"].get<double>() > 0.0);
      CHECK(row["ran"] == "rt");  // the CPU's line filter, what auto runs
    }
  }
  CHECK(cpu_rows == 2 * 2 * 2);
}

TEST_CASE("rfcli bench: every case at each sigma of --sigmas, --append adds to the record") {
  TempDir dir;
  const std::string json = dir / "bench.json";
  const std::string common =
      "bench --sizes 33 --no-hd --orders 1 --ext mirror --channels 1 --iterations 2 --warmup 0 "
      "--backend cpu --json '" +
      json + "'";
  REQUIRE(rfcli(dir, common + " --sigmas 1,2.5,64").status == 0);
  const Run more = rfcli(dir, common + " --sigma 8 --filters gaussian,bspline3 --append");
  REQUIRE(more.status == 0);
  CHECK(more.out.find("(appended)") != std::string::npos);
  const auto j = nlohmann::json::parse(read_bytes(json));
  std::vector<double> sigmas;
  for (const auto& row : j["results"]) {
    CHECK(row.contains("algo"));
    CHECK(row.contains("runs"));
    if (row["impl"] != "cpu") continue;
    CHECK(row["algo"] == "auto");
    sigmas.push_back(row["sigma"].get<double>());
    if (row["filter"] == "bspline3") CHECK(row["sigma"].get<double>() == 0.0);
  }
  // The B-spline has no sigma: once, with sigma 0.
  CHECK(sigmas == std::vector<double>{1.0, 2.5, 64.0, 8.0, 0.0});
  // A file that is not a record is refused before anything is measured, and left as it was.
  { std::ofstream(dir / "other.json") << "{\"x\": 1}"; }
  check_refused(
      dir, "bench --sizes 8 --no-hd --backend cpu --json '" + (dir / "other.json") + "' --append",
      "not a benchmark record");
  CHECK(read_bytes(dir / "other.json") == "{\"x\": 1}");
  check_refused(dir, "bench --sigma 2 --sigmas 1,2 --backend cpu", "--sigma");
  check_refused(dir, "bench --sigmas 1,0 --backend cpu", "--sigmas");
  check_refused(dir, "bench --algos alg9 --backend cpu", "--algos");
  check_refused(dir, "bench --algos exact --backend cpu", "--algos");
  check_refused(dir, "bench --append --backend cpu", "--append");
  check_refused(dir, "bench --formats f64 --backend cuda",
                "unknown format 'f64' (f32, f32x4, rgba8, u16, f16)");
  check_refused(dir, "bench --formats u16 --backend cpu", "--channels");
  check_refused(dir, "bench --formats f32 --channels 4 --backend cuda",
                "--formats f32: 1 channel, not one of --channels");
  check_refused(dir, "bench --volume 8 --backend cpu", "--volume");
  check_refused(dir, "bench --clock held --backend cpu", "--clock held: a CUDA clock");
  check_refused(dir, "bench --clock held --backend cuda --filters edge-aware",
                "--clock held: the edge-aware cases");
  check_refused(dir, "bench --clock wall --backend cuda", "--clock");
}

TEST_CASE("rfcli bench: a name or case rfcli filter refuses is refused with its message") {
  TempDir dir;
  const std::string img = "'" + astronaut() + "'", out = "'" + (dir / "out.png") + "'";
  // The message of rfcli filter, naming the bench's option.
  auto same = [&](const std::string& bench, const std::string& filter, const std::string& from,
                  const std::string& to) {
    const Run b = rfcli(dir, "bench --sizes 8 --no-hd " + bench);
    const Run f = rfcli(dir, "filter " + img + " " + out + " " + filter);
    CHECK(b.status == 2);
    CHECK(f.status == 2);
    std::string expected = f.err;
    if (!from.empty()) expected.replace(expected.find(from), from.size(), to);
    CHECK(b.err == expected);
  };
  same("--ext spiral", "--ext spiral", "", "");
  same("--filters median", "--filter median", "--filter", "--filters");
  same("--algos alg9", "--algo alg9", "--algo", "--algos");
  same("--backend gpu", "--backend gpu", "", "");
  same("--filters deriche --orders 1,3", "--filter deriche --order 1", "", "");
  same("--orders 3 --sigmas 0.25", "--order 3 --sigma 0.25", "", "");
  same("--orders 5 --sigmas 4,300", "--order 5 --sigma 300", "", "");
  same("--filters edge-aware --sigmas 3000", "--filter edge-aware --sigma 3000", "", "");
  CHECK_FALSE(fs::exists(dir / "out.png"));
}

TEST_CASE("rfcli bench: the edge-aware filter times A, C, D and exact side by side") {
  TempDir dir;
  const std::string json = dir / "edge.json";
  const Run r = rfcli(dir,
                      "bench --filters edge-aware --sizes 37 --no-hd --iterations 1 --warmup 0 "
                      "--backend cpu --image '" +
                          astronaut() + "' --json '" + json + "'");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("sigma 50, sigma_r 50/255, kappa 2, 2 iterations") != std::string::npos);
  const auto j = nlohmann::json::parse(read_bytes(json));
  std::vector<std::string> algos;
  for (const auto& row : j["results"]) {
    CHECK(row["impl"] == "cpu");
    CHECK(row["filter"] == "edge-aware");
    CHECK(row["ext"] == "clamp");
    CHECK(row["width"].get<int>() == 37);
    CHECK(row["channels"].get<int>() == 3);
    CHECK(row["sigma"].get<double>() == 50.0);
    CHECK(row["ms"].get<double>() > 0.0);
    algos.push_back(row["algo"].get<std::string>());
  }
  CHECK(algos == std::vector<std::string>{"a", "c", "d", "exact"});
  check_refused(dir, "bench --filters edge-aware --sigma-r 0 --backend cpu", "--sigma-r");
}

TEST_CASE("rfcli: every bad input is one line on stderr and exit status 2") {
  TempDir dir;
  const std::string img = "'" + astronaut() + "'";
  const std::string out = "'" + (dir / "out.png") + "'";
  check_refused(dir, "filter '" + (dir / "missing.png") + "' " + out, "missing.png: cannot open");
  const std::string truncated = std::string(RF_SOURCE_DIR) + "/../shared/images/truncated.jpg";
  if (fs::exists(truncated))
    check_refused(dir, "filter '" + truncated + "' " + out, "truncated.jpg");
  {
    std::ofstream(dir / "text.png") << "not an image";
    check_refused(dir, "filter '" + (dir / "text.png") + "' " + out, "text.png: unsupported");
  }
  {
    std::ofstream(dir / "huge.pfm") << "Pf\n100000 2\n-1.0\n";
    check_refused(dir, "filter '" + (dir / "huge.pfm") + "' " + out, "exceeds the limit");
  }
  check_refused(dir, "filter " + img + " " + out + " --bogus", "--bogus");
  check_refused(dir, "frobnicate", "unknown subcommand 'frobnicate'");
  check_refused(dir, "", "subcommand");
  check_refused(dir, "filter " + img + " " + out + " --ext spiral", "--ext");
  check_refused(dir, "filter " + img + " " + out + " --cval 0.5",
                "--cval 0.5: only --ext constant");
  check_refused(dir, "filter " + img + " " + out + " --ext constant --cval nan",
                "cval must be a finite number");
  check_refused(dir, "filter " + img + " " + out + " --filter median", "--filter");
  check_refused(dir, "filter " + img + " " + out + " --sigma -1", "sigma");
  check_refused(dir, "filter " + img + " " + out + " --sigma nan", "sigma");
  check_refused(dir, "filter " + img + " " + out + " --sigma abc", "--sigma");
  check_refused(dir, "filter " + img + " " + out + " --order 7", "order");
  check_refused(dir, "filter " + img + " " + out + " --filter exp --pole 1", "pole");
  check_refused(dir, "filter " + img + " '" + (dir / "out.xyz") + "'", "unsupported output format");
  check_refused(dir, "filter " + img + " '" + (dir / "no/dir/out.png") + "'", "cannot write");
  check_refused(dir, "coeffs --filter deriche --order 3", "order");
  check_refused(dir, "diff " + img + " '" + (dir / "missing.pfm") + "'", "missing.pfm");
  {
    rf::Image small(3, 3, 3);
    rf::io::write_image(dir / "small.png", small);
    check_refused(dir, "diff " + img + " '" + (dir / "small.png") + "'", "does not match");
  }
  check_refused(dir, "bench --orders 9", "--orders");
  if (!rf::cuda_available()) {
    check_refused(dir, "filter " + img + " " + out + " --backend cuda", "CUDA");
    check_refused(dir, "bench --backend cuda --sizes 64", "CUDA");
  }
}

TEST_CASE("rfcli: the command lines the fuzzer found (fuzz/regressions/rfcli_args) are refused") {
  // A kappa range of 1e308 made edge-study collect kappa values until memory ran out.
  TempDir dir;
  const std::string img = "'" + astronaut() + "'";
  const fs::path found = fs::path(RF_SOURCE_DIR) / "fuzz/regressions/rfcli_args";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(found)) {
    // One argument per line, as the fuzz target reads them.
    std::ifstream f(entry.path(), std::ios::binary);
    std::string args, token;
    while (std::getline(f, token)) args += " '" + token + "'";
    check_refused(dir, args, "kappa values");
    ++files;
  }
  CHECK(files == 1);
  check_refused(dir, "edge-study " + img + " --kappa-max 1e308", "kappa values");
  check_refused(dir, "edge-study " + img + " --kappa-step 1e-300", "kappa values");
  check_refused(dir, "edge-study " + img + " --kappa-step 0", "--kappa-step");
}
