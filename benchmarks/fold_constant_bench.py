#!/usr/bin/env python3
"""FoldConstant against the issue's TVM v0.19 figures (2 cores).

Generates the programs (no downloads), runs `nnir-opt --passes=FoldConstant
--stats` on each five times, and prints the median whole-process wall time
with the folded calls, kernels compiled and kernel cache hits of one run,
plus FoldConstant's own time from --time-passes.

  fold_constant_bench.py BUILD_DIR [--repeat N]

Programs (TVM's times from the issue):
  chain-N   N x `x = add(multiply(x, 1.0001f), 0.5f)` on a 256x256 float32
            constant: N=10 1.08 s, N=100 10.4 s, N=1000 99.9 s. The
            constant's elements differ, so every kernel runs in full.
  add-4096  add of two 4096x4096 float32 constants: 0.134 s. Written as
            splats (`dense<1>`), as text writes such constants, so the kernel
            runs on one element and the result stays a splat.
  none-10k  a 10,000-call chain where nothing folds: 0.29 s
  none-1M   a 1,000,000-call chain where nothing folds (goal: < 1 s in
            FoldConstant)
"""

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def chain(n):
    # Not a splat: 0, 0.125, ..., 31.25, 0, ... (251 distinct values).
    rows = ", ".join(
        "[" + ", ".join(str(((256 * r + c) % 251) / 8) for c in range(256)) +
        "]" for r in range(256))
    lines = ['#[version = "0.0.5"]', "def @main() {",
             f"  %0 = dense<[{rows}]> : Tensor[(256, 256), float32];"]
    for i in range(n):
        lines.append(f"  %{2 * i + 1} = multiply(%{2 * i}, 1.0001f);")
        lines.append(f"  %{2 * i + 2} = add(%{2 * i + 1}, 0.5f);")
    lines += [f"  %{2 * n}", "}"]
    return "\n".join(lines) + "\n"


def add4096():
    return ('#[version = "0.0.5"]\ndef @main() {\n'
            "  add(dense<1> : Tensor[(4096, 4096), float32], "
            "dense<2> : Tensor[(4096, 4096), float32])\n}\n")


def nothing(n):
    lines = ['#[version = "0.0.5"]',
             "def @main(%x: Tensor[(2), float32]) {", "  %0 = negative(%x);"]
    lines += [f"  %{i} = add(%{i - 1}, 1f);" for i in range(1, n - 1)]
    lines += [f"  negative(%{n - 2})", "}"]
    return "\n".join(lines) + "\n"


def stat(text, name):
    m = re.search(r"^\s*(\d+) FoldConstant - " + re.escape(name), text, re.M)
    return int(m.group(1)) if m else 0


def main():
    build = sys.argv[1]
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) \
        if "--repeat" in sys.argv else 5
    opt = os.path.join(build, "bin", "nnir-opt")
    programs = [("chain-10", chain(10)), ("chain-100", chain(100)),
                ("chain-1000", chain(1000)), ("add-4096", add4096()),
                ("none-10k", nothing(10000)), ("none-1M", nothing(1000000))]
    env = dict(os.environ)
    env.pop("NNIR_KERNEL_CACHE_DIR", None)
    print(f"{'program':12} {'median s':>9} {'FoldConstant s':>15} "
          f"{'folded':>8} {'compiled':>9} {'hits':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in programs:
            path = os.path.join(tmp, name + ".nnir")
            with open(path, "w") as f:
                f.write(text)
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                subprocess.run([opt, path, "--passes=FoldConstant", "-o",
                                os.devnull], check=True, env=env)
                times.append(time.perf_counter() - start)
            run = subprocess.run(
                [opt, path, "--passes=FoldConstant", "--stats",
                 "--time-passes", "-o", os.devnull],
                check=True, env=env, capture_output=True, text=True)
            report = run.stderr
            m = re.search(r"^\s*([0-9.]+) \(\s*[0-9.]+%\).*FoldConstant$",
                          report, re.M)
            fold = m.group(1) if m else "?"
            print(f"{name:12} {statistics.median(times):9.3f} {fold:>15} "
                  f"{stat(report, 'Calls folded'):8} "
                  f"{stat(report, 'Kernels compiled'):9} "
                  f"{stat(report, 'Kernels found'):6}", flush=True)


if __name__ == "__main__":
    main()
