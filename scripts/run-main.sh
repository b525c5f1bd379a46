#!/usr/bin/env bash
# The main job: filter the default asset with rfcli and say where the result is.
set -euo pipefail
build=${1:-build}
mkdir -p out
"$build/bin/rfcli" filter assets/astronaut.png out/astronaut-gaussian.png --filter gaussian \
  --sigma 4 --order 3 --ext mirror
echo "result: out/astronaut-gaussian.png"
