#!/usr/bin/env python3
"""scripts/compare-bench.py on two synthetic records.

    tests/scripts/test_compare_bench.py SOURCE_DIR

Rows match on what they measure, the ratio is new over old speed (GB/s for the copy), and rows
either record lacks are counted. Exit status 0 when every check holds.
"""

import json
import os
import subprocess
import sys
import tempfile


def row(impl, algo, order, gips, gbps=0.0):
    return {"impl": impl, "algo": algo, "filter": "gaussian", "sigma": 4.0, "order": order,
            "ext": "mirror", "width": 4096, "height": 4096, "channels": 1, "format": "f32",
            "gips": gips, "gbps": gbps, "ms": 1.0, "runs": 100}


def main():
    script = os.path.join(sys.argv[1], "scripts", "compare-bench.py")
    old = {"device": "d", "date": "1", "results": [
        row("copy", "-", 0, 300.0, 3000.0), row("rfstudio", "alg5", 1, 100.0),
        row("rfstudio", "alg5", 3, 80.0), row("rfstudio", "rt", 1, 3.0)]}
    new = {"device": "d", "date": "2", "results": [
        row("copy", "-", 0, 301.0, 3030.0), row("rfstudio", "alg5", 1, 110.0),
        row("rfstudio", "alg5", 3, 80.0), row("rfstudio", "alg6", 1, 90.0)]}
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, record in (("old.json", old), ("new.json", new)):
            paths.append(os.path.join(d, name))
            with open(paths[-1], "w") as f:
                json.dump(record, f)
        out = subprocess.run([sys.executable, script] + paths, check=True, capture_output=True,
                             text=True).stdout
    print(out)
    failures = []
    # Ratios 1.01 (copy, by GB/s), 1.1 and 1.0: median 1.01 over three matched rows.
    if "all: 3 rows, median ratio 1.010" not in out:
        failures.append("overall median of the matched rows")
    if "rfstudio alg5: 2 rows, median ratio" not in out:
        failures.append("per-algorithm group")
    if "rows only in old: 1; only in new: 1" not in out:
        failures.append("unmatched rows")
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
