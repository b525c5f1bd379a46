#!/usr/bin/env bash
# The edge-aware filter on a GPU machine, on prebuilt binaries:
#   scripts/edge-cuda-compare.sh [BUILD_DIR]
# 1. the CUDA edge-aware tests (every algorithm against the CPU backend and the double reference,
#    every image layout);
# 2. compute-sanitizer racecheck and memcheck on the image-layout test (every algorithm and
#    layout);
# 3. rfcli bench --filters edge-aware at 2048^2, twice in the same run;
# 4. with --profile as second argument, Nsight Compute on one frame of each algorithm.
# Every log lands in $OUT (default ./out).
set -uo pipefail
build=${1:-build-gpu}
profile=${2:-}
out=${OUT:-out}
mkdir -p "$out"
status=0

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  git rev-parse HEAD 2>/dev/null || true
} >"$out/device.txt" 2>&1

echo "== CUDA edge-aware tests"
"$build/bin/rf_cuda_tests" -tc='*edge*' --duration=true >"$out/edge-tests.txt" 2>&1 || status=1
grep -E "worst|reference|^\[doctest\]" "$out/edge-tests.txt"

echo "== compute-sanitizer"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in racecheck memcheck; do
  cmd=("$sanitizer" --tool "$tool" --error-exitcode 3 "$build/bin/rf_cuda_tests"
    "-tc=*edge*every image layout*")
  echo "\$ ${cmd[*]}" >"$out/edge-sanitizer-$tool.txt"
  "${cmd[@]}" >>"$out/edge-sanitizer-$tool.txt" 2>&1 || status=1
  tail -3 "$out/edge-sanitizer-$tool.txt"
done

echo "== benchmark, twice"
bench=("$build/bin/rfcli" bench --filters edge-aware --backend cuda --sizes 2048 --no-hd)
"${bench[@]}" --json "$out/edge-bench-default.json" >"$out/edge-bench-default.txt" 2>&1 || status=1
"${bench[@]}" --json "$out/edge-bench-default2.json" >"$out/edge-bench-default2.txt" 2>&1 ||
  status=1
for f in default default2; do
  echo "-- $f"
  grep -E "^rfstudio +[a-z]+ +edge-aware" "$out/edge-bench-$f.txt"
done

if [ "$profile" = "--profile" ]; then
  # bench runs A, C, D, exact in turn, each 5 warm-up frames and --iterations timed ones (here
  # 1): 6 frames of 4 passes, so the split kernel's launches are C's 24, then D's.
  echo "== Nsight Compute"
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  one=(bench --filters edge-aware --backend cuda --sizes 2048 --no-hd --iterations 1)
  profile_one() {
    local name=$1
    shift
    "$ncu" --set full "$@" -o "$out/edge-ncu-$name" -f "$build/bin/rfcli" "${one[@]}" \
      >"$out/edge-ncu-$name.txt" 2>&1 || status=1
  }
  profile_one domain -k regex:domain_steps -c 1
  profile_one a -k regex:line_a_channel -c 4
  profile_one c -k regex:line_approx_split -c 4
  profile_one d -k regex:line_approx_split --launch-skip 24 -c 4
  profile_one exact -k regex:exact_rows -c 4
  ls "$out"/edge-ncu-*.ncu-rep
fi
exit $status
