#!/usr/bin/env python3
# ===- python_chain.py - A 100,000-call chain built and run from Python ---===#
"""Times the Python path of issue 23 (section 3): build `y = add(y, c)`
N times from Python (N = 100,000 by default) with one shared constant
subexpression `c = negative(dense<1> : Tensor[(4), float32])`, then
InferType, FoldConstant and astext(), each timed, and the total.

The goal is at most 1.5 s in total on the CI machine (nnir-opt does the same
from text in about 0.5 s). FoldConstant runs as
nnir.transform.FoldConstant()(mod), in the thread's default PassContext.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python_chain.py
    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python_chain.py \\
        --calls 10000 --runs 5
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

import nnir
from nnir import op


def build(n):
    x = nnir.var("x", shape=(4,))
    c = op.negative(nnir.const(np.ones(4, "float32")))
    add = op.add
    y = x
    for _ in range(n):
        y = add(y, c)
    return nnir.IRModule.from_expr(nnir.Function([x], y))


def run_once(n):
    fold_constant = nnir.transform.FoldConstant()
    times = {}
    start = time.perf_counter()
    mod = build(n)
    times["build"] = time.perf_counter() - start
    t = time.perf_counter()
    mod = nnir.infer_type(mod)
    times["InferType"] = time.perf_counter() - t
    t = time.perf_counter()
    mod = fold_constant(mod)
    times["FoldConstant"] = time.perf_counter() - t
    t = time.perf_counter()
    text = mod.astext()
    times["astext"] = time.perf_counter() - t
    times["total"] = time.perf_counter() - start
    # FoldConstant folded the shared negative() into one constant.
    assert "negative" not in text and text.count("add(") == n, "bad result"
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=100000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print("load average before: %.2f %.2f %.2f" % os.getloadavg())
    runs = [run_once(args.calls) for _ in range(args.runs)]
    print("%d-call chain from Python, %d runs (seconds):" %
          (args.calls, args.runs))
    print("%-13s %8s %8s" % ("stage", "min", "median"))
    for stage in runs[0]:
        values = [r[stage] for r in runs]
        print("%-13s %8.3f %8.3f" % (stage, min(values),
                                     statistics.median(values)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
