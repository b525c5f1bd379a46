#!/usr/bin/env bash
# The CPU library, rfcli, rfstudio and the CPU and GUI test suites built with AddressSanitizer
# and UBSan (gcc, no CUDA) in their own build directory, then the tests run under them: a heap
# error, undefined behaviour or a leak in any test, or in the rfcli and rfstudio processes the
# tests start, fails the run.
#
#   scripts/sanitize.sh                  build, then run the cpu and gui tests
#   scripts/sanitize.sh --build TARGET.. build these targets only (scripts/soak.sh does)
#
# Variables: ASAN_BUILD (default build-asan), JOBS (default all cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ASAN_BUILD:-$root/build-asan}
jobs=${JOBS:-$(nproc)}
targets=(rfcli rfstudio rf_tests rf_gui_tests)
run_tests=1
if [ "${1:-}" = "--build" ]; then
  shift
  targets=("$@")
  run_tests=0
fi

"$root/scripts/install-deps.sh"
# The filter library at -O1 keeps the sanitized suites fast enough for CI; the rest (rfcli,
# rfstudio, the tests), where no hot loop runs, at -O0, which compiles in about half the time under
# both sanitizers (a subcommand of rfcli: 31 s at -O1, 17 s at -O0). Frame pointers give whole
# stacks, -g1 their functions and lines (without the full debug information that costs compile
# time). The test files themselves take ASan alone (RF_TEST_OPTIONS): UBSan checks the code they
# test, and on them it costs 30-40% of their compile time. gcc's -Wmaybe-uninitialized misfires on
# std::regex and std::function under ASan's instrumentation.
flags="-O0 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
flags="$flags -Wno-maybe-uninitialized"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=None -DRF_WITH_CUDA=OFF -DRF_LIBRARY_OPTIMIZATION=-O1 \
  -DRF_TEST_OPTIONS=-fno-sanitize=undefined \
  "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]}"
[ "$run_tests" -eq 1 ] || exit 0

# shellcheck source=tests/sanitizers/env.sh
source "$root/tests/sanitizers/env.sh"
# The package and Python tests check installation and bindings, not memory: they run in the
# ordinary build (a sanitized library cannot be loaded into an unsanitized python3).
# The long numerical sweeps (every algorithm to each sigma cap, the 300 filters of the 2016
# paper's experiment, wide line maps, the float stages against the double reference) run the code
# the shorter cases of the same files run, only many more times: they stay in the ordinary build.
sweeps='every offered algorithm|line maps of wide Gaussians|numerical experiment: 300'
sweeps="$sweeps|fully overlapped stages in float|agrees with padded filtering on 257x131"
sweeps="$sweeps|every derivative, measure"
cd "$build" && ctest -L 'cpu|gui' -E "^(package|python)[.]|$sweeps" --output-on-failure -j "$jobs"
