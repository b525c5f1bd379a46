// The front ends use the library's public headers only: every filters/ header that app/cli,
// app/gui, app/sources, app/io and python include is one of RF_PUBLIC_HEADERS or
// RF_PUBLIC_CUDA_HEADERS (filters/CMakeLists.txt).
// The benchmark beside the library (bench/) may include the others; rfcli reaches them through it.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

const fs::path kSource = RF_SOURCE_DIR;

// The headers listed in filters/CMakeLists.txt's set(RF_PUBLIC_HEADERS ...) and
// set(RF_PUBLIC_CUDA_HEADERS ...), as "filters/core/spec.h".
std::set<std::string> public_headers() {
  std::ifstream f(kSource / "filters/CMakeLists.txt");
  std::stringstream text;
  text << f.rdbuf();
  const std::string s = text.str();
  std::set<std::string> out;
  for (const std::string open : {"set(RF_PUBLIC_HEADERS", "set(RF_PUBLIC_CUDA_HEADERS"}) {
    const std::size_t begin = s.find(open);
    REQUIRE(begin != std::string::npos);
    std::istringstream list(
        s.substr(begin + open.size(), s.find(')', begin) - begin - open.size()));
    for (std::string name; list >> name;) out.insert("filters/" + name);
  }
  return out;
}

}  // namespace

TEST_CASE(
    "front ends: rfcli, rfstudio, the sources, image I/O and Python include public headers only") {
  const std::set<std::string> allowed = public_headers();
  CHECK(allowed.count("filters/core/spec.h") == 1);
  int files = 0;
  for (const char* dir : {"app/cli", "app/gui", "app/sources", "app/io", "python"})
    for (const auto& entry : fs::recursive_directory_iterator(kSource / dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".h" && ext != ".cu" && ext != ".cuh") continue;
      ++files;
      std::ifstream f(entry.path());
      for (std::string line; std::getline(f, line);) {
        const std::string include = "#include \"filters/";
        if (line.rfind(include, 0) != 0) continue;
        const std::string header = line.substr(10, line.find('"', 10) - 10);
        CAPTURE(entry.path().string());
        CHECK_MESSAGE(allowed.count(header) == 1, header << " is internal to the library");
      }
    }
  CHECK(files > 10);
}
