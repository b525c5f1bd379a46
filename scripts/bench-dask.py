#!/usr/bin/env python3
"""rfstudio.dask.gaussian_filter beside map_overlap + scipy.ndimage.gaussian_filter (what
dask-image's gaussian_filter does: a halo of `truncate` sigma per side) on one LocalCluster of
worker processes, one thread each.

    scripts/bench-dask.py [--size 16384] [--chunk 1024] [--sigma 200] [--workers 4]
                          [--overlap-chunks 16] [--json docs/bench/dask-cpu.json]

The array is float32 random numbers (seeded), written to a zarr store on disk first, untimed; every
run reads it from there. Ours, twice (recompute=True, the default, and False): the whole array
filtered and written to another zarr store, while a thread in each worker samples every 5 ms its
resident memory and the bytes dask holds on it (task results waiting for the tasks that read
them), after a warm-up run on a small array (so that the libraries' own buffers are in the
resident set before the idle figure is read); then the result is compared with
rfstudio.ndimage.gaussian_filter of the whole array in memory.
map_overlap: its sampled Gaussian costs each chunk the same (a (chunk + 2 halo)^2 block, boundary
chunks padded by dask), so its time is measured on the first --overlap-chunks chunks of the same
graph (0: all of them) and the whole array's is that time times the ratio of chunk counts, as the
record says. Needs python3-dask, -distributed, -zarr, -scipy, -psutil and the module on
PYTHONPATH (build/python).
"""
import argparse
import json
import os
import platform
import shlex
import sys
import tempfile
import threading
import time

import dask
import dask.array as da
import distributed
import numpy as np
import psutil
import scipy
import scipy.ndimage
import zarr
from distributed import Client, LocalCluster

import rfstudio
import rfstudio.dask as rd
from rfstudio import ndimage


def start_sampling(dask_worker):
    """In a worker: a thread that keeps the largest resident set and the largest number of bytes
    dask holds there, sampled every 5 ms; returns the resident set now (idle)."""
    process = psutil.Process()
    peak = {"rss": 0, "held": 0, "stop": threading.Event()}

    def sample():
        while not peak["stop"].is_set():
            peak["rss"] = max(peak["rss"], process.memory_info().rss)
            peak["held"] = max(peak["held"], dask_worker.state.nbytes)
            peak["stop"].wait(0.005)

    dask_worker.rf_peak = peak
    threading.Thread(target=sample, daemon=True).start()
    return process.memory_info().rss


def stop_sampling(dask_worker):
    peak = dask_worker.rf_peak
    peak["stop"].set()
    return peak["rss"], peak["held"]


def mib(values):
    return sorted(round(v / 2 ** 20) for v in values)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=16384)
    ap.add_argument("--chunk", type=int, default=1024)
    ap.add_argument("--sigma", type=float, default=200.0)
    ap.add_argument("--truncate", type=float, default=4.0)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--overlap-chunks", type=int, default=16)
    ap.add_argument("--mode", default="reflect")
    ap.add_argument("--json")
    args = ap.parse_args()

    n, chunk, sigma = args.size, args.chunk, args.sigma
    shape, chunks = (n, n), (chunk, chunk)
    count = (n // chunk) ** 2

    tmp = tempfile.TemporaryDirectory()
    source_store = os.path.join(tmp.name, "source.zarr")
    da.random.RandomState(7).random_sample(shape, chunks=chunks).astype(np.float32) \
        .to_zarr(source_store)
    warm_store = os.path.join(tmp.name, "warm.zarr")
    da.random.RandomState(8).random_sample((2 * chunk, 2 * chunk), chunks=chunks) \
        .astype(np.float32).to_zarr(warm_store)

    def source():
        return da.from_zarr(source_store)

    record = {
        "command": "scripts/bench-dask.py " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "cpu": platform.processor() or platform.machine(),
                    "memory_gib": round(psutil.virtual_memory().total / 2 ** 30, 1)},
        "versions": {"rfstudio": rfstudio.__version__, "dask": dask.__version__,
                     "distributed": distributed.__version__, "numpy": np.__version__,
                     "scipy": scipy.__version__, "python": platform.python_version(),
                     "blas": os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")},
        "array": {"shape": list(shape), "chunks": list(chunks), "dtype": "float32",
                  "sigma": sigma, "mode": args.mode},
        "cluster": {"workers": args.workers, "threads_per_worker": 1, "processes": True},
    }
    halo = int(args.truncate * sigma + 0.5)
    record["seams"] = {
        "ours_bytes": rd.seam_bytes(source(), sigma),
        # map_overlap's: each chunk read with `halo` more samples on every side, corners too.
        "halo_bytes": ((chunk + 2 * halo) ** 2 - chunk ** 2) * 4 * count,
        "halo_samples_per_side": halo,
    }

    with dask.config.set({"distributed.worker.daemon": False}):
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=50)
    client = Client(cluster)
    with tmp:
        stores = {}
        chunk_bytes = chunk * chunk * 4
        # Ours twice: the output tasks computing their chunk again (recompute=True, the
        # default), and dask holding each chunk from a pass's moments to its output.
        for variant, recompute in (("ours", True), ("ours_held", False)):
            stores[variant] = os.path.join(tmp.name, f"{variant}.zarr")
            rd.gaussian_filter(da.from_zarr(warm_store), sigma, mode=args.mode,
                               recompute=recompute).to_zarr(os.path.join(tmp.name, "warm-out.zarr"),
                                                            overwrite=True)
            y = rd.gaussian_filter(source(), sigma, mode=args.mode, recompute=recompute)
            idle = client.run(start_sampling)
            start = time.perf_counter()
            y.to_zarr(stores[variant])
            seconds = time.perf_counter() - start
            peak = client.run(stop_sampling)
            above = [(peak[w][0] - idle[w]) / chunk_bytes for w in peak]
            record[variant] = {
                "recompute": recompute,
                "seconds": round(seconds, 2),
                "worker_idle_rss_mib": mib(idle.values()),
                "worker_peak_rss_mib": mib(p[0] for p in peak.values()),
                "worker_peak_rss_above_idle_in_chunks": sorted(round(a, 1) for a in above),
                "worker_peak_held_in_chunks": sorted(round(p[1] / chunk_bytes, 1)
                                                     for p in peak.values()),
                "chunk_mib": chunk_bytes / 2 ** 20,
            }
            client.restart()
            print(f"rfstudio.dask (recompute={recompute}): {seconds:.1f} s, per worker at its peak "
                  f"{record[variant]['worker_peak_rss_above_idle_in_chunks']} chunks above idle, "
                  f"dask holding {record[variant]['worker_peak_held_in_chunks']}", flush=True)

        blurred = source().map_overlap(scipy.ndimage.gaussian_filter, depth=halo,
                                       boundary="reflect", sigma=sigma,
                                       truncate=args.truncate, dtype=np.float32)
        side = int(round(np.sqrt(args.overlap_chunks))) if args.overlap_chunks else n // chunk
        part = blurred[: side * chunk, : side * chunk]
        start = time.perf_counter()
        part.compute()
        overlap = time.perf_counter() - start
        measured = side * side
        record["map_overlap_scipy"] = {
            "truncate": args.truncate,
            "chunks_measured": measured,
            "seconds_measured": round(overlap, 2),
            "seconds_whole_array": round(overlap * count / measured, 1),
            "whole_array_is": "measured" if measured == count else
                              f"measured on {measured} of {count} chunks, times {count / measured:g}",
        }
        print(f"map_overlap + scipy: {overlap:.1f} s for {measured} of {count} chunks", flush=True)
        client.close()
        cluster.close()

        x = zarr.open(source_store, mode="r")[...]
        start = time.perf_counter()
        want = ndimage.gaussian_filter(x, sigma, mode=args.mode)
        record["in_memory_seconds"] = round(time.perf_counter() - start, 2)
        for variant, store in stores.items():
            got = zarr.open(store, mode="r")
            error = max(float(np.abs(got[i:i + chunk].astype(np.float64) - want[i:i + chunk]).max())
                        for i in range(0, n, chunk)) / float(np.abs(want).max())
            record[variant]["max_relative_error_vs_in_memory"] = error
            print(f"{variant}: max relative error against the in-memory filter: {error:.2e}")

    record["speedup_vs_map_overlap"] = round(
        record["map_overlap_scipy"]["seconds_whole_array"] / record["ours"]["seconds"], 1)
    text = json.dumps(record, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
