#!/usr/bin/env python3
"""Auto beside the fastest algorithm it could have run, case by case, in one benchmark record.

    scripts/auto-beside-best.py RECORD.json [--margin 0.02] [--worst 10]

For every case of the record with an `auto` row of ours and rows of the algorithms it chooses
from (same filter, sigma, sigma_y, order, extension, size, channels, format and Gaussian
method), the ratio of auto's time to the fastest of those rows; per format and order the median
and the largest, the cases where auto takes more than 1 + margin of the fastest time, and the
worst of them with what auto ran (`ran`) and what was fastest. A ratio below 1 is auto running
a kernel that no other row measures (lines in shared memory). Exit status 0 (it reports; it
does not judge); 2 with one line on stderr for a record it cannot read or one without auto rows.
"""
import argparse
import json
import statistics
import sys

CASE = ("filter", "sigma", "sigma_y", "order", "ext", "width", "height", "channels", "format",
        "gaussian_method")


def cases(record):
    """{case: {algo: row}} of our rows."""
    out = {}
    for r in record.get("results", []):
        if isinstance(r, dict) and r.get("impl") == "rfstudio" and r.get("ms", 0) > 0:
            out.setdefault(tuple(r.get(k) for k in CASE), {})[r.get("algo")] = r
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("record")
    p.add_argument("--margin", type=float, default=0.02)
    p.add_argument("--worst", type=int, default=10)
    a = p.parse_args()
    try:
        with open(a.record) as f:
            record = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        print(f"auto-beside-best: {a.record}: cannot read a record ({e})", file=sys.stderr)
        return 2
    found = []
    for case, by_algo in cases(record).items():
        auto = by_algo.get("auto")
        others = [r for algo, r in by_algo.items() if algo != "auto"]
        if auto is None or not others:
            continue
        best = min(others, key=lambda r: r["ms"])
        found.append((auto["ms"] / best["ms"], case, auto, best))
    if not found:
        print(f"auto-beside-best: {a.record}: no case with an auto row beside other algorithms",
              file=sys.stderr)
        return 2
    print(f"{a.record}: {record.get('device')} {record.get('date')}")
    ratios = [x[0] for x in found]
    slow = [x for x in found if x[0] > 1 + a.margin]
    print(f"all: {len(found)} cases, auto over the fastest: median {statistics.median(ratios):.3f}, "
          f"largest {max(ratios):.3f}; {len(slow)} cases beyond {1 + a.margin:.2f}")
    groups = {}
    for x in found:
        groups.setdefault((x[1][CASE.index("format")], x[1][CASE.index("order")]), []).append(x[0])
    for (fmt, order), g in sorted(groups.items(), key=str):
        beyond = sum(1 for v in g if v > 1 + a.margin)
        print(f"  {fmt} order {order}: {len(g)} cases, median {statistics.median(g):.3f}, "
              f"largest {max(g):.3f}, {beyond} beyond")
    for ratio, case, auto, best in sorted(slow, key=lambda x: -x[0])[:a.worst]:
        what = dict(zip(CASE, case))
        print(f"  {ratio:.3f} {what['width']}x{what['height']} {what['format']} order "
              f"{what['order']} {what['ext']} sigma {what['sigma']}: auto ran "
              f"{auto.get('ran', '?')} in {auto['ms']:.4f} ms, {best['algo']} {best['ms']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
