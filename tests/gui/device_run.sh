#!/usr/bin/env bash
# rfstudio on the GPU machine (see ../shared/device/README.md): offscreen through NVIDIA's EGL
# device platform with the CUDA backend and the pipelined CUDA-GL path. Screenshots and one log go
# to $OUT.
# The GPU machine lacks some of rfstudio's shared libraries; copy them next to the binary first:
#   mkdir -p build-gui-cuda/bin/devlibs && for l in libstb.so.0 libglfw.so.3 libturbojpeg.so.0 \
#     libX11.so.6 libxcb.so.1 libXau.so.6 libXdmcp.so.6 libbsd.so.0 libmd.so.0 libgomp.so.1 \
#     libpng16.so.16 libtiff.so.6 libwebp.so.7 libzstd.so.1 liblzma.so.5 libLerc.so.4 \
#     libjbig.so.0 libjpeg.so.62 libdeflate.so.0; do
#     cp -L /lib/x86_64-linux-gnu/$l build-gui-cuda/bin/devlibs/; done
# (rfcli and the CUDA tests need the same, less the X and GLFW ones; `ldd` lists what is missing.)
# Run from the checkout's root with `.gl` and `build-gui-cuda/bin` carried:
#   source .gl/setup.sh; export LD_LIBRARY_PATH=$PWD/build-gui-cuda/bin/devlibs;
#   tests/gui/device_run.sh
# The recording run needs an ffmpeg on PATH there; without one it says so and is skipped.
set -uo pipefail
studio=${STUDIO:-build-gui-cuda/bin/rfstudio}
gui_tests=${GUI_TESTS:-build-gui-cuda/bin/rf_gui_tests}
out=${OUT:-out/device}
mkdir -p "$out"
log="$out/device-run.log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$log"

run() {  # screenshot path or "", then rfstudio options
  local png=$1
  shift
  echo "== $*" | tee -a "$log"
  if [ -n "$png" ]; then set -- "$@" --screenshot "$png"; fi
  # A run that hangs is stopped and said so; the ones after it still run.
  timeout "${RUN_TIMEOUT:-180}" "$studio" --offscreen "$@" 2>&1 | tee -a "$log" | tail -4
  [ "${PIPESTATUS[0]}" -ne 124 ] || echo "== stopped after ${RUN_TIMEOUT:-180} s" | tee -a "$log"
}

# The pipeline's correctness on the GPU: every shown result is its own original filtered, YUYV
# and NV12 converted on the GPU exactly as on the CPU, recordings with every frame in order.
echo "== rf_gui_tests: the pipeline and GPU faults on the GPU" | tee -a "$log"
# The kernel-fault case runs last, at the end of this script: after a kernel has faulted on the
# GPU (in a child process), CUDA still computes but CUDA-GL interop on that machine no longer does
# (an H100 with driver 580: maps wait forever and the textures stay empty) until it is reset. Run
# rf_cuda_tests, whose fault cases include one, after this script or on another machine.
gui_test() {
  echo "-- $1" | tee -a "$log"
  timeout "${TEST_TIMEOUT:-120}" "$gui_tests" -tc="$1" 2>&1 | tee -a "$log" |
    grep -E "skipped|ERROR|test cases"
  [ "${PIPESTATUS[0]}" -ne 124 ] || echo "== stopped after ${TEST_TIMEOUT:-120} s" | tee -a "$log"
}
for tc in "pipeline on the GPU*" "GPU faults: a simulated*" "GPU faults: out of device memory*" \
  "GPU faults: a texture*"; do
  gui_test "$tc"
done

# The teaching views on the CUDA backend through interop (512x512 images, UI at 1600x960).
run "$out/split.png" --frames 3 --view split --sigma 6
run "$out/tiles.png" --frames 3 --view tiles --ext repeat --sigma 16 --pattern steps
run "$out/impulse.png" --frames 3 --view impulse --ext mirror --sigma 12 --probe 20 --probe-y 24
run "$out/profile.png" --frames 3 --view profile --ext clamp --sigma 24 --pattern steps

# Frame times at 3840x2160, order 3, mirror, sigma 8, UI drawn at 1920x1080. The last summary line
# of each run ("pipelined frames ...") gives the GPU frame-to-frame time: the intervals between
# consecutive frames' completions, uploads overlapping the previous frames' filters. Several
# frames are queued per drawn frame, so the intervals come in bursts: their mean is the GPU time
# per frame the path sustains, their median the pace within a burst.
# Targets (on the mean): <= 0.9 ms with RGBA8 frames, <= 0.6 ms with YUYV frames.
perf=(--width 1920 --height 1080 --view result --sigma 8 --order 3 --ext mirror --no-truth)
# A new frame whenever the pipeline takes one, the host producing none (the frame is re-sent from
# pinned staging each time, upload and conversion included): what the GPU path takes per frame.
for format in rgba8 yuyv nv12; do
  run "" --frames 600 --hide-ui --upload-every-frame --pattern noise --pattern-size 3840x2160 \
    --pattern-format "$format" "${perf[@]}"
done
# A moving source stepped one frame per drawn frame, rendered by the host each time (its cost
# shows in the wall clock, the GPU times stay those of the path).
for format in rgba8 yuyv; do
  run "" --frames 240 --pace step --pattern moving-bar --pattern-size 3840x2160 \
    --pattern-format "$format" "${perf[@]}"
done
# A still filtered every frame (--live): it stays on the GPU, no upload or conversion.
run "" --frames 240 --live --pattern noise --pattern-size 3840x2160 "${perf[@]}"
# The engine's stages, timed one by one (no CUDA graph), and the JSON sidecar.
run "$out/perf-4k.png" --frames 60 --upload-every-frame --pattern moving-bar \
  --pattern-size 3840x2160 --width 1920 --height 1080 --view split --sigma 8 --order 3 \
  --ext mirror --no-truth --gpu-stages --export "$out/perf-4k"
rm -f "$out/perf-4k-result.pfm" "$out/perf-4k-result.png" "$out/perf-4k-view.png"

# The classroom views on the CUDA backend: the response view and the algorithm race of the built-in
# image (docs/classroom/*-cuda.png, shrunk with pngquant where it exists), then a race on a
# 3840x2160 frame, where the block-parallel algorithms have room to approach the copy floor. The
# race's timings are the "rfstudio: algorithm race on ..." lines of the log.
scripts/classroom-screenshots.sh "$studio" "$out" cuda 2>&1 | tee -a "$log" | grep -v "EGL"
run "$out/algorithm-race-4k.png" --frames 3 --view race --race --pattern noise \
  --pattern-size 3840x2160 --sigma 8 --order 3 --ext mirror --no-truth

# Recording 1080p while the UI runs freely (target: UI >= 500 fps). The moving bar delivers 30
# frames a second in real time; every one is recorded. The first summary line gives the UI rate.
if command -v ffmpeg > /dev/null; then
  run "" --frames 3000 --pace realtime --pattern moving-bar --pattern-size 1920x1080 \
    --width 1920 --height 1080 --sigma 8 --order 3 --ext mirror --no-truth \
    --record "$out/record-1080p.mp4"
  ffprobe -v error -count_frames -select_streams v:0 \
    -show_entries stream=nb_read_frames,width,height -of csv=p=0 "$out/record-1080p.mp4" |
    sed 's/^/recorded (width, height, frames): /' | tee -a "$log"
  rm -f "$out/record-1080p.mp4"
else
  # No ffmpeg here: a sink that reads the raw frames and throws them away stands in for it, so the
  # run measures the studio's side of recording (pinned readback, the pipe) without the encoder.
  sink=$(mktemp -d)
  printf '#!/bin/sh\ncat >/dev/null\n' >"$sink/ffmpeg"
  chmod +x "$sink/ffmpeg"
  echo "== recording 1080p into a sink (no ffmpeg on PATH: the encoder's cost is not included)" |
    tee -a "$log"
  PATH="$sink:$PATH" run "" --frames 3000 --pace realtime --pattern moving-bar \
    --pattern-size 1920x1080 --width 1920 --height 1080 --sigma 8 --order 3 --ext mirror \
    --no-truth --record "$out/record-1080p.mp4"
  rm -rf "$sink" "$out/record-1080p.mp4"
fi

# Last: a real kernel fault, after which this machine's CUDA-GL interop is spoilt (see above).
gui_test "GPU faults: a kernel fault*"
