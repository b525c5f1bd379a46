#!/usr/bin/env bash
# The main job: open rfstudio on the built-in image. Without a display, render the same UI
# offscreen (EGL) and say where the screenshot is and how to ask for other views.
set -euo pipefail
build=${1:-build}
studio="$build/bin/rfstudio"
if [ ! -x "$studio" ]; then
  echo "run-main: $studio was not built (the GUI needs libglfw3-dev, libimgui-dev, libegl-dev);" \
       "filtering with rfcli instead" >&2
  mkdir -p out
  "$build/bin/rfcli" filter assets/astronaut.png out/astronaut-gaussian.png --filter gaussian \
    --sigma 4 --order 3 --ext mirror
  echo "result: out/astronaut-gaussian.png"
  exit 0
fi
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  # Exit status 2 without options means the window could not open (rfstudio said why).
  status=0
  "$studio" || status=$?
  [ "$status" -ne 2 ] && exit "$status"
  echo "run-main: the window did not open; rendering offscreen instead"
else
  echo "run-main: no display (DISPLAY and WAYLAND_DISPLAY are unset), so rfstudio cannot open its window."
fi
mkdir -p out
cat <<'MSG'
rfstudio renders the same interface offscreen through EGL; for example:
  build/bin/rfstudio --offscreen --frames 3 --screenshot out/view.png --view diff --ext ignore
  build/bin/rfstudio --offscreen --screenshot out/tiles.png --view tiles --ext mirror --sigma 16
  views: original result diff split side tiles profile impulse; see build/bin/rfstudio --help
Rendering the default view now:
MSG
"$studio" --offscreen --frames 3 --view split --screenshot out/rfstudio.png
echo "screenshot: out/rfstudio.png"
