#!/usr/bin/env bash
# rfstudio on the GPU machine (see ../shared/device/README.md): offscreen through NVIDIA's EGL
# device platform with the CUDA backend and CUDA-GL interop. Screenshots and logs go to $OUT.
# Run from the checkout's root with `.gl` and `build-gui-cuda/bin` carried:
#   source .gl/setup.sh; tests/gui/device_run.sh
set -uo pipefail
studio=${STUDIO:-build-gui-cuda/bin/rfstudio}
out=${OUT:-out/device}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

shot() {  # name, then rfstudio options
  local name=$1
  shift
  echo "== $name: $*"
  "$studio" --offscreen --screenshot "$out/$name.png" "$@" 2>&1 | tee "$out/$name.log" | tail -4
}

# The views on the CUDA backend, interop path (512x512 astronaut, UI at 1600x960).
shot split --frames 3 --view split --sigma 6
shot diff-ignore --frames 3 --view diff --ext ignore --sigma 8 --truth fir
shot tiles --frames 3 --view tiles --ext mirror --sigma 16 --pattern steps

# Frame time: a 3840x2160 RGBA8 frame uploaded, filtered and written through interop every
# frame (--live), UI drawn at 1920x1080; the summary lines give the medians.
shot perf-4k --frames 200 --live --pattern noise --pattern-size 3840x2160 --width 1920 \
  --height 1080 --view result --sigma 8 --order 3 --ext mirror --no-truth
shot perf-4k-stages --frames 60 --live --pattern noise --pattern-size 3840x2160 --width 1920 \
  --height 1080 --view result --sigma 8 --order 3 --ext mirror --no-truth --gpu-stages \
  --export "$out/perf-4k"
