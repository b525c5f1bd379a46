#!/usr/bin/env python3
"""GiP/s against sigma from an `rfcli bench` JSON record, drawn as SVG (standard library only).

    scripts/plot-sigma-sweep.py docs/bench/h100.json docs/bench/sigma-sweep.svg

One panel per order (default 1 and 3): ours as one line per algorithm and extension (zero
dashed, mirror solid), and the baselines a user would pick instead at the same sigma: NPP, the
tuned FIR (the faster of its kernels at each sigma) and cuFFT. Rows: one float channel at
SIZE x SIZE (default 4096). Both axes are logarithmic; the dotted line is the copy floor of a
filter that moves 12 bytes a pixel (two reads and one write of a float), when the record has one.

Records made before the sigma sweep have no `sigma` or `algo` per row: a missing sigma is the
record's `sigma` or, without one, --default-sigma (4, the protocol's); a missing algo is alg4.
When a case appears twice (runs appended to one record), the later row counts.
"""

import argparse
import json
import math
import sys
from xml.sax.saxutils import escape

ALGO_COLOURS = {
    "rt": "#8c564b",
    "alg4": "#1f77b4",
    "alg5": "#2ca02c",
    "alg6": "#d62728",
    "auto": "#9467bd",
}
BASELINES = [
    # impl, label, colour, marker
    ("npp", "NPP separable (3 sigma, replicate)", "#ff7f0e", "square"),
    ("fir-tuned", "tuned FIR (3 sigma, mirror)", "#17becf", "diamond"),
    ("cufft", "cuFFT (periodic)", "#555555", "triangle"),
]
EXT_DASH = {"mirror": None, "zero": "7 4"}

PANEL_W, PANEL_H = 420, 320
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 70, 20, 70, 60
GAP = 30
LEGEND_ROW = 18


class PlotError(Exception):
    pass


def load_rows(path, size, default_sigma):
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
    except OSError as e:
        raise PlotError(f"{path}: cannot read ({e.strerror})")
    except json.JSONDecodeError as e:
        raise PlotError(f"{path}: not JSON ({e.msg}, line {e.lineno})")
    if not isinstance(record, dict) or not isinstance(record.get("results"), list):
        raise PlotError(f'{path}: not a benchmark record (no "results" list)')
    record_sigma = record.get("sigma", default_sigma)
    rows = []
    for r in record["results"]:
        if not isinstance(r, dict):
            continue
        if r.get("width") != size or r.get("height") != size or r.get("channels", 1) != 1:
            continue
        if r.get("format", "f32") != "f32" or r.get("filter") != "gaussian":
            continue
        sigma = r.get("sigma", record_sigma)
        gips = r.get("gips", 0)
        if not isinstance(sigma, (int, float)) or sigma <= 0 or not gips or gips <= 0:
            continue
        # A sigma per axis (the protocol's axes run, after the sweep) is not the sweep's sigma, and
        # auto's rows (the grid's, at one sigma) are not a line across sigma.
        if r.get("sigma_y", sigma) != sigma or r.get("algo") == "auto":
            continue
        rows.append(dict(r, sigma=float(sigma), algo=r.get("algo", "alg4")))
    return record, rows


def collect_series(rows, orders):
    """{order: [(key, label, style, {sigma: gips})]} and the legend entries in order."""
    ours = {}  # (order, algo, ext) -> {sigma: gips}
    base = {}  # impl -> {sigma: gips}
    tuned = {}  # (kernel, sigma) -> gips
    for r in rows:
        impl = r.get("impl")
        if impl == "rfstudio" and r.get("order") in orders and r.get("ext") in EXT_DASH:
            ours.setdefault((r["order"], r["algo"], r["ext"]), {})[r["sigma"]] = r["gips"]
        elif impl == "fir-tuned":
            tuned[(r["algo"], r["sigma"])] = r["gips"]
        elif impl in ("npp", "cufft"):
            base.setdefault(impl, {})[r["sigma"]] = r["gips"]
    for (_, sigma), gips in tuned.items():
        points = base.setdefault("fir-tuned", {})
        points[sigma] = max(points.get(sigma, 0), gips)

    seen = {k[1] for k in ours}
    algos_seen = [a for a in ALGO_COLOURS if a in seen] + sorted(seen - set(ALGO_COLOURS))
    panels = {}
    legend = []
    for algo in algos_seen:
        for ext in ("mirror", "zero"):
            if any(k[1] == algo and k[2] == ext for k in ours):
                legend.append((f"ours, {algo}, {ext}", ALGO_COLOURS.get(algo, "#999999"),
                               EXT_DASH[ext], "circle"))
    for impl, label, colour, marker in BASELINES:
        if base.get(impl):
            legend.append((label, colour, None, marker))
    for order in orders:
        series = []
        for algo in algos_seen:
            for ext in ("mirror", "zero"):
                points = ours.get((order, algo, ext))
                if points:
                    series.append((f"ours, {algo}, {ext}", ALGO_COLOURS.get(algo, "#999999"),
                                   EXT_DASH[ext], "circle", points))
        if not series:
            continue
        for impl, label, colour, marker in BASELINES:
            if base.get(impl):
                series.append((label, colour, None, marker, base[impl]))
        panels[order] = series
    return panels, legend


def nice_log_ticks(lo, hi):
    ticks = []
    for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = m * 10.0**e
            if lo <= v * (1 + 1e-9) and v <= hi * (1 + 1e-9):
                ticks.append(v)
    return ticks


def fmt(v):
    return f"{v:g}"


def marker_svg(kind, x, y, colour):
    if kind == "square":
        return f'<rect x="{x - 3:.1f}" y="{y - 3:.1f}" width="6" height="6" fill="{colour}"/>'
    if kind == "diamond":
        return (f'<polygon points="{x:.1f},{y - 4:.1f} {x + 4:.1f},{y:.1f} {x:.1f},{y + 4:.1f} '
                f'{x - 4:.1f},{y:.1f}" fill="{colour}"/>')
    if kind == "triangle":
        return (f'<polygon points="{x:.1f},{y - 4:.1f} {x + 4:.1f},{y + 3:.1f} '
                f'{x - 4:.1f},{y + 3:.1f}" fill="{colour}"/>')
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>'


def render(record, panels, legend, size, floor):
    sigmas = sorted({s for series in panels.values() for *_, pts in series for s in pts})
    values = [g for series in panels.values() for *_, pts in series for g in pts.values()]
    if floor:
        values.append(floor)
    x_lo, x_hi = sigmas[0], sigmas[-1]
    if x_lo == x_hi:
        x_lo, x_hi = x_lo / 2, x_hi * 2
    y_lo = 10 ** math.floor(math.log10(min(values)))
    y_hi = 10 ** (math.log10(max(values)) + 0.08)
    ticks_y = nice_log_ticks(y_lo, y_hi)

    n = len(panels)
    legend_rows = math.ceil(len(legend) / 2)
    width = MARGIN_L + n * PANEL_W + (n - 1) * (GAP + MARGIN_L) + MARGIN_R
    height = MARGIN_T + PANEL_H + MARGIN_B + legend_rows * LEGEND_ROW + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" '
        f'font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2:.0f}" y="22" text-anchor="middle" font-size="15">'
        f"GiP/s against sigma: Gaussian, {size}x{size} float, one channel</text>",
        f'<text x="{width / 2:.0f}" y="40" text-anchor="middle" fill="#444">'
        f'{escape(str(record.get("device", "")))}, {escape(str(record.get("date", "")))}</text>',
    ]

    def sx(s, x0):
        span = math.log(x_hi) - math.log(x_lo)
        return x0 + (math.log(s) - math.log(x_lo)) / span * PANEL_W

    def sy(g):
        span = math.log(y_hi) - math.log(y_lo)
        return MARGIN_T + PANEL_H - (math.log(g) - math.log(y_lo)) / span * PANEL_H

    for i, (order, series) in enumerate(sorted(panels.items())):
        x0 = MARGIN_L + i * (PANEL_W + GAP + MARGIN_L)
        out.append(f'<g class="panel" data-order="{order}">')
        out.append(f'<text x="{x0 + PANEL_W / 2:.0f}" y="{MARGIN_T - 10}" text-anchor="middle" '
                   f'font-size="13">order {order}</text>')
        out.append(f'<rect x="{x0}" y="{MARGIN_T}" width="{PANEL_W}" height="{PANEL_H}" '
                   f'fill="none" stroke="#888"/>')
        for g in ticks_y:
            y = sy(g)
            out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + PANEL_W}" y2="{y:.1f}" '
                       f'stroke="#e4e4e4"/>')
            out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">{fmt(g)}</text>')
        for s in sigmas:
            x = sx(s, x0)
            out.append(f'<line x1="{x:.1f}" y1="{MARGIN_T}" x2="{x:.1f}" '
                       f'y2="{MARGIN_T + PANEL_H}" stroke="#e4e4e4"/>')
            out.append(f'<text x="{x:.1f}" y="{MARGIN_T + PANEL_H + 16}" '
                       f'text-anchor="middle">{fmt(s)}</text>')
        out.append(f'<text x="{x0 + PANEL_W / 2:.0f}" y="{MARGIN_T + PANEL_H + 38}" '
                   f'text-anchor="middle">sigma (pixels, log scale)</text>')
        yc = MARGIN_T + PANEL_H / 2
        out.append(f'<text x="{x0 - 48}" y="{yc:.0f}" text-anchor="middle" '
                   f'transform="rotate(-90 {x0 - 48} {yc:.0f})">GiP/s (2^30 px/s, log scale)</text>')
        if floor:
            y = sy(floor)
            out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + PANEL_W}" y2="{y:.1f}" '
                       f'stroke="#000" stroke-dasharray="1 3"/>')
            out.append(f'<text x="{x0 + PANEL_W - 4}" y="{y - 5:.1f}" text-anchor="end" '
                       f'fill="#333">copy floor, 12 B/px: {floor:.0f}</text>')
        for label, colour, dash, marker, points in series:
            pts = sorted(points.items())
            coords = " ".join(f"{sx(s, x0):.1f},{sy(g):.1f}" for s, g in pts)
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            out.append(f'<polyline class="series" data-series="{escape(label)}" '
                       f'points="{coords}" fill="none" stroke="{colour}" '
                       f'stroke-width="1.8"{dash_attr}/>')
            for s, g in pts:
                out.append(marker_svg(marker, sx(s, x0), sy(g), colour))
        out.append("</g>")

    top = MARGIN_T + PANEL_H + MARGIN_B
    col_w = (width - 2 * MARGIN_L) / 2
    out.append('<g class="legend">')
    for k, (label, colour, dash, marker) in enumerate(legend):
        x = MARGIN_L + (k % 2) * col_w
        y = top + (k // 2) * LEGEND_ROW
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<line x1="{x:.0f}" y1="{y}" x2="{x + 34:.0f}" y2="{y}" stroke="{colour}" '
                   f'stroke-width="1.8"{dash_attr}/>')
        out.append(marker_svg(marker, x + 17, y, colour))
        out.append(f'<text x="{x + 42:.0f}" y="{y + 4}">{escape(label)}</text>')
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("record", help="rfcli bench --json record")
    p.add_argument("svg", help="SVG file to write")
    p.add_argument("--size", type=int, default=4096, help="square size of the sweep (4096)")
    p.add_argument("--orders", default="1,3", help="orders, one panel each (1,3)")
    p.add_argument("--default-sigma", type=float, default=4.0,
                   help="sigma of rows that carry none (4)")
    args = p.parse_args(argv)
    try:
        try:
            orders = [int(o) for o in args.orders.split(",") if o]
        except ValueError:
            raise PlotError(f"--orders: '{args.orders}' is not a list of integers")
        record, rows = load_rows(args.record, args.size, args.default_sigma)
        panels, legend = collect_series(rows, orders)
        if not panels:
            raise PlotError(f"{args.record}: no one-channel Gaussian rows of ours at "
                            f"{args.size}x{args.size} for orders {args.orders}")
        gbps = record.get("copy_floor_gbps") or 0
        floor = gbps * 1e9 / 12 / 2**30 if gbps > 0 else None
        svg = render(record, panels, legend, args.size, floor)
        try:
            with open(args.svg, "w", encoding="utf-8") as f:
                f.write(svg)
        except OSError as e:
            raise PlotError(f"{args.svg}: cannot write ({e.strerror})")
    except PlotError as e:
        print(f"plot-sigma-sweep: {e}", file=sys.stderr)
        return 2
    count = sum(len(s) for s in panels.values())
    print(f"{args.svg}: {count} series in {len(panels)} panels")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
