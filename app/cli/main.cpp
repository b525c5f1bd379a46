// rfcli: command-line filtering, ground truth, coefficients, image differences and benchmarks.
// Every error is one line on stderr and exit status 2.
#include "app/cli/cli.h"

int main(int argc, char** argv) {
  return rf::cli::run(argc, argv);
}
