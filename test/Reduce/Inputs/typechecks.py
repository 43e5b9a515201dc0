"""An interestingness test that also checks the reducer's promise.

    typechecks.py TOOLS_DIR MARKER PATTERN... CANDIDATE

Type-checks CANDIDATE with nnir-opt; a candidate that does not type-check
is logged to MARKER (the reducer must never hand one over) and is not
interesting. Otherwise interesting when every PATTERN occurs in it.
"""
import os
import subprocess
import sys

tools, marker, *patterns, candidate = sys.argv[1:]
run = subprocess.run([os.path.join(tools, "nnir-opt"), "--passes=InferType",
                      candidate, "-o", os.devnull],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
if run.returncode != 0:
    with open(marker, "a") as out:
        out.write("ill-formed candidate: " + run.stderr.decode() + "\n")
    sys.exit(1)
text = open(candidate).read()
sys.exit(0 if all(p in text for p in patterns) else 1)
