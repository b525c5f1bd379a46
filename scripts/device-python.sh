#!/usr/bin/env bash
# The Python module on a GPU machine, for that machine's own python3 (which has CuPy and PyTorch,
# and NumPy 2 where Debian has 1.x): configure the library and the module alone for sm_90, build,
# run the module's CPU and GPU suites and the Python page's examples, build a wheel from the same
# tree and import it from outside it; with `peers`, time rfstudio beside cupyx and torchvision
# (bench/python_gpu_peers.py, several minutes: torchvision's kernel grows with sigma).
#
#   OUT=out scripts/device-python.sh [PYBIND11_CMAKE_DIR] [peers]
#
# PYBIND11_CMAKE_DIR: where pybind11Config.cmake is, when the machine has no pybind11 of its own
# (Debian's /usr/lib/cmake/pybind11 copied there with /usr/include/pybind11 beside, as
# PREFIX/lib/cmake/pybind11 and PREFIX/include/pybind11). Logs and records go to $OUT.
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
py=$(command -v python3)
pybind=${1:-}
status=0
{
  "$py" --version
  "$py" -c "import numpy, cupy, torch; print('numpy', numpy.__version__, 'cupy', cupy.__version__, 'torch', torch.__version__)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} 2>&1 | tee "$out/python-device.txt"
build=${BUILD:-/tmp/rf-python-build}
start=$SECONDS
args=(-DCMAKE_BUILD_TYPE=Release -DRF_WITH_APPS=OFF -DRF_WITH_GUI=OFF -DCMAKE_CUDA_ARCHITECTURES=90
  "-DPython_EXECUTABLE=$py")
[ -n "$pybind" ] && args+=("-Dpybind11_DIR=$pybind")
command -v nvcc >/dev/null || args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
if ! cmake -S . -B "$build" "${args[@]}" >"$out/python-configure.txt" 2>&1 ||
  ! cmake --build "$build" -j "$(nproc)" >"$out/python-build.txt" 2>&1; then
  echo "build failed: see python-configure.txt and python-build.txt"
  exit 1
fi
echo "module built in $((SECONDS - start)) s"
# dask's suites exit 77 (skipped) where dask is not importable: PYTHONPATH may bring it.
for t in "tests/python/test_rfstudio.py" "tests/python/test_rfstudio_cuda.py" \
  "tests/python/test_docs.py docs/python.md" tests/python/test_ndimage.py \
  tests/python/test_dask.py tests/python/test_dask_cuda.py; do
  log="$out/python-$(basename "${t%% *}" .py).txt"
  # shellcheck disable=SC2086
  PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" "$py" $t -v >"$log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 77 ] || status=1
  echo "$t: $(tail -1 "$log")$([ $rc -eq 77 ] && echo ' (skipped)')"
done
rm -rf "$build-wheel" "$build-site"
if RF_BUILD_DIR="$build" "$py" -m pip wheel --no-deps --no-build-isolation -w "$build-wheel" . \
  >"$out/python-wheel.txt" 2>&1 &&
  "$py" -m pip install --no-deps --no-index --target "$build-site" "$build-wheel"/*.whl \
    >>"$out/python-wheel.txt" 2>&1; then
  echo "wheel: $(basename "$build-wheel"/*.whl)"
  (cd /tmp && PYTHONPATH="$build-site" "$py" -c "
import numpy as np, cupy, rfstudio
x = cupy.asarray(np.random.default_rng(1).random((512, 512), dtype=np.float32))
y = cupy.asarray(rfstudio.filter(x, sigma=(8, 2)))
print('the wheel imports from', rfstudio.__file__, '- CUDA:', rfstudio.cuda_available())") || status=1
else
  echo "wheel: failed, see python-wheel.txt"
  status=1
fi
if [ "${2:-}" = peers ]; then
  PYTHONPATH="$build/python" "$py" bench/python_gpu_peers.py "$out/python-gpu-peers.json" || status=1
fi
exit $status
