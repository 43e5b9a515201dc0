#!/usr/bin/env python3
"""Writes an nnir module whose @main calls N primitive functions that differ
only in their constants and shapes: function i computes
add(multiply(%p, c_i), 0.5f) on a splat of shape SHAPES[i % len(SHAPES)];
@main returns the N results as a tuple. Every function is elementwise over
one shape, so the execution engine compiles one shape-generic kernel for
all of them.

    /usr/bin/python3 benchmarks/many_functions.py 1000 > /tmp/many.nnir
    build/bin/nnir-run /tmp/many.nnir --time --no-kernel-cache
    build/bin/nnir-run /tmp/many.nnir --time
    build/bin/nnir-run /tmp/many.nnir --time --kernel-cache-dir=/tmp/kc  # twice
"""
import sys

SHAPES = ["(64, 64)", "(4096)", "(8, 8, 64)", "(100)", "(3, 5, 7)"]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    out = ['#[version = "0.0.5"]', "def @main() {"]
    for i in range(n):
        t = "Tensor[%s, float32]" % SHAPES[i % len(SHAPES)]
        out.append("  %%%d = fn (%%p: %s, Primitive=1) {" % (2 * i, t))
        out.append("    add(multiply(%%p, %rf), 0.5f)" % (1 + i * 1e-3))
        out.append("  };")
        out.append("  %%%d = %%%d(dense<1> : %s);" % (2 * i + 1, 2 * i, t))
    out.append("  (%s)" % ", ".join("%%%d" % (2 * i + 1) for i in range(n)))
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
