#include <cstdio>

int main() {
  std::puts("rfcli: not implemented yet");
  return 2;
}
