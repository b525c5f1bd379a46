#!/usr/bin/env bash
# The classroom screenshots of docs/classroom/: the response view (Gaussian order 3 against the
# Gaussian) and the algorithm race, rfstudio offscreen at 1280x800 with the panels and the lesson
# card, on whatever backend rfstudio picks (CUDA with a GPU, otherwise the CPU).
#   scripts/classroom-screenshots.sh RFSTUDIO OUT_DIR SUFFIX
# writes OUT_DIR/response-view-SUFFIX.png and OUT_DIR/algorithm-race-SUFFIX.png, and prints the
# race's timings (the line "rfstudio: algorithm race on ..."). Where pngquant is installed the
# PNGs are shrunk for the docs (under 200 KB); elsewhere shrink them afterwards with
#   pngquant --quality=80-98 --speed 1 --force --ext .png OUT_DIR/*-SUFFIX.png
# Run from the repository root (the presets are read from assets/presets).
set -euo pipefail
studio=$1
out=$2
suffix=$3
mkdir -p "$out"
"$studio" --offscreen --frames 3 --width 1280 --height 800 \
  --preset assets/presets/gaussian-orders.json --order 3 \
  --screenshot "$out/response-view-$suffix.png"
"$studio" --offscreen --frames 3 --width 1280 --height 800 \
  --preset assets/presets/algorithm-race.json --race \
  --screenshot "$out/algorithm-race-$suffix.png"
if command -v pngquant > /dev/null; then
  pngquant --quality=80-98 --speed 1 --force --ext .png \
    "$out/response-view-$suffix.png" "$out/algorithm-race-$suffix.png"
fi
ls -l "$out/response-view-$suffix.png" "$out/algorithm-race-$suffix.png"
