#!/usr/bin/env bash
# rfstudio on the GPU machine (see ../shared/device/README.md): offscreen through NVIDIA's EGL
# device platform with the CUDA backend and CUDA-GL interop. Screenshots and one log go to $OUT.
# The GPU machine lacks some of rfstudio's shared libraries; copy them next to the binary first:
#   mkdir -p build-gui-cuda/bin/devlibs && for l in libstb.so.0 libglfw.so.3 libturbojpeg.so.0 \
#     libX11.so.6 libxcb.so.1 libXau.so.6 libXdmcp.so.6 libbsd.so.0 libmd.so.0 libgomp.so.1; do
#     cp -L /lib/x86_64-linux-gnu/$l build-gui-cuda/bin/devlibs/; done
# Run from the checkout's root with `.gl` and `build-gui-cuda/bin` carried:
#   source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/build-gui-cuda/bin/devlibs;
#   tests/gui/device_run.sh
set -uo pipefail
studio=${STUDIO:-build-gui-cuda/bin/rfstudio}
out=${OUT:-out/device}
mkdir -p "$out"
log="$out/device-run.log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$log"

run() {  # screenshot path or "", then rfstudio options
  local png=$1
  shift
  echo "== $*" | tee -a "$log"
  if [ -n "$png" ]; then set -- "$@" --screenshot "$png"; fi
  "$studio" --offscreen "$@" 2>&1 | tee -a "$log" | tail -3
}

# The teaching views on the CUDA backend through interop (512x512 images, UI at 1600x960).
run "$out/split.png" --frames 3 --view split --sigma 6
run "$out/tiles.png" --frames 3 --view tiles --ext repeat --sigma 16 --pattern steps
run "$out/impulse.png" --frames 3 --view impulse --ext mirror --sigma 12 --probe 20 --probe-y 24
run "$out/profile.png" --frames 3 --view profile --ext clamp --sigma 24 --pattern steps

# Frame time of a 3840x2160 RGBA8 source, UI drawn at 1920x1080; the summary lines give medians.
# Video-like: the moving bar is a new frame every frame, uploaded each time.
run "" --frames 240 --pattern moving-bar --pattern-size 3840x2160 --width 1920 --height 1080 \
  --view result --sigma 8 --order 3 --ext mirror --no-truth
# A still filtered every frame (--live): it stays on the GPU, no upload.
run "" --frames 240 --live --pattern noise --pattern-size 3840x2160 --width 1920 --height 1080 \
  --view result --sigma 8 --order 3 --ext mirror --no-truth
# Every frame uploaded again (--live on a still re-filters; the first run uploads), with stages.
run "$out/perf-4k.png" --frames 60 --live --pattern moving-bar --pattern-size 3840x2160 \
  --width 1920 --height 1080 --view split --sigma 8 --order 3 --ext mirror --no-truth \
  --gpu-stages --export "$out/perf-4k"
rm -f "$out/perf-4k-result.pfm" "$out/perf-4k-result.png" "$out/perf-4k-view.png"

# The classroom views on the CUDA backend: the response view and the algorithm race of the built-in
# image (docs/classroom/*-cuda.png, shrunk with pngquant where it exists), then a race on a
# 3840x2160 frame, where the block-parallel algorithms have room to approach the copy floor. The
# race's timings are the "rfstudio: algorithm race on ..." lines of the log.
scripts/classroom-screenshots.sh "$studio" "$out" cuda 2>&1 | tee -a "$log" | grep -v "EGL"
run "$out/algorithm-race-4k.png" --frames 3 --view race --race --pattern noise \
  --pattern-size 3840x2160 --sigma 8 --order 3 --ext mirror --no-truth
