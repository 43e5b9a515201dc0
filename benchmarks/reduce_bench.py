#!/usr/bin/env python3
"""nnir-reduce on real CNNs: how small, how fast, how many test runs.

  reduce_bench.py BUILD_DIR [--models resnet50,mobilenet]

For each model (make_cnn.py, batch 1, weights as parameters of @main;
nothing is downloaded), runs

  nnir-reduce --test=TEST MODEL -o REDUCED

with the interestingness test of issue 25 ("still contains nn.softmax and
type-checks"):

  #!/bin/sh
  grep -q nn.softmax "$1" && nnir-opt --passes=InferType "$1" -o /dev/null

and prints nnir-reduce's summary (calls before and after, test runs,
seconds) plus the whole-process wall time. The goal: at most 3 calls left,
in under a minute; the script exits 1 when a model misses it.
"""

import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SUMMARY = re.compile(r"nnir-reduce: (\d+) calls? -> (\d+) calls?, .*?; "
                     r"(\d+) test runs? \((\d+) interesting\), (\d+) "
                     r"candidates? skipped as ill-formed; ([0-9.]+) s")


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    build = args[0]
    models = ["resnet50", "mobilenet"]
    if "--models" in args:
        models = args[args.index("--models") + 1].split(",")
    bindir = os.path.join(build, "bin")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        test = os.path.join(tmp, "softmax-typechecks.sh")
        with open(test, "w") as f:
            f.write("#!/bin/sh\ngrep -q nn.softmax \"$1\" && "
                    f"'{bindir}/nnir-opt' --passes=InferType \"$1\" "
                    "-o /dev/null 2>/dev/null\n")
        os.chmod(test, 0o755)
        for model in models:
            path = os.path.join(tmp, model + ".nnir")
            subprocess.run([sys.executable, os.path.join(HERE, "make_cnn.py"),
                            model, "-o", path], check=True)
            reduced = os.path.join(tmp, model + ".reduced.nnir")
            start = time.monotonic()
            run = subprocess.run([os.path.join(bindir, "nnir-reduce"),
                                  "--test=" + test, path, "-o", reduced],
                                 stderr=subprocess.PIPE, text=True)
            wall = time.monotonic() - start
            if run.returncode != 0:
                print(f"{model}: nnir-reduce failed:\n{run.stderr}")
                ok = False
                continue
            m = SUMMARY.search(run.stderr)
            before, after, runs, yes, ill, secs = m.groups()
            print(f"{model}: {before} calls -> {after}, {runs} test runs "
                  f"({yes} interesting, {ill} ill-formed candidates "
                  f"skipped), {float(secs):.2f} s reducing, {wall:.2f} s "
                  "wall")
            print("  " + open(reduced).read().replace("\n", "\n  ").rstrip())
            ok &= int(after) <= 3 and wall < 60
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
