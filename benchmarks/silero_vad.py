#!/usr/bin/env python3
"""Silero VAD v4, v5 and v6 through nnir-run, against ONNX Runtime 1.30.

  silero_vad.py MODULES [--nnir-run PATH] [--repeat N] [--seed S]
                [--models v4,v5,v6] [--rates 16000,8000]

MODULES is the node_modules folder that holds the models and the runtime;
this script fetches nothing. Fetch them once with

  npm install --ignore-scripts @ricky0123/vad-web@0.0.31 onnxruntime-node@1.30.0

(--ignore-scripts: onnxruntime-node's install script downloads GPU
libraries; the CPU library ships in the package). The models are
@ricky0123/vad-web/dist/silero_vad_legacy.onnx (v4), silero_vad_v5.onnx and
silero_vad_v6.onnx.

For each model and sample rate it makes seeded inputs (one window of audio:
512 samples at 16 kHz, 256 at 8 kHz, batch 1, a random recurrent state; the
sample rate is an input), runs

  node silero_vad_ort.js MODULES MODEL IN OUT N      (ONNX Runtime)
  nnir-run MODEL --input NAME=IN/NAME.npy --input-shape NAME=DIMS ...
           --output-dir OUT --time                   (nnir)

checks that every output matches ONNX Runtime's (rtol 1e-3, atol 1e-4) and
prints one line per model and rate. nnir-run runs twice on one kernel cache
directory: a cold process (its compile time is reported) that fills the
cache, then a warm one that calls the model N times (--repeat N, default 20);
the figures are the warm process's median kernel time (its `--time` "run")
and its mean time per call (the whole loop of calls over N: kernels plus the
evaluator's work between them). ONNX Runtime's are its first and median run
(of N, after the first). The
models' symbolic batch and length dimensions are fixed with --input-shape;
nnir-run hands the input values to the importer, so the Ifs on the sample
rate and on shapes are decided at import time. Exits 1 on a mismatch or a
failed run.

Needs NumPy (/usr/bin/python3) and node.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {
    "v4": "silero_vad_legacy.onnx",
    "v5": "silero_vad_v5.onnx",
    "v6": "silero_vad_v6.onnx",
}
WINDOW = {16000: 512, 8000: 256}
RTOL, ATOL = 1e-3, 1e-4


def make_inputs(model, rate, seed):
    """name -> array for the model's inputs (v4: input, sr, h, c; v5/v6:
    input, state, sr)."""
    rng = np.random.default_rng(seed)
    audio = (rng.standard_normal((1, WINDOW[rate])) * 0.1).astype(np.float32)
    inputs = {"input": audio, "sr": np.array(rate, np.int64)}
    if model == "v4":
        inputs["h"] = (rng.standard_normal((2, 1, 64)) * 0.1).astype(np.float32)
        inputs["c"] = (rng.standard_normal((2, 1, 64)) * 0.1).astype(np.float32)
    else:
        inputs["state"] = (rng.standard_normal((2, 1, 128)) * 0.1).astype(
            np.float32)
    return inputs


def run_ort(modules, model_path, in_dir, out_dir, repeat):
    proc = subprocess.run(
        ["node", os.path.join(HERE, "silero_vad_ort.js"), modules, model_path,
         in_dir, out_dir, str(repeat)],
        capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError("onnxruntime: " + proc.stderr.strip())
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_nnir(nnir_run, model_path, inputs, in_dir, out_dir, cache_dir,
             repeat):
    """(compile ms, median kernel ms, total ms) of one nnir-run process."""
    cmd = [nnir_run, model_path, "--output-dir", out_dir, "--time",
           "--kernel-cache-dir", cache_dir, f"--repeat={repeat}"]
    for name, array in inputs.items():
        cmd += ["--input", f"{name}={os.path.join(in_dir, name + '.npy')}"]
        if array.ndim:
            cmd += ["--input-shape",
                    f"{name}={'x'.join(str(d) for d in array.shape)}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError("nnir-run: " + proc.stderr.strip())
    match = re.search(r"compile ([0-9.]+) ms, run ([0-9.]+) ms \(kernels\), "
                      r"total ([0-9.]+) ms", proc.stderr)
    if not match:
        raise RuntimeError("nnir-run printed no --time line: " + proc.stderr)
    return tuple(float(match.group(i)) for i in (1, 2, 3))


def compare(ort_dir, nnir_dir):
    """The largest absolute difference, and whether every output matches."""
    worst, ok, i = 0.0, True, 0
    while os.path.exists(os.path.join(ort_dir, f"output_{i}.npy")):
        want = np.load(os.path.join(ort_dir, f"output_{i}.npy"))
        path = os.path.join(nnir_dir, f"output_{i}.npy")
        if not os.path.exists(path):
            return float("inf"), False
        got = np.load(path)
        if got.shape != want.shape or got.dtype != want.dtype:
            return float("inf"), False
        worst = max(worst, float(np.max(np.abs(got - want))))
        ok &= bool(np.allclose(got, want, rtol=RTOL, atol=ATOL))
        i += 1
    return worst, ok and i > 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", help="node_modules with @ricky0123/vad-web "
                        "and onnxruntime-node")
    parser.add_argument("--nnir-run", default=os.path.join(
        HERE, "..", "build", "bin", "nnir-run"))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", default="v4,v5,v6")
    parser.add_argument("--rates", default="16000,8000")
    args = parser.parse_args()
    dist = os.path.join(args.modules, "@ricky0123", "vad-web", "dist")
    failed = False
    print(f"{'model':6} {'rate':>6} {'match':6} {'max|diff|':>10} "
          f"{'nnir kernels ms':>15} {'nnir call ms':>12} "
          f"{'nnir cold compile ms':>20} {'ORT first ms':>13} "
          f"{'ORT median ms':>14} {'ratio':>6}")
    for model in args.models.split(","):
        model_path = os.path.join(dist, MODELS[model])
        for rate in (int(r) for r in args.rates.split(",")):
            with tempfile.TemporaryDirectory() as tmp:
                in_dir = os.path.join(tmp, "in")
                os.makedirs(in_dir)
                inputs = make_inputs(model, rate, args.seed)
                for name, array in inputs.items():
                    np.save(os.path.join(in_dir, name + ".npy"), array)
                try:
                    ort = run_ort(args.modules, model_path, in_dir,
                                  os.path.join(tmp, "ort"), args.repeat)
                    cache = os.path.join(tmp, "kernel-cache")
                    compile_ms, _, _ = run_nnir(
                        args.nnir_run, model_path, inputs, in_dir,
                        os.path.join(tmp, "nnir-cold"), cache, 1)
                    _, run_ms, total_ms = run_nnir(
                        args.nnir_run, model_path, inputs, in_dir,
                        os.path.join(tmp, "nnir"), cache, args.repeat)
                except RuntimeError as err:
                    print(f"{model:6} {rate:>6} FAILED {err}")
                    failed = True
                    continue
                worst, ok = compare(os.path.join(tmp, "ort"),
                                    os.path.join(tmp, "nnir"))
                failed |= not ok
                print(f"{model:6} {rate:>6} {'yes' if ok else 'NO':6} "
                      f"{worst:10.2e} {run_ms:15.3f} "
                      f"{total_ms / args.repeat:12.3f} {compile_ms:20.1f} "
                      f"{ort['first_ms']:13.3f} {ort['median_ms']:14.3f} "
                      f"{total_ms / args.repeat / ort['median_ms']:5.1f}x")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
