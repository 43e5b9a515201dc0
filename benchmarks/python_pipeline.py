#!/usr/bin/env python3
# ===- python_pipeline.py - A pass pipeline from Python vs nnir-opt -------===#
"""Times one pass pipeline run from Python against nnir-opt running it in
process (issue 23, section 3: within 10%).

  python_pipeline.py [BUILD_DIR] [--runs N] [--workloads mobilenet,chain]

For each workload (a module text and a pipeline, run at opt level 3):

  - nnir-opt: `nnir-opt FILE -O3 --passes=PIPELINE --time-passes -o
    /dev/null`; the figure is its report's "Total Execution Time", the
    pipeline alone (parsing and printing excluded);
  - Python: in a fresh interpreter (so kernels are compiled cold, as in
    nnir-opt), `nnir.load(FILE)`, `nnir.transform.parse_pipeline(PIPELINE)`,
    then `seq(mod)` inside `PassContext(opt_level=3, instruments=
    [PassTimingInstrument()])`, timed with time.perf_counter() around the
    call: the pipeline plus everything the binding adds (releasing the GIL,
    the context, the same timing instrument nnir-opt's flag installs).

Runs alternate between the two; the minimum and the median of N runs
(default 5) are printed, and the ratio Python / nnir-opt of each. The
machine is shared: the minimum is the figure load disturbs least, and the
run-to-run spread under load is larger than the difference measured. So the
Python run also reads its own PassTimingInstrument (the measure nnir-opt
reports) and prints the "overhead": its wall time around `seq(mod)` minus
the pipeline's time as the instrument saw it, i.e. what the call from Python
adds (in seconds).

Workloads: `mobilenet` and `resnet50` (make_cnn.py's text, weights bound by
the pipeline's BindParams{random=true}, then SimplifyInference, FoldConstant,
FoldScaleAxis, FoldConstant: JIT-heavy), `chain` (a 20,000-call graph with a
foldable constant per call: InferType, FoldConstant, SimplifyExpr,
DeadCodeElimination: IR-heavy).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python_pipeline.py
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CNN_PIPELINE = ("BindParams{random=true},InferType,SimplifyInference,"
                "FoldConstant,FoldScaleAxis,FoldConstant")
CHAIN_PIPELINE = "InferType,FoldConstant,SimplifyExpr,DeadCodeElimination"

# Runs in a fresh interpreter: prints the seconds seq(mod) took, and the
# seconds the timing instrument measured for the pipeline (what nnir-opt
# reports): their difference is what calling from Python adds.
PYTHON_RUN = r"""
import sys, time
import nnir
from nnir import instrument, transform
mod = nnir.load(sys.argv[1])
seq = transform.parse_pipeline(sys.argv[2])
timing = instrument.PassTimingInstrument()
with transform.PassContext(opt_level=3, instruments=[timing]):
    start = time.perf_counter()
    out = seq(mod)
    elapsed = time.perf_counter() - start
    report = timing.render()
assert out is not mod
measured = sum(float(line.split(": ")[1].split("us")[0])
               for line in report.splitlines() if not line.startswith("\t"))
print("%.6f %.6f" % (elapsed, measured * 1e-6))
"""


def chain_text(calls):
    """`%y = add(%y, multiply(c_i, 2f))` `calls` times: each multiply of
    constants folds, then SimplifyExpr and DCE walk the whole graph."""
    lines = ["#[version = \"0.0.5\"]",
             "def @main(%x: Tensor[(4), float32]) {"]
    prev = "%x"
    for i in range(calls):
        lines.append("  %%%d = add(%s, multiply(%df, 2f));" % (i, prev, i % 7))
        prev = "%%%d" % i
    lines.append("  negative(%s)" % prev)
    lines.append("}")
    return "\n".join(lines) + "\n"


def make_workload(name, directory):
    path = os.path.join(directory, name + ".nnir")
    if name in ("mobilenet", "resnet50"):
        subprocess.run([sys.executable, os.path.join(HERE, "make_cnn.py"),
                        name, "-o", path], check=True)
        return path, CNN_PIPELINE
    if name == "chain":
        with open(path, "w", encoding="utf-8") as f:
            f.write(chain_text(20000))
        return path, CHAIN_PIPELINE
    raise SystemExit("unknown workload '%s'" % name)


def run_nnir_opt(build, path, pipeline):
    proc = subprocess.run(
        [os.path.join(build, "bin", "nnir-opt"), path, "-O3",
         "--passes=" + pipeline, "--time-passes", "-o", os.devnull],
        check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    match = re.search(r"Total Execution Time: ([0-9.]+) seconds", proc.stderr)
    if not match:
        raise SystemExit("no timing report from nnir-opt:\n" + proc.stderr)
    return float(match.group(1))


def run_python(build, path, pipeline):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(build, "python")
    proc = subprocess.run([sys.executable, "-c", PYTHON_RUN, path, pipeline],
                          check=True, stdout=subprocess.PIPE, text=True,
                          env=env)
    elapsed, measured = proc.stdout.split()[-2:]
    return float(elapsed), float(measured)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build", nargs="?",
                        default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workloads", default="mobilenet,chain")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    print("load average before: %.2f %.2f %.2f" % os.getloadavg())
    print("%-10s %-9s %9s %9s" % ("workload", "runner", "min (s)",
                                  "median (s)"))
    with tempfile.TemporaryDirectory() as directory:
        for name in args.workloads.split(","):
            path, pipeline = make_workload(name, directory)
            times = {"nnir-opt": [], "python": []}
            overhead = []
            for _ in range(args.runs):
                times["nnir-opt"].append(run_nnir_opt(build, path, pipeline))
                elapsed, measured = run_python(build, path, pipeline)
                times["python"].append(elapsed)
                overhead.append(elapsed - measured)
            for runner, values in times.items():
                print("%-10s %-9s %9.4f %9.4f" % (
                    name, runner, min(values), statistics.median(values)))
            print("%-10s %-9s %9.3f %9.3f" % (
                name, "ratio",
                min(times["python"]) / min(times["nnir-opt"]),
                statistics.median(times["python"]) /
                statistics.median(times["nnir-opt"])))
            print("%-10s %-9s %9.6f %9.6f   (Python's wall time minus its "
                  "timing instrument's)" % (name, "overhead", min(overhead),
                                           statistics.median(overhead)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
