// The status bar's text fitting: cut with "..." at character boundaries, widths shared so that
// short parts stay whole.
#include <doctest/doctest.h>

#include <string>

#include "app/gui/text_fit.h"

using namespace rf::gui;

namespace {

// Every byte one unit wide, except UTF-8 continuation bytes (a character is one unit).
float units(std::string_view s) {
  float n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1.0f : 0.0f;
  return n;
}

}  // namespace

TEST_CASE("text fit: what fits stays, what does not is cut with dots") {
  const std::string line =
      "CPU, OpenMP 2 threads (CUDA unavailable: this build of rfstudio has no CUDA backend)";
  CHECK(ellipsize(line, 200, units) == line);
  CHECK(ellipsize(line, units(line), units) == line);
  const std::string cut = ellipsize(line, 20, units);
  CHECK(cut == "CPU, OpenMP 2 thr...");
  CHECK(units(cut) <= 20);
  CHECK(ellipsize(line, 3, units) == "...");
  CHECK(ellipsize(line, 2, units).empty());
  // Trailing spaces before the dots go; a multi-byte character is never split.
  CHECK(ellipsize("ab cd", 4, units) == "a...");
  CHECK(ellipsize("ab   cd", 6, units) == "ab...");
  const std::string sigma = "s\xcf\x83\xcf\x83\xcf\x83\xcf\x83 end";  // s then four sigmas
  const std::string s5 = ellipsize(sigma, 6, units);
  CHECK(s5 == "s\xcf\x83\xcf\x83...");
}

TEST_CASE("text fit: shared widths keep the short parts whole") {
  CHECK(share_width({10, 20}, 40) == std::vector<float>{10, 20});
  // 100 px for 10 + 300 + 80: the short part keeps its 10, the others split the 90 left.
  const std::vector<float> w = share_width({10, 300, 80}, 100);
  CHECK(w[0] == 10);
  CHECK(w[1] == doctest::Approx(45));
  CHECK(w[2] == doctest::Approx(45));
  const std::vector<float> tight = share_width({10, 300, 30}, 60);
  CHECK(tight[0] == 10);
  CHECK(tight[1] == doctest::Approx(25));
  CHECK(tight[2] == doctest::Approx(25));
  float sum = 0;
  for (float v : share_width({500, 700, 20, 5}, 300)) sum += v;
  CHECK(sum == doctest::Approx(300));
  CHECK(share_width({}, 10).empty());
}
