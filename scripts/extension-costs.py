#!/usr/bin/env python3
"""What each boundary extension costs beside another, from one benchmark record.

    scripts/extension-costs.py RECORD.json [--json OUT.json] [--command TEXT]

For every pair (A, B) below, every case of the record measured with both (same impl, algorithm,
filter, sigma, order, size, channels, format), the ratio GiP/s(A) / GiP/s(B); per algorithm the
median with its 5th and 95th percentiles and the smallest. Rows measured twice (the grid and the
sweep share their sigma-4 cases) count once, the later, as plot-sigma-sweep.py takes them. With
--json, writes the table and the 4096^2 one-channel float rows at sigma 4 it was taken from,
with the record's device, date, copy floor and the command given.
"""
import argparse
import json
import statistics

PAIRS = [("reflect101", "mirror"), ("constant", "clamp"), ("constant", "zero"),
         ("mirror", "zero"), ("clamp", "zero"), ("repeat", "zero")]
CASE = ("impl", "algo", "filter", "sigma", "sigma_y", "order", "width", "height", "channels",
        "format")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("record")
    ap.add_argument("--json")
    ap.add_argument("--command", default="")
    args = ap.parse_args()
    with open(args.record) as f:
        record = json.load(f)
    rows = {}
    for r in record["results"]:
        if r.get("impl") == "rfstudio":
            rows[tuple(r.get(k) for k in CASE) + (r["ext"],)] = r
    table = []
    for a, b in PAIRS:
        by_algo = {}
        for key, r in rows.items():
            if key[-1] != a:
                continue
            other = rows.get(key[:-1] + (b,))
            if other:
                by_algo.setdefault(r["algo"], []).append(r["gips"] / other["gips"])
        for algo, ratios in sorted(by_algo.items()):
            ratios.sort()
            n = len(ratios)
            line = {"extension": a, "beside": b, "algo": algo, "cases": n,
                    "median": round(statistics.median(ratios), 3),
                    "p5": round(ratios[int(0.05 * (n - 1))], 3),
                    "p95": round(ratios[int(0.95 * (n - 1))], 3), "min": round(ratios[0], 3)}
            table.append(line)
            print("{extension:>10} / {beside:<6} {algo:<5} {cases:4d} cases: median {median:.3f} "
                  "(5th-95th {p5:.3f}-{p95:.3f}, min {min:.3f})".format(**line))
    if args.json:
        sample = [r for key, r in rows.items()
                  if r["width"] == 4096 and r["height"] == 4096 and r["channels"] == 1
                  and r["format"] == "f32" and r["sigma"] == 4.0 and r.get("sigma_y") is None
                  and r["filter"] == "gaussian" and r["order"] in (1, 3)]
        out = {"what": "GiP/s of one extension over another's, case by case, in one run",
               "device": record.get("device"), "date": record.get("date"),
               "copy_floor_gbps": record.get("copy_floor_gbps"), "command": args.command,
               "source": args.record, "ratios": table,
               "rows_4096_order_1_and_3": sorted(sample, key=lambda r: (r["algo"], r["order"],
                                                                        r["ext"]))}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
