#!/usr/bin/env python3
"""rfstudio.ndimage.gaussian_filter beside scipy.ndimage.gaussian_filter on the CPU, one run.

Both called as a scipy user calls them, on the same float32 and float64 arrays (seeded random,
one channel), mode 'reflect', at each sigma: scipy at its default truncate=4, ours with no
truncation at all. Wall clock (time.perf_counter) around one call, after one untimed call; the
median of the timed calls. The machine's cores are whatever the process may use (OpenMP for
ours; scipy is single-threaded). Writes one JSON record with the command and the machine.

    python3 bench/python_ndimage_cpu.py OUT.json [--size N] [--sigmas 1,4,16,64] [--runs R]
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np
import scipy
import scipy.ndimage as sn

import rfstudio
from rfstudio import ndimage


def median_ms(fn, runs):
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--sigmas", default="1,4,16,64")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    rows = []
    for dtype in (np.float32, np.float64):
        x = rng.random((args.size, args.size)).astype(dtype)
        for sigma in [float(s) for s in args.sigmas.split(",")]:
            ours = median_ms(lambda: ndimage.gaussian_filter(x, sigma, mode="reflect"), args.runs)
            theirs = median_ms(lambda: sn.gaussian_filter(x, sigma, mode="reflect"), args.runs)
            rel = ndimage.gaussian_filter(x, sigma) - sn.gaussian_filter(x, sigma, truncate=12)
            want = sn.gaussian_filter(x.astype(np.float64), sigma, truncate=12)
            row = {"dtype": np.dtype(dtype).name, "size": args.size, "sigma": sigma,
                   "rfstudio_ms": round(ours, 2), "scipy_ms": round(theirs, 2),
                   "scipy_over_rfstudio": round(theirs / ours, 2),
                   "relative_rms_vs_scipy_truncate12":
                       float(np.sqrt(np.mean(rel.astype(np.float64) ** 2)) /
                             np.sqrt(np.mean(want ** 2)))}
            rows.append(row)
            print(row, flush=True)
    record = {
        "what": "rfstudio.ndimage.gaussian_filter beside scipy.ndimage.gaussian_filter, CPU, "
                "wall clock per call, median",
        "command": "python3 " + " ".join(sys.argv),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores "
                   f"visible, Python {platform.python_version()}, numpy {np.__version__}, scipy "
                   f"{scipy.__version__}, rfstudio {rfstudio.__version__}",
        "rows": rows,
    }
    with open(args.out, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
