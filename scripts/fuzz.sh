#!/usr/bin/env bash
# Fuzzes the readers of outside bytes: builds the libFuzzer targets of fuzz/ with clang,
# AddressSanitizer and UBSan (a separate build directory), then runs each target for SECONDS
# seconds on its seeds and prints how many inputs it ran. Exit status 0 when no target crashed.
#
#   scripts/fuzz.sh SECONDS [TARGET...]     targets: image_reader preset_reader camera_yuv
#                                           camera_mjpeg rfcli_args rfstudio_args (default: all)
#
# Seeds: fuzz/seeds/TARGET/ (small committed files, made by fuzz/make_seeds.py), plus the images
# and presets of assets/. New interesting inputs accumulate in BUILD/corpus/TARGET/ across runs;
# a crashing input is saved as BUILD/artifacts/TARGET/crash-* and its report kept in
# BUILD/logs/TARGET.log. Variables: FUZZ_BUILD (default build-fuzz), JOBS (build jobs).
set -euo pipefail

usage() {
  echo "usage: scripts/fuzz.sh SECONDS [TARGET...]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
seconds=$1
shift
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -ge 1 ] || usage

root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz}
jobs=${JOBS:-$(nproc)}
all_targets=(image_reader preset_reader camera_yuv camera_mjpeg rfcli_args rfstudio_args)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz: unknown target '$t'" >&2; exit 2; }
done

"$root/scripts/install-deps.sh" fuzz
sanitizers="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
flags="-g -fno-omit-frame-pointer $sanitizers -fsanitize=fuzzer-no-link"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
  -DRF_WITH_CUDA=OFF -DRF_WITH_GUI=OFF -DBUILD_TESTING=OFF -DRF_FUZZ=ON >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]/#/fuzz_}"

# Extra seeds from assets/: the image reader gets the images, the preset reader the presets.
extra_seeds() {
  case "$1" in
    image_reader) find "$root/assets" -maxdepth 1 -type f \
      \( -name '*.png' -o -name '*.jpg' -o -name '*.pfm' \) -printf '%h\n' | sort -u ;;
    preset_reader) echo "$root/assets/presets" ;;
  esac
}

# A sanitizer report ends the run (halt_on_error); leaks are reported at the end of each input.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/logs"
failed=0
printf '\n%-15s %12s %10s %8s  %s\n' target executions "exec/s" corpus result
summary=()
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t
  artifacts=$build/artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  dict=()
  [ -f "$root/fuzz/dicts/$t.dict" ] && dict=("-dict=$root/fuzz/dicts/$t.dict")
  # shellcheck disable=SC2046
  set +e
  (cd "$root" && "$build/bin/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 \
    -close_fd_mask=3 -timeout=10 -rss_limit_mb=2560 -malloc_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$artifacts/" "${dict[@]}" "$corpus" "$root/fuzz/seeds/$t" \
    $(extra_seeds "$t")) >"$build/logs/$t.log" 2>&1
  status=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/logs/$t.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$build/logs/$t.log" | tail -1)
  units=$(find "$corpus" -type f | wc -l)
  if [ "$status" -eq 0 ]; then
    result=ok
  else
    result="CRASH (exit $status): $(ls -t "$artifacts" 2>/dev/null | head -1); see $build/logs/$t.log"
    failed=1
  fi
  printf '%-15s %12s %10s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$units" "$result"
done
exit $failed
