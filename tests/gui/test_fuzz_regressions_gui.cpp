// The fuzz findings in the studio's readers (fuzz/regressions/preset_reader, rfstudio_args),
// replayed against what must happen instead. Command lines run rfstudio as a subprocess under
// a time limit: the finding was an endless loop, and a regression must fail, not hang the suite.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "app/gui/presets.h"
#include "filters/core/errors.h"

using namespace rf;
namespace fs = std::filesystem;

namespace {

const fs::path kRegressions = fs::path(RF_SOURCE_DIR) / "fuzz" / "regressions";

std::string text_of(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// rfstudio with these arguments (newline-separated, as the fuzz target splits its input), its
// output to /dev/null. The exit status, or -1 when it ran past `seconds` and was killed.
int run_rfstudio(const std::string& tokens, int seconds) {
  std::vector<std::string> args = {RFSTUDIO_PATH};
  std::string token;
  for (char c : tokens) {
    if (c == '\n') {
      args.push_back(token.c_str());  // up to a NUL, as argv would carry it
      token.clear();
    } else {
      token.push_back(c);
    }
  }
  if (!token.empty()) args.push_back(token.c_str());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
}

}  // namespace

TEST_CASE("fuzz regressions: preset reader") {
  const fs::path dir = kRegressions / "preset_reader";
  // A number beyond double (-1e999): nlohmann::json throws out_of_range, not parse_error, and it
  // escaped the preset reader.
  CHECK_THROWS_WITH_AS(gui::parse_preset(text_of(dir / "number-out-of-range.json"), "p.json"),
                       doctest::Contains("p.json: not valid JSON"), IoError);
  CHECK_THROWS_AS(gui::parse_preset("{\"filter\": {\"sigma\": 1e999}}", "p.json"), IoError);
  // An order of 3.3e59: nlohmann::json cast it to int, undefined behaviour (UBSan). Numbers now
  // have to fit their key's type, integers be integers, flags be flags.
  CHECK_THROWS_WITH_AS(gui::parse_preset(text_of(dir / "integer-key-3e59.json"), "p.json"),
                       doctest::Contains("preset key 'order' is out of range"), InvalidParameter);
  CHECK_THROWS_WITH_AS(gui::parse_preset("{\"view\": {\"split\": 1e300}}", "p.json"),
                       doctest::Contains("'split' is out of range"), InvalidParameter);
  CHECK_THROWS_WITH_AS(gui::parse_preset("{\"view\": {\"probe\": [1, 1e20]}}", "p.json"),
                       doctest::Contains("'probe' is out of range"), InvalidParameter);
  CHECK_THROWS_WITH_AS(gui::parse_preset("{\"filter\": {\"order\": 2.5}}", "p.json"),
                       doctest::Contains("'order' has the wrong type"), InvalidParameter);
  CHECK_THROWS_WITH_AS(gui::parse_preset("{\"filter\": {\"iterations\": true}}", "p.json"),
                       doctest::Contains("'iterations' has the wrong type"), InvalidParameter);
  CHECK_THROWS_WITH_AS(gui::parse_preset("{\"diff\": {\"auto_band\": 1}}", "p.json"),
                       doctest::Contains("'auto_band' has the wrong type"), InvalidParameter);
  const gui::Preset p = gui::parse_preset(
      "{\"filter\": {\"order\": 4.0, \"sigma\": 7}, \"view\": {\"probe\": [-1, 12]}}", "p.json");
  CHECK(p.spec.order == 4);
  CHECK(p.spec.sigma == 7.0);
  CHECK(p.view.probe_y == 12);
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  CHECK(files == 2);
}

TEST_CASE("fuzz regressions: rfstudio command lines") {
  // An empty argument followed by an option sent CLI11 2.1 into an endless loop.
  const fs::path file = kRegressions / "rfstudio_args" / "empty-argument-hangs-cli11.txt";
  CHECK(run_rfstudio(text_of(file), 20) == 2);
  CHECK(run_rfstudio("\n--sigma", 20) == 2);
  CHECK(run_rfstudio("--view\ndiff\n\n--c", 20) == 2);
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(kRegressions / "rfstudio_args"))
    ++files;
  CHECK(files == 1);
}
