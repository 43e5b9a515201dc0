#!/bin/sh
# An interestingness test for nnir-reduce (docs/Reduce.md): the candidate
# ($1) is interesting when nnir-opt's default pipeline succeeds on it and
# still leaves an nn.dense call. Run from the source tree, after the build.
out=$(build/bin/nnir-opt --passes='default<O2>' "$1" 2>/dev/null) || exit 1
echo "$out" | grep -q 'nn.dense('
