#!/usr/bin/env bash
# The one command a GPU run executes, on prebuilt binaries (nothing is compiled there):
#   scripts/device-run.sh [BUILD_DIR] [tests|sanitize|bench|python|all]...
# CUDA tests, a compute-sanitizer memcheck + racecheck subset, the benchmark, and the Python
# module's GPU tests (where python3 with NumPy is installed); every log and result lands in $OUT
# (default ./out).
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

# The suite's kernel-fault case leaves CUDA-GL interop on the machine broken until it is reset
# (compute is unaffected): run tests/gui/device_run.sh before this, or on a fresh machine.
if has tests; then
  echo "== CUDA tests"
  "$build/bin/rf_cuda_tests" --duration=true >"$out/cuda-tests.txt" 2>&1 || status=1
  tail -4 "$out/cuda-tests.txt"
fi

if has sanitize; then
  echo "== compute-sanitizer"
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  subset='*small odd sizes*,*surfaces*,*RGBA8*,*summed-area*,*rt baseline*,*misaligned rows*'
  subset="$subset,*agree with each other*,*derivative frames*,*array passes*,*one axis of a wide*,*FIR method*"
  for tool in memcheck racecheck; do
    cmd=("$sanitizer" --tool "$tool" --error-exitcode 3 "$build/bin/rf_cuda_tests" "-tc=$subset")
    echo "\$ ${cmd[*]}" >"$out/sanitizer-$tool.txt"
    "${cmd[@]}" >>"$out/sanitizer-$tool.txt" 2>&1 || status=1
    tail -3 "$out/sanitizer-$tool.txt"
  done
fi

# The benchmark record: one JSON file (h100.json on an H100, h200.json on an H200) built by four
# runs appended to each other. Each run's baselines are measured at its own sigmas, beside ours.
#   grid   sizes 512..8192, 1920x1080 and 3840x2160 (RGBA8 for four channels), orders 1-5, every
#          extension, one and four channels, Gaussian and SAT, sigma 4, the block algorithms and
#          auto beside them (each auto row names what it ran)
#   rt     the one-thread-per-line algorithm beside them: orders 1 and 3, mirror, up to 4096^2
#   sweep  4096^2, one channel, orders 1 and 3, every extension but ignore, every algorithm,
#          sigma 1..100 (scripts/plot-sigma-sweep.py draws it)
#   edge   the edge-aware filter's algorithms a, c, d, exact on 2048^2, 4096^2, 8192^2 and the
#          HD frames
# Estimated from the previous record's times: about 3 minutes on an H100 (a case's timed runs
# stop after 0.5 s of GPU time, at least 10 of them: RT and the plain FIR at large sigma).
if has bench; then
  echo "== benchmark"
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 |
    grep -o 'H[0-9]00' | tr 'H' 'h')
  json=${BENCH_JSON:-$out/${gpu:-gpu}.json}
  rm -f "$json"
  bench=("$build/bin/rfcli" bench --backend cuda --json "$json" --append)
  grid=("${bench[@]}" --sizes "${BENCH_SIZES:-512,1024,2048,4096,8192}"
    --orders "${BENCH_ORDERS:-1,2,3,4,5}" --ext ignore,zero,clamp,repeat,mirror,reflect101,constant --channels 1,4
    --filters gaussian,sat --sigmas 4 --algos "${BENCH_ALGOS:-alg4,alg5,alg6,auto}")
  rt=("${bench[@]}" --sizes 512,1024,2048,4096 --orders 1,3 --ext mirror --channels 1,4
    --sigmas 4 --algos rt --no-baselines)
  sweep=("${bench[@]}" --sizes 4096 --no-hd --orders 1,3 --ext zero,clamp,repeat,mirror,reflect101,constant
    --channels 1 --sigmas "${BENCH_SIGMAS:-1,2,4,8,16,32,64,100}"
    --algos "${BENCH_SWEEP_ALGOS:-rt,alg4,alg5,alg6}")
  # A sigma per axis beside the grid's one sigma: the same plans but for the column filter.
  axes=("${bench[@]}" --sizes 1024,4096 --orders 1,3 --ext zero,mirror --channels 1,4
    --sigmas 4 --sigma-y 16 --algos alg4,alg5,alg6 --no-baselines)
  edge=("${bench[@]}" --filters edge-aware --sizes 2048,4096,8192)
  : >"$out/bench.txt"
  start=$SECONDS
  for part in grid rt sweep axes edge; do
    eval "args=(\"\${${part}[@]}\")"  # the part's command line, by its array's name
    echo "\$ ${args[*]}" >>"$out/bench.txt"
    "${args[@]}" >>"$out/bench.txt" 2>&1 || status=1
    echo "== bench $part done at $((SECONDS - start)) s" | tee -a "$out/bench.txt"
  done
  if [ -s "$json" ] && command -v python3 >/dev/null; then
    python3 scripts/plot-sigma-sweep.py "$json" "$out/sigma-sweep.svg" >>"$out/bench.txt" 2>&1 ||
      status=1
  fi
  tail -3 "$out/bench.txt"
fi
if has python; then
  echo "== Python module on the GPU"
  log="$out/python-cuda.txt"
  if PYTHONPATH="$build/python" python3 -c "import numpy, rfstudio" >"$log" 2>&1; then
    PYTHONPATH="$build/python" python3 tests/python/test_rfstudio_cuda.py -v >"$log" 2>&1
    rc=$?
    # 77: no usable device, which the test says on its first line.
    [ $rc -eq 0 ] || [ $rc -eq 77 ] || status=1
    tail -3 "$log"
  else
    echo "python3 cannot import numpy and rfstudio here: $(tail -1 "$log")"
  fi
fi
exit $status
