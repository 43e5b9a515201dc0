#!/usr/bin/env python3
# ===- text_path_bench.py - Wall time and peak memory of nnir-opt -----------===#
"""Times the whole nnir-opt process on the chain of issue 8 (section 6).

The input is `%0 = add(%x, 1f); %1 = multiply(%0, 1f); ...` with N bindings
(1,000,000 by default: 32 MB), written in the form nnir-opt prints, so the
output must be the input byte for byte (checked). Each configuration runs
--runs times; the script reports the minimum and the median of the wall
time, the CPU time (user + system) and the peak resident set (the kernel's
ru_maxrss of the child), with the load average before the runs: the machine
is shared, so compare minima and say what the load was.

Configurations: parse + verify + print (`nnir-opt chain.nnir`), and the same
with `--passes=InferType` (its output has `-> Tensor[...]` on @main, so only
the size is checked). Goals (issue 8): <= 1.5 s and <= 300 MB for the first,
and InferType adding <= 0.5 s.

  python3 benchmarks/text_path_bench.py --nnir-opt build/bin/nnir-opt
  python3 benchmarks/text_path_bench.py --bindings 100000 --runs 3
"""

import argparse
import os
import statistics
import sys
import tempfile
import time


def write_chain(path, n):
    with open(path, "w") as f:
        f.write('#[version = "0.0.5"]\ndef @main(%x: Tensor[(4), float32]) {\n')
        prev = "%x"
        for i in range(n):
            op = "multiply" if i % 2 else "add"
            if i + 1 == n:
                f.write(f"  {op}({prev}, 1f)\n")
            else:
                f.write(f"  %{i} = {op}({prev}, 1f);\n")
            prev = f"%{i}"
        f.write("}\n")


def run_once(argv):
    """Runs argv; returns (wall s, cpu s, peak RSS bytes)."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        sys.exit(f"failed: {' '.join(argv)} (status {status})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def summary(values, scale, unit):
    return (f"min {min(values) * scale:8.3f} {unit}  "
            f"median {statistics.median(values) * scale:8.3f} {unit}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--nnir-opt",
                        default=os.path.join(here, "..", "build", "bin", "nnir-opt"))
    parser.add_argument("--bindings", type=int, default=1000000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        chain = os.path.join(tmp, "chain.nnir")
        out = os.path.join(tmp, "out.nnir")
        write_chain(chain, args.bindings)
        size = os.path.getsize(chain)
        print(f"chain: {args.bindings} bindings, {size / 1e6:.1f} MB; "
              f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
              f"{args.runs} runs each")
        configs = [("parse+verify+print", []),
                   ("  with --passes=InferType", ["--passes=InferType"])]
        for name, extra in configs:
            walls, cpus, peaks = [], [], []
            for _ in range(args.runs):
                wall, cpu, peak = run_once(
                    [args.nnir_opt, chain, "-o", out] + extra)
                walls.append(wall)
                cpus.append(cpu)
                peaks.append(peak)
            if not extra:
                with open(chain, "rb") as a, open(out, "rb") as b:
                    if a.read() != b.read():
                        sys.exit("the printed chain differs from the input")
            print(f"{name}")
            print(f"  wall {summary(walls, 1, 's')}")
            print(f"  cpu  {summary(cpus, 1, 's')}")
            print(f"  peak {summary(peaks, 1e-6, 'MB')}")
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
