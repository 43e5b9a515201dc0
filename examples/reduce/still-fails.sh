#!/bin/sh
# An interestingness test for nnir-reduce (docs/Passes.md, "Debugging a
# pipeline"): the candidate ($1) is interesting while the pipeline still
# fails on it with the same error. test-fail is a test pass (test builds).
# Run from the source tree, after the build.
build/bin/nnir-opt --passes='default<O2>,test-fail' "$1" -o /dev/null 2>&1 \
  | grep -q 'failing on purpose'
