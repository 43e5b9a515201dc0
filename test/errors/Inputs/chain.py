#!/usr/bin/env python3
# ===- chain.py - Flat chains of graph bindings for the deep-input tests -===#
#
# Prints `def @main(%x: float32, %c: bool) { ... }` whose body is a chain of
# N graph bindings, each using the previous one once:
#   fn     %i = fn () { %i-1 };
#   if     %i = if (%c) { %i-1 } else { %x };
#   let    %i = (let %y = %i-1; %y);
#   tuple  %i = (%i-1,);
# The text is flat (no nesting), but the expressions are N levels deep, and
# the types of the fn and tuple chains are too.
#
#   chain.py KIND N

import sys

kind, count = sys.argv[1], int(sys.argv[2])
forms = {
    "fn": "fn () {{ {} }}",
    "if": "if (%c) {{ {} }} else {{ %x }}",
    "let": "(let %y = {}; %y)",
    "tuple": "({},)",
}
lines = ["def @main(%x: float32, %c: bool) {"]
previous = "%x"
for i in range(count):
    lines.append("  %{} = {};".format(i, forms[kind].format(previous)))
    previous = "%{}".format(i)
lines.append("  " + previous)
lines.append("}")
sys.stdout.write("\n".join(lines) + "\n")
