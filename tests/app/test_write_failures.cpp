// Writes that fail half-way: a file-size limit (RLIMIT_FSIZE, as a full disk behaves for one
// file) stops the write after a few kilobytes. Nothing may be left half-written: an existing
// output keeps its old content, and no temporary file stays behind.
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "app/io/atomic_file.h"
#include "app/io/image_io.h"
#include "filters/core/errors.h"
#include "tests/app/file_bytes.h"
#include "tests/random_data.h"
#include "tests/temp_dir.h"

using namespace rf;
namespace fs = std::filesystem;

namespace {

using rf::test_util::read_bytes;
using rf::test_util::read_error;
using rf::test_util::TempDir;
using rf::test_util::write_bytes;

// Files may grow to `bytes` while this lives; beyond, write() fails with EFBIG (SIGXFSZ ignored).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &old_);
    rlimit l = old_;
    l.rlim_cur = bytes;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &l) == 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
};

}  // namespace

TEST_CASE("write_image: a write that fails half-way leaves the old file and no partial one") {
  TempDir dir;
  const Image big =
      rf::test::random_image(97, 83, 3, 7);  // 97 KB as PFM, about 24 KB as PNG of noise
  const std::pair<const char*, int> outputs[] = {
      {"out.pfm", 0}, {"out.png", 0},  {"out.bmp", 0}, {"out.tga", 0},  {"out.hdr", 0},
      {"out.jpg", 0}, {"out.png", 16}, {"out.tif", 8}, {"out.tif", 16}, {"out.tif", 32}};
  for (const auto& [name, bits] : outputs) {
    CAPTURE(name);
    CAPTURE(bits);
    const std::string path = dir / name;
    {
      std::ofstream f(path);
      f << "the previous result";
    }
    std::string error;
    {
      FileSizeLimit limit(4096);
      try {
        io::write_image(path, big, bits);
      } catch (const IoError& e) {
        error = e.what();
      }
    }
    CHECK(error.rfind(path + ": ", 0) == 0);
    CHECK(error.find(".partial") == std::string::npos);  // the message names the destination
    CHECK(read_bytes(path) == "the previous result");
    CHECK(dir.files() == 1);
    fs::remove(path);
  }
}

TEST_CASE("write_image: success replaces the old file whole; the directory holds nothing else") {
  TempDir dir;
  const std::string path = dir / "out.pfm";
  {
    std::ofstream f(path);
    f << "old";
  }
  const Image img = rf::test::random_image(31, 17, 1, 7);
  io::write_image(path, img);
  CHECK(io::read_image(path).pixels == img.pixels);
  CHECK(dir.files() == 1);
  // New files get the permissions a plain fopen() would give them, not a temporary's 0600.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  const auto perms = fs::status(path).permissions();
  CHECK((perms & fs::perms::others_read) ==
        ((mask & S_IROTH) ? fs::perms::none : fs::perms::others_read));
}

TEST_CASE("write_atomically: a writer that throws leaves nothing; bad destinations are IoError") {
  TempDir dir;
  const std::string path = dir / "x.txt";
  CHECK_THROWS_AS(io::write_atomically(path,
                                       [](const std::string& temp) {
                                         std::ofstream(temp) << "half";
                                         throw IoError("encoder gave up");
                                       }),
                  IoError);
  CHECK(dir.files() == 0);
  CHECK_THROWS_WITH_AS(
      io::write_image(dir / "no-such-dir/out.png", rf::test::random_image(2, 2, 1, 7)),
      doctest::Contains("no-such-dir/out.png: cannot write"), IoError);
  fs::create_directories(dir / "a-dir.png");
  CHECK_THROWS_AS(io::write_image(dir / "a-dir.png", rf::test::random_image(2, 2, 1, 7)), IoError);
  CHECK(dir.files() == 1);
}

TEST_CASE("rfcli filter: a failed write leaves an existing output untouched, one line, exit 2") {
  TempDir dir;
  const std::string rfcli = std::string(RF_BINARY_DIR) + "/bin/rfcli";
  REQUIRE(fs::exists(rfcli));
  io::write_image(dir / "in.pfm", rf::test::random_image(120, 90, 3, 7));
  {
    std::ofstream f(dir / "out.pfm");
    f << "the previous result";
  }
  // ulimit -f counts 512-byte blocks: 8 blocks, far less than the 130 KB the output needs.
  const std::string cmd = "cd '" + dir.path() + "' && trap '' XFSZ && ulimit -f 8 && '" + rfcli +
                          "' filter in.pfm out.pfm --backend cpu >stdout.txt 2>stderr.txt";
  const int raw = std::system(("sh -c \"" + cmd + "\"").c_str());
  REQUIRE(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 2);
  const std::string err = read_bytes(dir / "stderr.txt");
  CAPTURE(err);
  CHECK(err.rfind("rfcli: out.pfm: write error", 0) == 0);
  CHECK(err.find('\n') == err.size() - 1);
  CHECK(read_bytes(dir / "out.pfm") == "the previous result");
  CHECK(dir.files() == 4);  // in.pfm, out.pfm, stdout.txt, stderr.txt
}
