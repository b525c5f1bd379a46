#!/usr/bin/env python3
"""scripts/plot-sigma-sweep.py on a synthetic record and on the committed one.

    tests/scripts/test_plot_sigma_sweep.py SOURCE_DIR [--keep DIR]

The synthetic record has what the device protocol writes (every algorithm at zero, clamp, repeat
and mirror, orders 1 and 3, the baselines at every sigma) plus rows the picture must leave out
(other sizes, four channels, other orders and filters, a sigma per axis, auto) and a case
measured twice. Exit status 0
when every check holds.
"""

import json
import math
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
SIGMAS = [1, 2, 4, 8, 16, 32, 64, 100]
ALGOS = ["rt", "alg4", "alg5", "alg6"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAILED: {what}")


def row(impl, sigma, gips, order=0, ext="-", algo="-", size=4096, channels=1, fmt="f32",
        filt="gaussian", **extra):
    r = dict(impl=impl, algo=algo, filter=filt, sigma=sigma, order=order, ext=ext, width=size,
             height=size, channels=channels, format=fmt, gips=gips,
             ms=size * size / (gips * 2**30) * 1e3, gbps=0.0, runs=100)
    r.update(extra)
    return r


def synthetic_record():
    rows = [dict(row("copy", 0, 346.0, ext="-", size=16384, filt="copy"), gbps=2973.0)]
    for sigma in SIGMAS:
        for order in (1, 3, 5):
            for ext in ("zero", "clamp", "repeat", "mirror"):
                for k, algo in enumerate(ALGOS):
                    gips = 3.0 if algo == "rt" else 100.0 + 20 * k - 10 * order - math.log2(sigma)
                    rows.append(row("rfstudio", sigma, gips, order, ext, algo))
                    rows.append(row("rfstudio", sigma, gips / 2, order, ext, algo, size=1024))
                    rows.append(row("rfstudio", sigma, gips / 3, order, ext, algo, channels=4,
                                    fmt="f32x4"))
        radius = math.ceil(3 * sigma)
        rows.append(row("npp", sigma, 130.0 / sigma, ext="clamp", radius=radius, max_error=2e-7))
        if radius <= 24:
            rows.append(row("fir-tuned", sigma, 200.0 / sigma, ext="mirror", algo="fused",
                            radius=radius, max_error=3e-7))
        rows.append(row("fir-tuned", sigma, 150.0 / sigma, ext="mirror", algo="two-pass",
                        radius=radius, max_error=3e-7))
        rows.append(row("cufft", sigma, 42.0, ext="repeat", max_error=1e-6))
        rows.append(row("fir", sigma, 60.0 / sigma, ext="mirror", radius=2 * radius))
    rows.append(row("rfstudio", 0, 150.0, 1, "-", "alg6", filt="sat"))
    # A case measured again by a later run: the later row counts, so 0.01 must not show.
    rows.insert(1, row("rfstudio", 4, 0.01, 1, "mirror", "alg6"))
    # After the sweep, the protocol's sigma per axis (4 along x, 16 along y) and the grid's auto:
    # neither is a point of the sweep, so 0.001 must not show and auto draws no line.
    rows.append(row("rfstudio", 4, 0.001, 1, "mirror", "alg5", sigma_y=16))
    rows.append(row("rfstudio", 4, 90.0, 1, "mirror", "auto", ran="alg5"))
    return {"device": "CUDA, synthetic GPU (sm_90)", "date": "2026-11-30",
            "copy_floor_gbps": 2973.0, "results": rows}


def run_plot(script, record_path, svg_path, *extra):
    return subprocess.run([sys.executable, script, record_path, svg_path, *extra],
                          capture_output=True, text=True)


def panels_of(svg_path):
    root = ET.parse(svg_path).getroot()  # raises on malformed XML
    check(root.tag == SVG + "svg", f"{svg_path}: root element is <svg>")
    texts = [t.text or "" for t in root.iter(SVG + "text")]
    panels = {}
    for g in root.iter(SVG + "g"):
        if g.get("class") == "panel":
            lines = [p for p in g.iter(SVG + "polyline") if p.get("class") == "series"]
            panels[g.get("data-order")] = {
                p.get("data-series"): len(p.get("points").split()) for p in lines}
    return root, texts, panels


def main(argv):
    source = argv[0]
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    script = os.path.join(source, "scripts", "plot-sigma-sweep.py")
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = keep or tmp
        os.makedirs(out_dir, exist_ok=True)

        record_path = os.path.join(out_dir, "synthetic.json")
        with open(record_path, "w") as f:
            json.dump(synthetic_record(), f)
        svg_path = os.path.join(out_dir, "synthetic.svg")
        r = run_plot(script, record_path, svg_path)
        check(r.returncode == 0, f"synthetic record plots (stderr: {r.stderr.strip()})")
        if r.returncode == 0:
            _, texts, panels = panels_of(svg_path)
            check(sorted(panels) == ["1", "3"], f"one panel per order 1 and 3: {sorted(panels)}")
            expected = {f"ours, {a}, {e}" for a in ALGOS for e in ("mirror", "zero")}
            expected |= {"NPP separable (3 sigma, replicate)", "tuned FIR (3 sigma, mirror)",
                         "cuFFT (periodic)"}
            for order, series in panels.items():
                check(set(series) == expected,
                      f"order {order}: one polyline per series, got {sorted(series)}")
                check(all(n == len(SIGMAS) for n in series.values()),
                      f"order {order}: every series has a point per sigma: {series}")
            check(any("sigma (pixels, log scale)" in t for t in texts), "x axis label")
            check(any(t.startswith("GiP/s") for t in texts), "y axis label")
            for s in ("1", "4", "100"):
                check(s in texts, f"sigma tick {s}")
            check("0.01" not in texts, "the later of two rows of a case counts")
            check("0.001" not in texts, "a sigma per axis is not the sweep's sigma")
            check(any("copy floor" in t for t in texts), "copy floor line")

        # A record of the first protocol: no sigma or algo per row, sigma 4 throughout.
        first = os.path.join(out_dir, "first-protocol.json")
        with open(first, "w") as f:
            rows = [row("rfstudio", 4, 90.0, o, e) for o in (1, 3) for e in ("zero", "mirror")]
            rows.append(row("cufft", 4, 40.0, ext="repeat"))
            for r_ in rows:
                del r_["sigma"], r_["algo"]
            json.dump({"device": "x", "results": rows}, f)
        first_svg = os.path.join(out_dir, "first-protocol.svg")
        r = run_plot(script, first, first_svg)
        check(r.returncode == 0, f"first-protocol record plots (stderr: {r.stderr.strip()})")
        if r.returncode == 0:
            _, texts, panels = panels_of(first_svg)
            for order in ("1", "3"):
                series = panels.get(order, {})
                check(set(series) == {"ours, alg4, mirror", "ours, alg4, zero", "cuFFT (periodic)"},
                      f"first-protocol record, order {order}: {sorted(series)}")
                check(all(n == 1 for n in series.values()), "first-protocol record: one sigma")
            check("4" in texts, "first-protocol record: sigma 4 on the axis")

        # The committed device record: every series of the sweep, each with several sigmas.
        committed_svg = os.path.join(out_dir, "h100.svg")
        r = run_plot(script, os.path.join(source, "docs", "bench", "h100.json"), committed_svg)
        check(r.returncode == 0, f"committed record plots (stderr: {r.stderr.strip()})")
        if r.returncode == 0:
            _, texts, panels = panels_of(committed_svg)
            check(sorted(panels) == ["1", "3"], f"committed record: panels {sorted(panels)}")
            for order, series in panels.items():
                check({f"ours, {a}, mirror" for a in ALGOS} <= set(series),
                      f"committed record, order {order}: {sorted(series)}")
                check(all(n >= 2 for n in series.values()),
                      f"committed record, order {order}: several sigmas per series: {series}")

        # Nothing to draw, or no record: one line on stderr, exit status 2.
        empty = os.path.join(out_dir, "empty.json")
        with open(empty, "w") as f:
            json.dump({"device": "x", "results": [row("rfstudio", 4, 10.0, 1, "mirror", "alg4",
                                                      size=512)]}, f)
        for bad in (empty, os.path.join(out_dir, "missing.json")):
            r = run_plot(script, bad, os.path.join(out_dir, "none.svg"))
            check(r.returncode == 2 and r.stderr.count("\n") == 1,
                  f"{os.path.basename(bad)}: exit 2 and one line (got {r.returncode}: {r.stderr!r})")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("plot-sigma-sweep: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
