#!/usr/bin/env python3
"""Compares two benchmark records (rfcli bench --json) row by row.

    scripts/compare-bench.py OLD.json NEW.json [--by impl,algo,filter]

Rows are matched on what they measure (impl, algo, filter, sigma, sigma_y, order, ext, size,
channels, format); for each matched pair the ratio NEW / OLD of GiP/s (copy rows: GB/s) is taken. Prints the
median ratio with its 5th and 95th percentiles, overall and per group, and the rows either record
lacks. Exit status 0 (it compares; it does not judge).
"""
import argparse
import json
import statistics
import sys

KEY = ("impl", "algo", "filter", "sigma", "sigma_y", "order", "ext", "width", "height", "channels",
       "format")


def rows(path):
    with open(path) as f:
        record = json.load(f)
    out = {}
    for r in record["results"]:
        out.setdefault(tuple(r.get(k) for k in KEY), r)
    return record, out


def speed(r):
    return r["gbps"] if r.get("impl") == "copy" else r["gips"]


def percentile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def summary(label, ratios):
    if not ratios:
        return f"{label}: no rows"
    return (f"{label}: {len(ratios)} rows, median ratio {statistics.median(ratios):.3f} "
            f"(5th-95th percentile {percentile(ratios, 0.05):.3f}-{percentile(ratios, 0.95):.3f})")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--by", default="impl,algo", help="fields to group the ratios by")
    a = p.parse_args()
    old_record, old = rows(a.old)
    new_record, new = rows(a.new)
    print(f"old: {a.old}: {old_record.get('device')} {old_record.get('date')}")
    print(f"new: {a.new}: {new_record.get('device')} {new_record.get('date')}")
    ratios, groups = [], {}
    by = [k for k in a.by.split(",") if k]
    for key, r in new.items():
        o = old.get(key)
        if o is None or speed(o) <= 0 or speed(r) <= 0:
            continue
        ratio = speed(r) / speed(o)
        ratios.append(ratio)
        groups.setdefault(tuple(r.get(k) for k in by), []).append(ratio)
    print(summary("all", ratios))
    for g in sorted(groups, key=str):
        print(summary("  " + " ".join(str(v) for v in g), groups[g]))
    only_old = [k for k in old if k not in new]
    only_new = [k for k in new if k not in old]
    print(f"rows only in old: {len(only_old)}; only in new: {len(only_new)}")
    for k in (only_old + only_new)[:10]:
        print("  ", dict(zip(KEY, k)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
