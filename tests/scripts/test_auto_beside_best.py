#!/usr/bin/env python3
"""scripts/auto-beside-best.py on a synthetic record.

    tests/scripts/test_auto_beside_best.py SOURCE_DIR

Auto's time is set beside the fastest of the other algorithms of the same case (not beside the
baselines or another case's rows), the cases past the margin are counted and named with what auto
ran, and a record without auto rows is refused in one line. Exit status 0 when every check holds.
"""

import json
import os
import subprocess
import sys
import tempfile


def row(impl, algo, order, ms, ext="mirror", fmt="f32", **extra):
    r = {"impl": impl, "algo": algo, "filter": "gaussian", "sigma": 4.0, "order": order,
         "ext": ext, "width": 4096, "height": 4096, "channels": 1 if fmt == "f32" else 4,
         "format": fmt, "gips": 1.0 / ms, "gbps": 0.0, "ms": ms, "runs": 100}
    r.update(extra)
    return r


def main():
    script = os.path.join(sys.argv[1], "scripts", "auto-beside-best.py")
    record = {"device": "d", "date": "1", "results": [
        # Order 3: auto ran the fastest (ratio 1.0).
        row("rfstudio", "alg4", 3, 2.0), row("rfstudio", "alg5", 3, 1.0),
        row("rfstudio", "auto", 3, 1.0, ran="alg5"),
        # Order 5: alg4 is fastest, auto ran alg5 (ratio 1.25).
        row("rfstudio", "alg4", 5, 0.8), row("rfstudio", "alg5", 5, 1.0),
        row("rfstudio", "auto", 5, 1.0, ran="alg5"),
        # A faster baseline and another case's faster row do not count.
        row("npp", "-", 5, 0.1), row("rfstudio", "alg4", 5, 0.1, ext="zero"),
        # Four channels, within the margin (1.01).
        row("rfstudio", "alg5", 3, 1.0, fmt="f32x4"),
        row("rfstudio", "auto", 3, 1.01, fmt="f32x4", ran="alg5")]}
    failures = []
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.json")
        with open(path, "w") as f:
            json.dump(record, f)
        out = subprocess.run([sys.executable, script, path], check=True, capture_output=True,
                             text=True).stdout
        print(out)
        if "all: 3 cases" not in out or "largest 1.250; 1 cases beyond 1.02" not in out:
            failures.append("three cases, the largest 1.25, one past the margin")
        if "f32 order 5: 1 cases, median 1.250" not in out:
            failures.append("per format and order")
        if "auto ran alg5 in 1.0000 ms, alg4 0.8000" not in out:
            failures.append("the worst case names what auto ran and what was fastest")
        empty = os.path.join(d, "empty.json")
        with open(empty, "w") as f:
            json.dump({"results": [row("rfstudio", "alg5", 1, 1.0)]}, f)
        for bad in (empty, os.path.join(d, "missing.json")):
            r = subprocess.run([sys.executable, script, bad], capture_output=True, text=True)
            if r.returncode != 2 or r.stderr.count("\n") != 1:
                failures.append(f"{os.path.basename(bad)}: exit 2 and one line "
                                f"(got {r.returncode}: {r.stderr!r})")
    for f in failures:
        print("FAILED:", f)
    if not failures:
        print("auto-beside-best: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
