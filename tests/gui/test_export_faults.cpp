// Exports that fail half-way (a file-size limit stops every write after 4 KB, as a full disk
// would): the studio says so in the status bar, keeps running, and leaves no partial file.
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "tests/gui/studio_harness.h"

using namespace rf::gui;
namespace fs = std::filesystem;

TEST_CASE("export: a write that fails half-way is reported, and nothing half-written is left") {
  StudioOptions o;
  o.spec.backend = rf::Backend::Cpu;
  test::StudioHarness h(o);
  const fs::path dir = fs::temp_directory_path() / ("rf_export_fault_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    std::ofstream f(dir / "shot-result.png");
    f << "an earlier export";
  }
  h.studio->export_dir = dir.string();

  auto* old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  getrlimit(RLIMIT_FSIZE, &old);
  rlimit small = old;
  small.rlim_cur = 4096;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  h.studio->export_all("shot");
  h.frame();
  h.studio->wait_exports();  // the result and the sidecar are written on the export thread
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);

  REQUIRE_FALSE(h.studio->messages.empty());
  CHECK(h.studio->messages.back().error);
  CHECK(h.last_message().find("export failed: ") == 0);
  std::ifstream kept(dir / "shot-result.png");
  CHECK(std::string(std::istreambuf_iterator<char>(kept), {}) == "an earlier export");
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    CAPTURE(e.path());
    ++files;
  }
  CHECK(files == 1);

  // The studio goes on: the next export, without the limit, writes every file.
  h.studio->export_all("shot");
  h.frame();
  h.studio->wait_exports();
  CHECK(h.last_message().find("exported ") == 0);
  CHECK(fs::exists(dir / "shot.json"));
  CHECK(fs::exists(dir / "shot-result.pfm"));
  CHECK(fs::exists(dir / "shot-view.png"));
  fs::remove_all(dir);
}
