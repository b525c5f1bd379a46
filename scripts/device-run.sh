#!/usr/bin/env bash
# The one command a GPU run executes, on prebuilt binaries (nothing is compiled there):
#   scripts/device-run.sh [BUILD_DIR] [tests|sanitize|bench|all]...
# CUDA tests, a compute-sanitizer memcheck + racecheck subset, and the benchmark; every log and
# result lands in $OUT (default ./out).
set -uo pipefail
build=${1:-build-gpu}
shift || true
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(all)
out=${OUT:-out}
mkdir -p "$out"
status=0

has() {
  local s
  for s in "${steps[@]}"; do [ "$s" = "$1" ] || [ "$s" = all ] && return 0; done
  return 1
}

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  git rev-parse HEAD 2>/dev/null || true
} >"$out/device.txt" 2>&1

if has tests; then
  echo "== CUDA tests"
  "$build/bin/rf_cuda_tests" --duration=true >"$out/cuda-tests.txt" 2>&1 || status=1
  tail -4 "$out/cuda-tests.txt"
fi

if has sanitize; then
  echo "== compute-sanitizer"
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  subset='*small odd sizes*,*surfaces*,*RGBA8*,*summed-area*,*rt baseline*'
  for tool in memcheck racecheck; do
    cmd=("$sanitizer" --tool "$tool" --error-exitcode 3 "$build/bin/rf_cuda_tests" "-tc=$subset")
    echo "\$ ${cmd[*]}" >"$out/sanitizer-$tool.txt"
    "${cmd[@]}" >>"$out/sanitizer-$tool.txt" 2>&1 || status=1
    tail -3 "$out/sanitizer-$tool.txt"
  done
fi

if has bench; then
  echo "== benchmark"
  "$build/bin/rfcli" bench --backend cuda --sizes "${BENCH_SIZES:-512,1024,2048,4096,8192}" \
    --orders "${BENCH_ORDERS:-1,2,3,4,5}" --ext ignore,zero,clamp,repeat,mirror \
    --channels 1,4 --filters gaussian,sat --json "$out/h100.json" >"$out/bench.txt" 2>&1 ||
    status=1
  tail -5 "$out/bench.txt"
fi
exit $status
