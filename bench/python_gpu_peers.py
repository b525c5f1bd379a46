#!/usr/bin/env python3
"""rfstudio on a CuPy array beside cupyx.scipy.ndimage.gaussian_filter and torchvision's
gaussian_blur, on the same card in one run: 4096^2 float32, one channel, the half-sample symmetric
extension (our mirror, scipy's and CuPy's 'reflect', PyTorch's 'reflect' is whole-sample: it is
named in each row), sigma 1 to 64.

Timing: CUDA events on the current stream around one call, after warm-up; the median of the timed
runs. Our filter runs through an rfstudio.Engine planned once, into a preallocated `out`; the peers
allocate their result as their users call them. The copy floor (cupy.copyto, one read and one
write) of the same frame is measured in the same run.

    python3 bench/python_gpu_peers.py OUT.json [--size N] [--sigmas 1,2,4] [--runs R]
"""
import argparse
import json
import math
import sys
import time

import numpy as np


def event_ms(cp, fn, warmup, runs):
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(runs):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(times))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("json")
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--sigmas", default="1,2,4,8,16,32,64")
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--warmup", type=int, default=3)
    a = p.parse_args()

    import cupy as cp
    from cupyx.scipy import ndimage as cnd

    import rfstudio

    try:
        import torch
        import torchvision.transforms.v2.functional as tvf
    except Exception as e:  # torchvision absent: the rows say so
        torch, tvf, why = None, None, str(e)

    n = a.size
    gip = n * n / 2**30
    rng = np.random.default_rng(1)
    x = cp.asarray(rng.random((n, n), dtype=np.float32) * 0.95 + 0.05)
    y = cp.empty_like(x)
    rows = []

    def add(impl, sigma, ms, **extra):
        row = dict(impl=impl, sigma=sigma, width=n, height=n, channels=1, format="f32", ms=ms,
                   gips=gip / (ms * 1e-3), **extra)
        rows.append(row)
        print(f"{impl:28s} sigma {sigma:5g}  {ms:9.3f} ms  {row['gips']:8.2f} GiP/s", flush=True)

    copy_ms = event_ms(cp, lambda: cp.copyto(y, x), a.warmup, a.runs)
    floor_gbps = 2 * x.nbytes / (copy_ms * 1e-3) / 1e9
    add("copy", 0, copy_ms, gbps=floor_gbps)

    for sigma in [float(s) for s in a.sigmas.split(",")]:
        engine = rfstudio.Engine("gaussian", sigma=sigma, order=3, ext="mirror", backend="cuda")
        ours = event_ms(cp, lambda: engine.run(x, out=y), a.warmup, a.runs)
        add("rfstudio alg5 order 3", sigma, ours, ext="mirror (half-sample)")
        ref = cp.asnumpy(y)

        theirs = event_ms(cp, lambda: cnd.gaussian_filter(x, sigma, mode="reflect"), a.warmup,
                          a.runs)
        diff = float(np.abs(cp.asnumpy(cnd.gaussian_filter(x, sigma, mode="reflect")) - ref).max())
        add("cupyx gaussian_filter", sigma, theirs, ext="reflect (half-sample)", truncate=4.0,
            radius=int(4.0 * sigma + 0.5), max_abs_diff_from_ours=diff, ours_faster=theirs / ours)

        if tvf is not None:
            t = torch.as_tensor(x, device="cuda").reshape(1, 1, n, n)
            k = 2 * math.ceil(4 * sigma) + 1
            if k // 2 < n:
                tv = event_ms(cp, lambda: tvf.gaussian_blur(t, [k, k], [sigma, sigma]), a.warmup,
                              a.runs)
                add("torchvision gaussian_blur", sigma, tv, ext="reflect (whole-sample)",
                    kernel_size=k, ours_faster=tv / ours)

    record = {
        "what": __doc__.splitlines()[0],
        "command": "python3 " + " ".join(sys.argv),
        "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
        "date": time.strftime("%Y-%m-%d"),
        "versions": {"cupy": cp.__version__, "numpy": np.__version__,
                     "torch": torch.__version__ if torch else None,
                     "torchvision": __import__("torchvision").__version__ if tvf else why},
        "copy_floor_gbps": floor_gbps,
        "results": rows,
    }
    with open(a.json, "w") as f:
        json.dump(record, f, indent=1)
    print("results ->", a.json)


if __name__ == "__main__":
    main()
