#!/usr/bin/env python3
"""Function passes on one thread and on N: a module of 24 ResNet-50-sized
functions through nnir's graph-level pipeline.

  parallel_passes_bench.py BUILD_DIR [--functions 24] [--threads 2]
                           [--repeat 9] [--passes P]

The module (nothing is downloaded) is make_cnn.py's ResNet-50 (weights as
parameters: 53 convolutions, 53 batch norms, about 230 bindings) copied 24
times as @f0 ... @f23. Each round runs, one after the other,

  nnir-opt M --passes=P --time-passes=json --no-threading -o ONE
  nnir-opt M --passes=P --time-passes=json --threads=N    -o MANY

(P is InferType,SimplifyInference,EliminateCommonSubexpr,SimplifyExpr,
DeadCodeElimination by default), checks that ONE and MANY are the same
bytes, and records the pipeline's wall time (the top-level Sequential of
the timing report) and the whole process's wall and CPU time. It prints
min and median of each and the speedups (one thread over N), with the load
average before and after: the machine may be shared, so run it when it is
quiet (`uptime`) and compare figures of one run.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PIPELINE = ("InferType,SimplifyInference,EliminateCommonSubexpr,SimplifyExpr,"
            "DeadCodeElimination")


def make_module(path, functions):
    text = subprocess.run(
        [sys.executable, os.path.join(HERE, "make_cnn.py"), "resnet50"],
        check=True, capture_output=True, text=True).stdout
    header, _, body = text.partition("\n")
    assert body.startswith("def @main("), "make_cnn.py changed its output"
    with open(path, "w") as f:
        f.write(header + "\n")
        for i in range(functions):
            f.write(body.replace("def @main(", "def @f%d(" % i, 1))
            f.write("\n")


def run(cmd):
    """(pipeline seconds, process wall seconds, process CPU seconds)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), err.decode()))
    report = json.loads(err)
    pipeline = sum(p["wall"] for p in report["passes"])
    return pipeline, wall, usage.ru_utime + usage.ru_stime


def summary(label, values):
    return "%-26s min %7.1f ms  median %7.1f ms" % (
        label, 1e3 * min(values), 1e3 * statistics.median(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("--functions", type=int, default=24)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--passes", default=PIPELINE)
    args = parser.parse_args()
    nnir_opt = os.path.join(args.build_dir, "bin", "nnir-opt")

    with tempfile.TemporaryDirectory() as tmp:
        module = os.path.join(tmp, "many.nnir")
        make_module(module, args.functions)
        outputs = {"one": os.path.join(tmp, "one.nnir"),
                   "many": os.path.join(tmp, "many-out.nnir")}
        flags = {"one": "--no-threading", "many": "--threads=%d" % args.threads}
        results = {"one": [], "many": []}
        load_before = os.getloadavg()
        for _ in range(args.repeat):
            for mode in ("one", "many"):
                results[mode].append(run(
                    [nnir_opt, module, "--passes=" + args.passes,
                     "--time-passes=json", flags[mode], "-o", outputs[mode]]))
            with open(outputs["one"], "rb") as a, \
                    open(outputs["many"], "rb") as b:
                if a.read() != b.read():
                    sys.exit("the outputs of --no-threading and --threads=%d "
                             "differ" % args.threads)
        load_after = os.getloadavg()

    print("%d functions of ResNet-50 size, %d rounds, --passes=%s" %
          (args.functions, args.repeat, args.passes))
    print("load average before %.2f %.2f %.2f, after %.2f %.2f %.2f" %
          (load_before + load_after))
    for index, what in ((0, "pipeline"), (1, "process wall"),
                        (2, "process CPU")):
        for mode in ("one", "many"):
            label = "%s, %s" % (what, flags[mode])
            print(summary(label, [r[index] for r in results[mode]]))
        if index < 2:
            one = [r[index] for r in results["one"]]
            many = [r[index] for r in results["many"]]
            print("%-26s min %.2fx, median %.2fx" % (
                "speedup (%s)" % what, min(one) / min(many),
                statistics.median(one) / statistics.median(many)))
    print("outputs identical: yes")


if __name__ == "__main__":
    main()
