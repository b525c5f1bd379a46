#!/usr/bin/python3
"""The edge-aware filter's CPU backend against OpenCV's dtFilter, in one run on one image.

Times `rfcli bench --filters edge-aware --backend cpu` (Algorithms A, C, D and exact) and
OpenCV's `cv::ximgproc::dtFilter` (DTF_RF: the recursive domain transform of Gastal and Oliveira,
the same filter family) on the same RGB image with the same sigma, sigma_r and iterations, with the
same number of threads. The two alternate for several rounds, so that a shared machine's load
falls on both alike; each round reports the median of its runs, and the summary the median over
the rounds.

Needs OpenCV's Python bindings from Debian (`apt-get install python3-opencv`, or pass --install):
the benchmark alone uses OpenCV, the project does not. Run it with Debian's /usr/bin/python3,
where that package installs. Both sides time the filter alone: rfcli a steady clock around the
planned filter's run() (no I/O, no conversion), dtFilter the call on float32 arrays already in
memory (OpenCV allocates its buffers inside the call; it has no separate plan).

Example (2048x2048 RGB, 2 iterations, sigma 50, sigma_r 50/255, 2 threads):
  scripts/bench-edge-cpu.py --rfcli build/bin/rfcli --size 2048 --threads 2 --rounds 5
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def need_opencv(install):
    try:
        import cv2  # noqa: F401
        import numpy  # noqa: F401

        return
    except ImportError:
        pass
    if not install:
        sys.exit(
            "bench-edge-cpu: OpenCV's Python bindings are missing: run "
            "'apt-get install python3-opencv' (Debian 12) or pass --install; "
            "use Debian's /usr/bin/python3"
        )
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "python3-opencv"], check=True, env=env)


def test_image(size, seed):
    """Seeded random rectangles over a gradient with mild noise, 8-bit RGB: flat regions (long
    warm-ups for C and D) and strong edges, like rfcli bench's own image."""
    import numpy as np

    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    img = np.stack(
        [0.2 + 0.5 * (x + (c + 1) * y) / ((c + 2) * 2 * size) for c in range(3)], axis=-1
    )
    for _ in range(64):
        x0, y0 = rng.integers(0, size, 2)
        x1 = min(size, x0 + 1 + int(rng.random() * size / 4))
        y1 = min(size, y0 + 1 + int(rng.random() * size / 4))
        img[y0:y1, x0:x1] = rng.random(3)
    img += rng.normal(0.0, 0.02, img.shape)
    return np.clip(np.rint(img * 255.0), 0, 255).astype(np.uint8)


def run_rfcli(args, image_path, json_path):
    cmd = [
        args.rfcli, "bench", "--filters", "edge-aware", "--backend", "cpu",
        "--sizes", str(args.size), "--no-hd", "--image", image_path,
        "--sigma", str(args.sigma), "--sigma-r", str(args.sigma_r), "--kappa", str(args.kappa),
        "--edge-iterations", str(args.iterations), "--iterations", str(args.runs),
        "--warmup", "1", "--json", json_path,
    ]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    with open(json_path) as f:
        doc = json.load(f)
    times = {}
    for row in doc["results"]:
        if row.get("filter") == "edge-aware" and row.get("impl") == "cpu":
            times[row.get("algo", row.get("ext"))] = row["ms"]
    return times, doc.get("device", "")


def run_dtfilter(args, src):
    import cv2

    cv2.setNumThreads(args.threads)
    times = []
    for i in range(args.runs + 1):
        t0 = time.perf_counter()
        cv2.ximgproc.dtFilter(
            src, src, args.sigma, args.sigma_r / 255.0, mode=cv2.ximgproc.DTF_RF,
            numIters=args.iterations,
        )
        t1 = time.perf_counter()
        if i > 0:  # the first call warms up
            times.append((t1 - t0) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rfcli", default="build/bin/rfcli", help="the rfcli binary")
    p.add_argument("--size", type=int, default=2048, help="square image side (default 2048)")
    p.add_argument("--threads", type=int, default=2, help="threads for both (default 2)")
    p.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    p.add_argument("--runs", type=int, default=5, help="timed runs per round and side (default 5)")
    p.add_argument("--sigma", type=float, default=50.0)
    p.add_argument("--sigma-r", type=float, default=50.0, help="on the 8-bit scale (default 50)")
    p.add_argument("--kappa", type=float, default=2.0, help="Algorithms C and D (default 2)")
    p.add_argument("--iterations", type=int, default=2, help="filter iterations (default 2)")
    p.add_argument("--json", help="also write the per-round and summary times here")
    p.add_argument("--install", action="store_true", help="apt-get install python3-opencv if absent")
    args = p.parse_args()
    need_opencv(args.install)
    import cv2
    import numpy as np

    if not os.access(args.rfcli, os.X_OK):
        sys.exit(f"bench-edge-cpu: {args.rfcli}: no such executable (build first, or pass --rfcli)")

    algos = ["a", "c", "d", "exact"]
    rounds = []
    device = ""
    with tempfile.TemporaryDirectory() as tmp:
        image_path = os.path.join(tmp, "edge-bench.png")
        json_path = os.path.join(tmp, "bench.json")
        rgb = test_image(args.size, 1234)
        cv2.imwrite(image_path, rgb)
        # The same 8-bit pixels rfcli reads, as float on [0, 1].
        src = cv2.imread(image_path, cv2.IMREAD_COLOR).astype(np.float32) / 255.0
        print(
            f"# {args.size}x{args.size} RGB, {args.iterations} iterations, sigma {args.sigma:g}, "
            f"sigma_r {args.sigma_r:g}/255, kappa {args.kappa:g} (C, D), {args.threads} threads; "
            f"median of {args.runs} runs per round, ms"
        )
        print("round " + " ".join(f"{a:>8}" for a in algos) + "  dtFilter")
        for r in range(args.rounds):
            # Alternate which side runs first.
            if r % 2 == 0:
                ours, device = run_rfcli(args, image_path, json_path)
                theirs = run_dtfilter(args, src)
            else:
                theirs = run_dtfilter(args, src)
                ours, device = run_rfcli(args, image_path, json_path)
            rounds.append({"rfcli": ours, "dtfilter": theirs})
            print(f"{r + 1:>5} " + " ".join(f"{ours[a]:8.1f}" for a in algos) + f"  {theirs:8.1f}")

    summary = {a: statistics.median(x["rfcli"][a] for x in rounds) for a in algos}
    summary["dtfilter"] = statistics.median(x["dtfilter"] for x in rounds)
    print("median " + " ".join(f"{summary[a]:8.1f}" for a in algos) + f"  {summary['dtfilter']:8.1f}")
    print(
        "dtFilter / ours: "
        + ", ".join(f"{a} {summary['dtfilter'] / summary[a]:.2f}x" for a in algos)
    )
    print(f"# rfcli: {device}; OpenCV {cv2.__version__}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "command": " ".join(["scripts/bench-edge-cpu.py"] + sys.argv[1:]),
                    "date": time.strftime("%Y-%m-%d"),
                    "device": device,
                    "opencv": cv2.__version__,
                    "size": args.size,
                    "threads": args.threads,
                    "sigma": args.sigma,
                    "sigma_r_8bit": args.sigma_r,
                    "kappa": args.kappa,
                    "iterations": args.iterations,
                    "rounds": rounds,
                    "median_ms": summary,
                },
                f,
                indent=2,
            )
            f.write("\n")


if __name__ == "__main__":
    main()
