#!/usr/bin/env python3
"""Cold kernel-compile wall time of the PaddleOCR models (issue 26 goal 4).

  compile_wall.py BUILD_DIR models/node_modules [--baseline OTHER_BUILD_DIR]
                  [--runs N] [--one-core]

(Fetch the models as benchmarks/paddleocr.py says.) For each model, nnir-run
runs N times cold (an empty --kernel-cache-dir) and N times warm (the cache
that cold run filled); the compile wall time is the median cold process
minus the median warm one. --one-core runs under `taskset -c 0` (one
compile thread: the engine sizes its pool by the CPUs it may use), so the
concurrency's own share can be read off; --baseline measures another build
(say, of the commit before concurrent compilation) the same way. Inputs
are seeded; their shapes are fixed with --input-shape, which older builds
need.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paddleocr import MODELS  # noqa: E402


def wall(cmd):
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), done.stderr))
    return time.perf_counter() - start


def measure(nnir_run, path, shape, inp, work, runs, one_core):
    prefix = ["taskset", "-c", "0"] if one_core else []
    cache = os.path.join(work, "cache")
    cmd = prefix + [nnir_run, path, "--input-shape",
                    "x=" + "x".join(map(str, shape)), "--input", "x=" + inp,
                    "--kernel-cache-dir", cache, "--output-dir",
                    os.path.join(work, "out")]
    cold, warm = [], []
    for _ in range(runs):
        shutil.rmtree(cache, ignore_errors=True)
        cold.append(wall(cmd))
        warm.append(wall(cmd))
    return statistics.median(cold), statistics.median(warm)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("node_modules")
    parser.add_argument("--baseline")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--one-core", action="store_true")
    args = parser.parse_args()
    assets = os.path.join(args.node_modules, "@gutenye", "ocr-models",
                          "assets")
    builds = [("nnir", args.build_dir)]
    if args.baseline:
        builds.append(("baseline", args.baseline))
    print("load average", " ".join(open("/proc/loadavg").read().split()[:3]))
    print("%-5s %-9s %9s %9s %11s" % ("model", "build", "cold ms", "warm ms",
                                     "compile ms"))
    with tempfile.TemporaryDirectory() as work:
        for name, (file, shape) in MODELS.items():
            inp = os.path.join(work, name + ".npy")
            np.save(inp, np.random.default_rng(0).standard_normal(
                shape).astype(np.float32))
            for label, build in builds:
                cold, warm = measure(os.path.join(build, "bin", "nnir-run"),
                                     os.path.join(assets, file), shape, inp,
                                     work, args.runs, args.one_core)
                print("%-5s %-9s %9.0f %9.0f %11.0f" % (
                    name, label, 1e3 * cold, 1e3 * warm, 1e3 * (cold - warm)))
    print("load average", " ".join(open("/proc/loadavg").read().split()[:3]))


if __name__ == "__main__":
    main()
