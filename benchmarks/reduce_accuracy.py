#!/usr/bin/python3
"""Relative errors of nnir-run's float32 sum, mean and softmax against a
float64 reference, next to NumPy's float32 results and a sequential float32
sum (what a float32 accumulator gives), over 2^20, 2^24 and 2^26 values in
[0, 1) (issue 21 §3).

  reduce_accuracy.py NNIR_RUN WORKDIR [LOG2_LENGTH ...]

NNIR_RUN is the nnir-run binary; WORKDIR receives the input, the module and
the outputs (up to 512 MiB at 2^26). Softmax's error is the largest over its
elements. Needs NumPy (/usr/bin/python3 on the build machines).
"""

import os
import subprocess
import sys
import time

import numpy as np


def relative_error(got, want):
    got = np.asarray(got, dtype=np.float64)
    return float(np.max(np.abs(got - want) / np.abs(want)))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    nnir_run, work = sys.argv[1], sys.argv[2]
    lengths = [int(a) for a in sys.argv[3:]] or [20, 24, 26]
    os.makedirs(work, exist_ok=True)
    print("%-6s %-8s %12s %12s %12s" %
          ("n", "op", "nnir", "numpy f32", "seq f32"))
    for log2 in lengths:
        n = 1 << log2
        x = np.random.default_rng(log2).uniform(0, 1, n).astype(np.float32)
        np.save(os.path.join(work, "x.npy"), x)
        module = os.path.join(work, "reduce.nnir")
        with open(module, "w") as f:
            f.write("def @main(%%x: Tensor[(%d), float32]) {\n"
                    "  (sum(%%x), mean(%%x), nn.softmax(%%x))\n}\n" % n)
        start = time.time()
        subprocess.check_call([nnir_run, module, "--input",
                               "x=" + os.path.join(work, "x.npy"),
                               "--output-dir=" + work])
        seconds = time.time() - start
        total, mean, softmax = (
            np.load(os.path.join(work, "output_%d.npy" % i))
            for i in range(3))
        x64 = x.astype(np.float64)
        want_sum = x64.sum()
        e64 = np.exp(x64 - x64.max())
        want_softmax = e64 / e64.sum()
        sequential = np.cumsum(x, dtype=np.float32)[-1]
        e32 = np.exp(x - x.max())
        rows = [
            ("sum", total, np.sum(x), sequential, want_sum),
            ("mean", mean, np.mean(x), sequential / np.float32(n),
             want_sum / n),
            ("softmax", softmax, e32 / np.sum(e32),
             e32 / np.cumsum(e32, dtype=np.float32)[-1], want_softmax),
        ]
        for op, got, numpy32, seq32, want in rows:
            print("2^%-4d %-8s %12.3e %12.3e %12.3e" %
                  (log2, op, relative_error(got, want),
                   relative_error(numpy32, want), relative_error(seq32, want)))
        print("       (nnir-run %.2f s)" % seconds)


if __name__ == "__main__":
    main()
