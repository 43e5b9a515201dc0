#!/usr/bin/env python3
# ===- text_path_bench.py - Wall time and peak memory of nnir-opt -----------===#
"""Times the whole nnir-opt process on the chain of issue 8 (section 6), or
on ResNet-50 with its weights bound (issue 26).

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

--workload resnet50: ResNet-50 (make_cnn.py) with its 25.6 M weights bound
to random values (`BindParams{random=true}`, a fixed seed: the same file
every time), printed as TVM text: 137 MB, the weights base64 in
`#[metadata]`. The configuration is parse + verify + print, byte for byte.
Goal (issue 26): <= 0.3 s and a peak of <= 1.3x the weights' 102 MB. The
process's own peak (a module without weights: libLLVM and the operator
registry, ~70 MB) is measured too and reported beside it. --baseline runs
another nnir-opt (e.g. main's) alternately with this one, for a side-by-side
ratio under the same load.

  python3 benchmarks/text_path_bench.py --nnir-opt build/bin/nnir-opt
  python3 benchmarks/text_path_bench.py --bindings 100000 --runs 3
  python3 benchmarks/text_path_bench.py --workload resnet50 \
      --baseline ../main/build/bin/nnir-opt
"""

import argparse
import math
import os
import statistics
import subprocess
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


def write_resnet50(path, nnir_opt, tmp):
    here = os.path.dirname(os.path.abspath(__file__))
    unbound = os.path.join(tmp, "resnet50-params.nnir")
    subprocess.run([sys.executable, os.path.join(here, "make_cnn.py"),
                    "resnet50", "-o", unbound], check=True)
    subprocess.run([nnir_opt, unbound, "--passes=BindParams{random=true}",
                    "-o", path], check=True)


def measure(argv, runs):
    walls, cpus, peaks = [], [], []
    for _ in range(runs):
        wall, cpu, peak = run_once(argv)
        walls.append(wall)
        cpus.append(cpu)
        peaks.append(peak)
    return walls, cpus, peaks


def resnet50_main(args, tmp):
    model = os.path.join(tmp, "resnet50.nnir")
    out = os.path.join(tmp, "out.nnir")
    empty = os.path.join(tmp, "empty.nnir")
    write_resnet50(model, args.nnir_opt, tmp)
    with open(empty, "w") as f:
        f.write('#[version = "0.0.5"]\ndef @main(%x: Tensor[(4), float32]) {\n'
                '  %x\n}\n')
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import make_cnn
    builder, _ = make_cnn.resnet50(1, False)
    weights = 4 * sum(math.prod(shape) for _, shape in builder.params[1:])
    print(f"resnet50 with bound weights: {os.path.getsize(model) / 1e6:.1f} MB"
          f" of text, {weights / 1e6:.1f} MB of weights; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.runs} runs")
    binaries = [("nnir-opt", args.nnir_opt)]
    if args.baseline:
        binaries.append(("baseline", args.baseline))
    results = {name: ([], [], []) for name, _ in binaries}
    base_peak = {}
    for name, binary in binaries:
        base_peak[name] = min(measure([binary, empty, "-o", out], 3)[2])
    # Alternate the binaries, so that both see the same load.
    for _ in range(args.runs):
        for name, binary in binaries:
            wall, cpu, peak = run_once([binary, model, "-o", out])
            for values, value in zip(results[name], (wall, cpu, peak)):
                values.append(value)
            with open(model, "rb") as a, open(out, "rb") as b:
                if a.read() != b.read():
                    sys.exit(f"{name}: the printed model differs from the input")
    for name, _ in binaries:
        walls, cpus, peaks = results[name]
        print(f"{name}: parse+verify+print")
        print(f"  wall {summary(walls, 1, 's')}")
        print(f"  cpu  {summary(cpus, 1, 's')}")
        print(f"  peak {summary(peaks, 1e-6, 'MB')}; without weights "
              f"{base_peak[name] / 1e6:.1f} MB; above it "
              f"{(min(peaks) - base_peak[name]) / weights:.2f}x the weights")
    if args.baseline:
        ratio = lambda i: min(results["baseline"][i]) / min(results["nnir-opt"][i])
        print(f"baseline / nnir-opt (minima): wall {ratio(0):.2f}x, "
              f"cpu {ratio(1):.2f}x, peak {ratio(2):.2f}x")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--nnir-opt",
                        default=os.path.join(here, "..", "build", "bin", "nnir-opt"))
    parser.add_argument("--bindings", type=int, default=1000000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workload", choices=["chain", "resnet50"],
                        default="chain")
    parser.add_argument("--baseline",
                        help="another nnir-opt to time alternately (resnet50)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        if args.workload == "resnet50":
            return resnet50_main(args, tmp)
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
