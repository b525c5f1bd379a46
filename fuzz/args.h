// Fuzz input as a command line: newline-separated tokens after the program name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rf::fuzz {

struct CommandLine {
  std::vector<std::string> tokens;
  std::vector<char*> argv;  // points into tokens; argv[argc] is null as main() expects
  int argc() const { return int(argv.size()) - 1; }
};

inline CommandLine command_line(const char* program, const std::uint8_t* data, std::size_t size) {
  CommandLine c;
  c.tokens.emplace_back(program);
  std::string token;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      c.tokens.push_back(token);
      token.clear();
    } else {
      token.push_back(char(data[i]));
    }
  }
  if (!token.empty()) c.tokens.push_back(token);
  for (std::string& t : c.tokens) c.argv.push_back(t.data());
  c.argv.push_back(nullptr);
  return c;
}

}  // namespace rf::fuzz
