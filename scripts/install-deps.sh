#!/usr/bin/env bash
# Installs every build and test dependency of Recursive Filter Studio from Debian 12's packages.
# Idempotent: packages already present are skipped; apt-get runs only when something is missing.
# The CUDA toolkit is optional and expected at /usr/local/cuda (a CPU-only build happens without it).
# `install-deps.sh fuzz` adds clang 14 with its sanitizer and libFuzzer runtimes and its OpenMP
# (scripts/fuzz.sh); the main build and CI do not need them. OpenBLAS becomes NumPy's BLAS (Debian
# links it to the reference BLAS otherwise, 8x slower at rfstudio.dask's products).
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libimgui-dev libglfw3-dev python3-glad libstb-dev doctest-dev libcli11-dev nlohmann-json3-dev
  libturbojpeg0-dev libpng-dev libtiff-dev
  libegl-dev libgl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri
  xvfb xauth ffmpeg python3
  pybind11-dev python3-dev python3-numpy python3-scipy python3-dask python3-distributed python3-zarr
  libopenblas0-pthread
  python3-pip python3-setuptools python3-wheel python3-venv
)
for extra in "$@"; do
  case "$extra" in
    fuzz) packages+=(clang-14 libclang-rt-14-dev libomp-14-dev) ;;
    *) echo "install-deps: unknown package set '$extra' (fuzz)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
